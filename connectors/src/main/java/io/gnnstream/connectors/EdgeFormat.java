package io.gnnstream.connectors;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.gnnstream.connectors.internal.Json;
import io.gnnstream.state.records.EdgeUpdate;
import java.util.Locale;
import org.apache.flink.api.common.typeinfo.TypeInformation;

/**
 * Edge records: text {@code src,dst[,op][,timestamp]} or JSON {@code
 * {"src":…,"dst":…,"op":"add"|"remove","ts":…}} (a value starting with <code>{</code>). The op is
 * {@code +}/{@code -} or {@code add}/{@code remove} (default add); the timestamp is non-negative
 * epoch milliseconds. {@code src,dst,timestamp} is accepted as well because an op is never numeric.
 * Ids are non-negative 64-bit integers; unknown JSON fields are ignored so that producers can add
 * attributes without breaking the job.
 */
public final class EdgeFormat implements RecordFormat<EdgeUpdate> {

    private static final long serialVersionUID = 1L;

    private static final String EXPECTED = "expected src,dst[,op][,timestamp] or a JSON object";
    private static final String OPS = "+, -, add or remove";

    @Override
    public EdgeUpdate parse(String value) throws InvalidRecordException {
        String line = value == null ? "" : value.trim();
        if (line.isEmpty()) {
            throw new InvalidRecordException("empty record, " + EXPECTED);
        }
        return line.charAt(0) == '{' ? parseJson(line) : parseText(line);
    }

    @Override
    public TypeInformation<EdgeUpdate> producedType() {
        return TypeInformation.of(EdgeUpdate.class);
    }

    private static EdgeUpdate parseText(String line) throws InvalidRecordException {
        String[] fields = line.split(",", -1);
        if (fields.length < 2) {
            throw new InvalidRecordException("missing dst: " + Json.quote(line) + ", " + EXPECTED);
        }
        if (fields.length > 4) {
            throw new InvalidRecordException("too many fields: " + fields.length + ", " + EXPECTED);
        }
        long src = textId("src", fields[0].trim());
        long dst = textId("dst", fields[1].trim());
        boolean remove = false;
        long timestamp = EdgeUpdate.NO_TIMESTAMP;
        if (fields.length == 3) {
            String third = fields[2].trim();
            if (!third.isEmpty()) {
                Boolean op = op(third);
                if (op != null) {
                    remove = op;
                } else if (third.chars().anyMatch(Character::isDigit)) {
                    timestamp = textTimestamp(third);
                } else {
                    throw unknownOp(third);
                }
            }
        } else if (fields.length == 4) {
            String opText = fields[2].trim();
            if (!opText.isEmpty()) {
                Boolean op = op(opText);
                if (op == null) {
                    throw unknownOp(opText);
                }
                remove = op;
            }
            String tsText = fields[3].trim();
            if (!tsText.isEmpty()) {
                timestamp = textTimestamp(tsText);
            }
        }
        return new EdgeUpdate(src, dst, remove, timestamp);
    }

    private static long textId(String name, String text) throws InvalidRecordException {
        if (text.isEmpty()) {
            throw new InvalidRecordException(name + " is empty, " + EXPECTED);
        }
        long id;
        try {
            id = Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new InvalidRecordException(
                    name + " is not a 64-bit integer: " + Json.quote(text));
        }
        if (id < 0) {
            throw new InvalidRecordException(name + " must be non-negative, got " + id);
        }
        return id;
    }

    private static long textTimestamp(String text) throws InvalidRecordException {
        long ts;
        try {
            ts = Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new InvalidRecordException(
                    "timestamp is not an integer (epoch milliseconds): " + Json.quote(text));
        }
        return checkTimestamp(ts);
    }

    private static long checkTimestamp(long ts) throws InvalidRecordException {
        if (ts < 0) {
            throw new InvalidRecordException(
                    "timestamp must be non-negative epoch milliseconds, got " + ts);
        }
        return ts;
    }

    /** True for a removal, false for an addition, null when the text is not an op. */
    private static Boolean op(String text) {
        switch (text.toLowerCase(Locale.ROOT)) {
            case "+":
            case "add":
                return Boolean.FALSE;
            case "-":
            case "remove":
                return Boolean.TRUE;
            default:
                return null;
        }
    }

    private static InvalidRecordException unknownOp(String text) {
        return new InvalidRecordException("unknown op " + Json.quote(text) + ", expected " + OPS);
    }

    private static EdgeUpdate parseJson(String line) throws InvalidRecordException {
        JsonNode root;
        try {
            root = Json.MAPPER.readTree(line);
        } catch (JsonProcessingException e) {
            throw new InvalidRecordException("unparseable JSON: " + Json.describe(e));
        }
        if (!root.isObject()) {
            throw new InvalidRecordException("expected a JSON object, got " + Json.describe(root));
        }
        long src = jsonId(root, "src");
        long dst = jsonId(root, "dst");
        boolean remove = false;
        JsonNode opNode = root.get("op");
        if (opNode != null && !opNode.isNull()) {
            if (!opNode.isTextual()) {
                throw new InvalidRecordException(
                        "op must be a string (" + OPS + "), got " + Json.describe(opNode));
            }
            Boolean op = op(opNode.textValue().trim());
            if (op == null) {
                throw unknownOp(opNode.textValue());
            }
            remove = op;
        }
        long timestamp = EdgeUpdate.NO_TIMESTAMP;
        JsonNode tsNode = root.get("ts");
        if (tsNode != null && !tsNode.isNull()) {
            if (!tsNode.isIntegralNumber() || !tsNode.canConvertToLong()) {
                throw new InvalidRecordException(
                        "ts must be an integer (epoch milliseconds), got " + Json.describe(tsNode));
            }
            timestamp = checkTimestamp(tsNode.longValue());
        }
        return new EdgeUpdate(src, dst, remove, timestamp);
    }

    private static long jsonId(JsonNode root, String name) throws InvalidRecordException {
        JsonNode node = root.get(name);
        if (node == null || node.isNull()) {
            throw new InvalidRecordException("missing field '" + name + "'");
        }
        if (!node.isIntegralNumber()) {
            throw new InvalidRecordException(
                    name + " must be an integer, got " + Json.describe(node));
        }
        if (!node.canConvertToLong()) {
            throw new InvalidRecordException(
                    name + " is out of 64-bit range: " + Json.describe(node));
        }
        long id = node.longValue();
        if (id < 0) {
            throw new InvalidRecordException(name + " must be non-negative, got " + id);
        }
        return id;
    }
}

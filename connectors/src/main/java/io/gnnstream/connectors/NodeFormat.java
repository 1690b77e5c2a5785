package io.gnnstream.connectors;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import io.gnnstream.connectors.internal.Json;
import io.gnnstream.state.records.NodeUpdate;
import io.gnnstream.state.records.Split;
import java.io.IOException;
import org.apache.flink.api.common.typeinfo.TypeInformation;

/**
 * Node records: JSON {@code {"id":…,"features":[…],"label":…,"split":"train"|"val"|"test"|"none"}}.
 * The label may be absent or null (unlabelled) unless the split is train, val or test; an absent
 * split means none. {@code "op"} is {@code "upsert"} (the default: the record replaces the vertex's
 * attributes) or {@code "delete"}: {@code {"id":7,"op":"delete"}} deletes the vertex with its edges
 * and takes no other field. The value is read with a streaming parser straight into a {@code
 * float[]}, because node records are large (Cora: 1433 features) and arrive at stream rate.
 *
 * <p>Feature rows are normalised as {@link RowNormalization} says: {@link RowNormalization#TRUE}
 * divides each row by its sum (PyG's {@code NormalizeFeatures}), {@link RowNormalization#FALSE}
 * keeps it, and {@link RowNormalization#AUTO} leaves the rows raw for the decision once per dataset
 * downstream ({@link NormalizationDecider}).
 */
public final class NodeFormat implements RecordFormat<NodeUpdate> {

    private static final long serialVersionUID = 1L;

    private static final String SPLITS = "train, val, test or none";

    private final int featureDim;
    private final int numClasses;
    private final RowNormalization rowNormalize;

    /** A format that divides every row with a positive sum by it ({@code rowNormalize}) or none. */
    public NodeFormat(int featureDim, int numClasses, boolean rowNormalize) {
        this(featureDim, numClasses, RowNormalization.of(rowNormalize));
    }

    public NodeFormat(int featureDim, int numClasses, RowNormalization rowNormalize) {
        if (featureDim <= 0) {
            throw new IllegalArgumentException("featureDim must be positive, got " + featureDim);
        }
        if (numClasses <= 0) {
            throw new IllegalArgumentException("numClasses must be positive, got " + numClasses);
        }
        this.featureDim = featureDim;
        this.numClasses = numClasses;
        this.rowNormalize = java.util.Objects.requireNonNull(rowNormalize, "rowNormalize");
    }

    /**
     * The id of a node record, read without decoding its features; -1 when the line is not a JSON
     * object with a non-negative integer {@code id} ({@link #parse} says what is wrong with it).
     */
    public static long idOf(String line) {
        return Json.topLevelId(line, "id");
    }

    /**
     * The length of a node record's {@code features} array, to build the format of a dataset from
     * one of its lines.
     *
     * @throws InvalidRecordException if the line is not JSON or its features are not a non-empty
     *     array
     */
    public static int featureCountOf(String line) throws InvalidRecordException {
        JsonNode features;
        try {
            features = Json.MAPPER.readTree(line).path("features");
        } catch (JsonProcessingException e) {
            throw new InvalidRecordException("unparseable JSON: " + Json.describe(e));
        }
        if (!features.isArray() || features.isEmpty()) {
            throw new InvalidRecordException("'features' must be a non-empty array");
        }
        return features.size();
    }

    public int featureDim() {
        return featureDim;
    }

    public int numClasses() {
        return numClasses;
    }

    public RowNormalization rowNormalize() {
        return rowNormalize;
    }

    @Override
    public TypeInformation<NodeUpdate> producedType() {
        return TypeInformation.of(NodeUpdate.class);
    }

    @Override
    public NodeUpdate parse(String value) throws InvalidRecordException {
        String line = value == null ? "" : value.trim();
        if (line.isEmpty()) {
            throw new InvalidRecordException(
                    "empty record, expected a JSON object {\"id\":…,\"features\":[…],…}");
        }
        NodeUpdate node;
        try (JsonParser p = Json.FACTORY.createParser(line)) {
            node = read(p);
        } catch (JsonProcessingException e) {
            throw new InvalidRecordException("unparseable JSON: " + Json.describe(e));
        } catch (IOException e) {
            throw new InvalidRecordException("unreadable record: " + e.getMessage());
        }
        if (!node.delete && rowNormalize != RowNormalization.AUTO) {
            rowNormalize.apply(node.features);
        }
        return node;
    }

    private NodeUpdate read(JsonParser p) throws IOException, InvalidRecordException {
        if (p.nextToken() != JsonToken.START_OBJECT) {
            throw new InvalidRecordException(
                    "expected a JSON object, got " + Json.describeCurrent(p));
        }
        long id = -1;
        float[] features = null;
        int label = NodeUpdate.NO_LABEL;
        Split split = Split.NONE;
        boolean delete = false;
        boolean attributes = false;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            switch (field) {
                case "id":
                    id = readId(p);
                    break;
                case "op":
                    delete = readDelete(p);
                    break;
                case "features":
                    features = readFeatures(p);
                    attributes = true;
                    break;
                case "label":
                    label = readLabel(p);
                    attributes = true;
                    break;
                case "split":
                    split = readSplit(p);
                    attributes = true;
                    break;
                default:
                    p.skipChildren();
            }
        }
        if (p.nextToken() != null) {
            throw new InvalidRecordException("unexpected content after the JSON object");
        }
        if (id < 0) {
            throw new InvalidRecordException("missing field 'id'");
        }
        if (delete) {
            if (attributes) {
                throw new InvalidRecordException(
                        "a deletion takes no features, label or split (send the vertex again"
                                + " after it to re-create it)");
            }
            return NodeUpdate.deletion(id);
        }
        if (features == null) {
            throw new InvalidRecordException("missing field 'features'");
        }
        if (label == NodeUpdate.NO_LABEL && split != Split.NONE) {
            throw new InvalidRecordException("split '" + split.wireName() + "' requires a label");
        }
        return new NodeUpdate(id, features, label, split);
    }

    private static long readId(JsonParser p) throws IOException, InvalidRecordException {
        if (p.currentToken() != JsonToken.VALUE_NUMBER_INT) {
            throw new InvalidRecordException(
                    "id must be a non-negative integer, got " + Json.describeCurrent(p));
        }
        if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
            throw new InvalidRecordException("id is out of 64-bit range: " + p.getText());
        }
        long id = p.getLongValue();
        if (id < 0) {
            throw new InvalidRecordException("id must be non-negative, got " + id);
        }
        return id;
    }

    private float[] readFeatures(JsonParser p) throws IOException, InvalidRecordException {
        if (p.currentToken() != JsonToken.START_ARRAY) {
            throw new InvalidRecordException(
                    "features must be an array of numbers, got " + Json.describeCurrent(p));
        }
        float[] features = new float[featureDim];
        int n = 0;
        for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken(), n++) {
            if (t != JsonToken.VALUE_NUMBER_INT && t != JsonToken.VALUE_NUMBER_FLOAT) {
                throw new InvalidRecordException(
                        "feature " + n + " is not a number: " + Json.describeCurrent(p));
            }
            double v = p.getDoubleValue();
            if (Double.isNaN(v)) {
                throw new InvalidRecordException("feature " + n + " is NaN");
            }
            if (Double.isInfinite(v) && !hasDigit(p.getText())) {
                throw new InvalidRecordException("feature " + n + " is infinite: " + p.getText());
            }
            if (Math.abs(v) > Float.MAX_VALUE) {
                throw new InvalidRecordException(
                        "feature " + n + " overflows float: " + Json.describeCurrent(p));
            }
            if (n < featureDim) {
                features[n] = (float) v;
            }
        }
        if (n != featureDim) {
            throw new InvalidRecordException(
                    "wrong feature dimension: expected " + featureDim + ", got " + n);
        }
        return features;
    }

    private int readLabel(JsonParser p) throws IOException, InvalidRecordException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_NULL) {
            return NodeUpdate.NO_LABEL;
        }
        if (t != JsonToken.VALUE_NUMBER_INT) {
            throw new InvalidRecordException(
                    "label must be an integer, got " + Json.describeCurrent(p));
        }
        boolean fitsInt = p.getNumberType() == JsonParser.NumberType.INT;
        int label = fitsInt ? p.getIntValue() : -1;
        if (!fitsInt || label < 0 || label >= numClasses) {
            throw new InvalidRecordException(
                    "label " + p.getText() + " out of range [0, " + numClasses + ")");
        }
        return label;
    }

    private static boolean readDelete(JsonParser p) throws IOException, InvalidRecordException {
        if (p.currentToken() == JsonToken.VALUE_STRING) {
            switch (p.getText()) {
                case "delete":
                    return true;
                case "upsert":
                    return false;
                default:
            }
        }
        throw new InvalidRecordException(
                "op must be \"upsert\" or \"delete\", got " + Json.describeCurrent(p));
    }

    private static Split readSplit(JsonParser p) throws IOException, InvalidRecordException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_NULL) {
            return Split.NONE;
        }
        if (t != JsonToken.VALUE_STRING) {
            throw new InvalidRecordException(
                    "split must be a string (" + SPLITS + "), got " + Json.describeCurrent(p));
        }
        Split split = Split.fromWireName(p.getText());
        if (split == null) {
            throw new InvalidRecordException(
                    "unknown split " + Json.quote(p.getText()) + ", expected " + SPLITS);
        }
        return split;
    }

    private static boolean hasDigit(String text) {
        return text.chars().anyMatch(Character::isDigit);
    }
}

package io.gnnstream.connectors.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;

/**
 * Shared Jackson configuration and message helpers for the input formats. {@code NaN} and {@code
 * Infinity} tokens are accepted by the parser so that formats can reject them with a precise reason
 * instead of a generic syntax error; duplicate keys are errors so that {@code {"id":1,"id":2}} is
 * never silently read as one of the two.
 */
public final class Json {

    public static final JsonFactory FACTORY =
            JsonFactory.builder()
                    .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
                    .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                    .build();

    public static final ObjectMapper MAPPER =
            JsonMapper.builder(FACTORY)
                    .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                    .build();

    private static final int MAX_QUOTED = 40;

    private Json() {}

    /**
     * Jackson's message without the source excerpt, plus the column, e.g. for a dead-letter reason.
     */
    public static String describe(JsonProcessingException e) {
        JsonLocation at = e.getLocation();
        String message = e.getOriginalMessage();
        return at == null || at.getColumnNr() < 0
                ? message
                : message + " (column " + at.getColumnNr() + ")";
    }

    /** Short rendering of a tree value for error messages. */
    public static String describe(JsonNode node) {
        return shorten(node.toString());
    }

    /** Short rendering of the parser's current value for error messages. */
    public static String describeCurrent(JsonParser p) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.START_ARRAY) {
            return "an array";
        }
        if (t == JsonToken.START_OBJECT) {
            return "an object";
        }
        if (t == JsonToken.VALUE_STRING) {
            return quote(p.getText());
        }
        return shorten(p.getText());
    }

    /**
     * The non-negative integer value of a top-level field of a JSON object, or -1 when the text is
     * not an object, the field is absent or not a non-negative 64-bit integer. Other fields are
     * skipped without being decoded, which keeps this cheap for records with large arrays.
     */
    public static long topLevelId(String json, String field) {
        try (JsonParser p = FACTORY.createParser(json)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return -1;
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                boolean wanted = field.equals(p.currentName());
                JsonToken value = p.nextToken();
                if (wanted) {
                    boolean isLong =
                            value == JsonToken.VALUE_NUMBER_INT
                                    && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER;
                    return isLong ? Math.max(-1, p.getLongValue()) : -1;
                }
                p.skipChildren();
            }
            return -1;
        } catch (IOException e) {
            return -1;
        }
    }

    /** The text in double quotes, cut to a readable length. */
    public static String quote(String text) {
        return "\"" + shorten(text) + "\"";
    }

    private static String shorten(String text) {
        return text.length() <= MAX_QUOTED ? text : text.substring(0, MAX_QUOTED) + "…";
    }
}

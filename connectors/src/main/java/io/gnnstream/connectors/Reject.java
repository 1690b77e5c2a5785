package io.gnnstream.connectors;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gnnstream.connectors.internal.Json;
import java.util.Objects;

/**
 * A record that failed to parse: where it came from, why, and the original value, so that it can be
 * inspected and replayed from the dead-letter topic. A Flink POJO.
 */
public class Reject {

    public String topic;
    public int partition;
    public long offset;
    public String reason;
    public String value;

    public Reject() {}

    public Reject(String topic, int partition, long offset, String reason, String value) {
        this.topic = topic;
        this.partition = partition;
        this.offset = offset;
        this.reason = reason;
        this.value = value;
    }

    /** The reject of a raw record for the given reason. */
    public static Reject of(RawRecord raw, String reason) {
        return new Reject(raw.topic, raw.partition, raw.offset, reason, raw.value);
    }

    /** One JSON object: {@code {"topic":…,"partition":…,"offset":…,"reason":…,"value":…}}. */
    public String toJson() {
        ObjectNode node = Json.MAPPER.createObjectNode();
        node.put("topic", topic);
        node.put("partition", partition);
        node.put("offset", offset);
        node.put("reason", reason);
        node.put("value", value);
        return node.toString();
    }

    /**
     * Reads what {@link #toJson()} wrote, e.g. when inspecting or replaying a dead-letter topic.
     */
    public static Reject fromJson(String json) throws InvalidRecordException {
        try {
            JsonNode node = Json.MAPPER.readTree(json);
            if (!node.isObject()) {
                throw new InvalidRecordException(
                        "expected a JSON object, got " + Json.describe(node));
            }
            return new Reject(
                    node.path("topic").asText(null),
                    node.path("partition").asInt(),
                    node.path("offset").asLong(),
                    node.path("reason").asText(null),
                    node.path("value").asText(null));
        } catch (JsonProcessingException e) {
            throw new InvalidRecordException("unparseable JSON: " + Json.describe(e));
        }
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Reject)) {
            return false;
        }
        Reject r = (Reject) o;
        return partition == r.partition
                && offset == r.offset
                && Objects.equals(topic, r.topic)
                && Objects.equals(reason, r.reason)
                && Objects.equals(value, r.value);
    }

    @Override
    public int hashCode() {
        return Objects.hash(topic, partition, offset, reason, value);
    }

    @Override
    public String toString() {
        return "Reject(" + topic + "-" + partition + "@" + offset + ": " + reason + ")";
    }
}

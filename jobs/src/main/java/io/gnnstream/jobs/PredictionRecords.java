package io.gnnstream.jobs;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gnnstream.operators.messages.Prediction;
import java.nio.charset.StandardCharsets;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Predictions as Kafka records of a compacted topic: key the vertex id (decimal), value the JSON
 * line {@code {"id":…,"step":…,"label":…,"probs":[…]}} (plus {@code "embedding":[…]} when the
 * prediction has one), so the topic keeps the latest prediction of every vertex.
 */
public final class PredictionRecords implements KafkaRecordSerializationSchema<Prediction> {

    private static final long serialVersionUID = 1L;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String topic;

    public PredictionRecords(String topic) {
        this.topic = topic;
    }

    /** The JSON line of a prediction. */
    public static String toJson(Prediction p) {
        ObjectNode line =
                JSON.createObjectNode()
                        .put("id", p.vertex)
                        .put("step", p.step)
                        .put("label", p.label);
        ArrayNode probs = line.putArray("probs");
        for (float v : p.probs) {
            probs.add(v);
        }
        if (p.embedding != null) {
            ArrayNode embedding = line.putArray("embedding");
            for (float v : p.embedding) {
                embedding.add(v);
            }
        }
        return line.toString();
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(
            Prediction p, KafkaSinkContext context, Long timestamp) {
        return new ProducerRecord<>(
                topic,
                Long.toString(p.vertex).getBytes(StandardCharsets.UTF_8),
                toJson(p).getBytes(StandardCharsets.UTF_8));
    }
}

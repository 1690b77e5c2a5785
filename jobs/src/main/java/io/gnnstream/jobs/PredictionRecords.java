package io.gnnstream.jobs;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import io.gnnstream.operators.messages.Prediction;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Predictions as Kafka records of a compacted topic: key the vertex id (decimal), value the JSON
 * line {@code {"id":…,"step":…,"label":…,"probs":[…]}} (plus {@code "embedding":[…]} when the
 * prediction has one), so the topic keeps the latest prediction of every vertex; a deleted vertex's
 * {@link Prediction#tombstone} is a null value, which compaction removes with the key.
 */
public final class PredictionRecords implements KafkaRecordSerializationSchema<Prediction> {

    private static final long serialVersionUID = 1L;
    private static final JsonFactory JSON =
            JsonFactory.builder().enable(StreamWriteFeature.USE_FAST_DOUBLE_WRITER).build();

    private final String topic;

    public PredictionRecords(String topic) {
        this.topic = topic;
    }

    /** The JSON line of a prediction. */
    public static String toJson(Prediction p) {
        return new String(toJsonBytes(p), StandardCharsets.UTF_8);
    }

    /**
     * The JSON line of a prediction as UTF-8, written by a streaming generator whose floats take
     * the shortest decimal that reads back as the same float (Jackson's fast writer: a round's
     * millions of predictions are mostly float formatting).
     */
    static byte[] toJsonBytes(Prediction p) {
        try (ByteArrayBuilder bytes = new ByteArrayBuilder(32 + 12 * p.probs.length);
                JsonGenerator line = JSON.createGenerator(bytes)) {
            line.writeStartObject();
            line.writeNumberField("id", p.vertex);
            line.writeNumberField("step", p.step);
            line.writeNumberField("label", p.label);
            writeArray(line, "probs", p.probs);
            if (p.embedding != null) {
                writeArray(line, "embedding", p.embedding);
            }
            line.writeEndObject();
            line.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException("could not write the prediction of " + p.vertex, e);
        }
    }

    private static void writeArray(JsonGenerator line, String field, float[] values)
            throws IOException {
        line.writeArrayFieldStart(field);
        for (float v : values) {
            line.writeNumber(v);
        }
        line.writeEndArray();
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(
            Prediction p, KafkaSinkContext context, Long timestamp) {
        return new ProducerRecord<>(
                topic,
                Long.toString(p.vertex).getBytes(StandardCharsets.UTF_8),
                p.isTombstone() ? null : toJsonBytes(p));
    }
}

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
 * line {@code {"id":…,"step":…,"label":…,"probs":[…]}} (plus {@code "changed_at"}, the time in ms
 * of the change an incremental prediction follows, and {@code "embedding":[…]} when the prediction
 * has one), so the topic keeps the latest prediction of every vertex; a deleted vertex's {@link
 * Prediction#deletion} is a null value, which compaction removes with the key.
 *
 * <p>Class probabilities are written rounded to {@value #PROBABILITY_DECIMALS} decimal places,
 * without trailing zeros ({@code 0.25}, {@code 0}, {@code 1}): a round's millions of predictions
 * are otherwise mostly float formatting and bytes for the broker (47 shortest floats a line on the
 * products-size graph, most of them tiny). Embeddings are written as the shortest decimal that
 * reads back as the same float.
 */
public final class PredictionRecords implements KafkaRecordSerializationSchema<Prediction> {

    private static final long serialVersionUID = 1L;
    private static final JsonFactory JSON =
            JsonFactory.builder().enable(StreamWriteFeature.USE_FAST_DOUBLE_WRITER).build();

    /** Decimal places of the class probabilities in a prediction line. */
    public static final int PROBABILITY_DECIMALS = 6;

    private static final long PROBABILITY_SCALE = 1_000_000L;

    private final String topic;

    public PredictionRecords(String topic) {
        this.topic = topic;
    }

    /** The JSON line of a prediction. */
    public static String toJson(Prediction p) {
        return new String(toJsonBytes(p), StandardCharsets.UTF_8);
    }

    /**
     * The JSON line of a prediction as UTF-8, written by a streaming generator: probabilities to
     * {@value #PROBABILITY_DECIMALS} places, embeddings as the shortest decimal that reads back as
     * the same float (Jackson's fast writer).
     */
    static byte[] toJsonBytes(Prediction p) {
        try (ByteArrayBuilder bytes = new ByteArrayBuilder(32 + 12 * p.probs.length);
                JsonGenerator line = JSON.createGenerator(bytes)) {
            line.writeStartObject();
            line.writeNumberField("id", p.vertex);
            line.writeNumberField("step", p.step);
            line.writeNumberField("label", p.label);
            writeProbabilities(line, p.probs);
            if (p.embedding != null) {
                writeArray(line, "embedding", p.embedding);
            }
            if (p.changedAt > 0) {
                line.writeNumberField("changed_at", p.changedAt);
            }
            line.writeEndObject();
            line.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException("could not write the prediction of " + p.vertex, e);
        }
    }

    private static void writeProbabilities(JsonGenerator line, float[] probs) throws IOException {
        line.writeArrayFieldStart("probs");
        char[] digits = new char[2 + PROBABILITY_DECIMALS];
        for (float q : probs) {
            if (q >= 0f && q <= 1f) {
                line.writeNumber(digits, 0, fixedDecimals(q, digits));
            } else {
                line.writeNumber(q); // not a probability: written as it is
            }
        }
        line.writeEndArray();
    }

    /**
     * Writes {@code q} (in [0, 1]) rounded to {@link #PROBABILITY_DECIMALS} places into {@code
     * out}, without trailing zeros; returns the length.
     */
    static int fixedDecimals(float q, char[] out) {
        long scaled = Math.round(q * (double) PROBABILITY_SCALE);
        if (scaled <= 0 || scaled >= PROBABILITY_SCALE) {
            out[0] = scaled <= 0 ? '0' : '1';
            return 1;
        }
        out[0] = '0';
        out[1] = '.';
        for (int i = 1 + PROBABILITY_DECIMALS; i >= 2; i--, scaled /= 10) {
            out[i] = (char) ('0' + scaled % 10);
        }
        int length = 2 + PROBABILITY_DECIMALS;
        while (out[length - 1] == '0') {
            length--;
        }
        return length;
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

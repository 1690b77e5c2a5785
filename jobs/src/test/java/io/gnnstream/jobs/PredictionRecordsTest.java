package io.gnnstream.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gnnstream.operators.messages.Prediction;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class PredictionRecordsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void probabilitiesHaveSixDecimalsAndEmbeddingsReadBackExactly() throws Exception {
        SplittableRandom random = new SplittableRandom(7);
        float[] probs = new float[47];
        float[] embedding = new float[16];
        for (int i = 0; i < probs.length; i++) {
            probs[i] = (float) random.nextDouble() * (i % 5 == 0 ? 1e-7f : 1f);
        }
        for (int i = 0; i < embedding.length; i++) {
            embedding[i] = (float) (random.nextGaussian() * 1e3);
        }
        probs[3] = 0f;
        probs[4] = 1f;
        JsonNode line =
                JSON.readTree(PredictionRecords.toJson(new Prediction(42, 7, 4, probs, embedding)));
        assertEquals(42, line.get("id").asLong());
        assertEquals(7, line.get("step").asLong());
        assertEquals(4, line.get("label").asInt());
        for (int i = 0; i < probs.length; i++) {
            JsonNode q = line.get("probs").get(i);
            assertEquals(probs[i], q.doubleValue(), 5e-7 + 1e-9, "prob " + i);
            assertTrue(q.asText().length() <= 8, "at most 6 decimals: " + q.asText());
        }
        assertEquals("0", line.get("probs").get(3).asText());
        assertEquals("1", line.get("probs").get(4).asText());
        assertEquals(0.0, line.get("probs").get(5).doubleValue(), "1e-7 and less round to 0");
        for (int i = 0; i < embedding.length; i++) {
            assertEquals(embedding[i], line.get("embedding").get(i).floatValue(), "dim " + i);
        }
    }

    @Test
    void noEmbeddingField() throws Exception {
        JsonNode line =
                JSON.readTree(
                        PredictionRecords.toJson(
                                new Prediction(1, 2, 0, new float[] {0.25f, 0.75f}, null)));
        assertFalse(line.has("embedding"));
        assertEquals(0.75f, line.get("probs").get(1).floatValue());
        assertEquals("0.25", line.get("probs").get(0).asText(), "no trailing zeros");
    }

    @Test
    void roundsToTheNearestMillionth() {
        char[] out = new char[8];
        assertEquals("0.000001", new String(out, 0, PredictionRecords.fixedDecimals(6e-7f, out)));
        assertEquals("0", new String(out, 0, PredictionRecords.fixedDecimals(4e-7f, out)));
        assertEquals(
                "0.123457", new String(out, 0, PredictionRecords.fixedDecimals(0.1234567f, out)));
        assertEquals("1", new String(out, 0, PredictionRecords.fixedDecimals(0.9999996f, out)));
        assertEquals("0.5", new String(out, 0, PredictionRecords.fixedDecimals(0.5f, out)));
    }
}

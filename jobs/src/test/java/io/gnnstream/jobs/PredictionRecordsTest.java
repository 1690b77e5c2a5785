package io.gnnstream.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gnnstream.operators.messages.Prediction;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class PredictionRecordsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void everyFloatReadsBackExactly() throws Exception {
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
            assertEquals(probs[i], line.get("probs").get(i).floatValue(), "prob " + i);
        }
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
    }
}

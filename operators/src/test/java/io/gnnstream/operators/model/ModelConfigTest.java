package io.gnnstream.operators.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class ModelConfigTest {

    private static ModelConfig.Builder valid() {
        return ModelConfig.builder().inFeatures(8).numClasses(3);
    }

    private static void rejects(UnaryOperator<ModelConfig.Builder> change, String field) {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> change.apply(valid()).build());
        assertTrue(e.getMessage().startsWith(field), e.getMessage());
    }

    @Test
    void rejectsOutOfRangeValues() {
        rejects(b -> b.inFeatures(0), "inFeatures");
        rejects(b -> ModelConfig.builder().numClasses(3), "inFeatures");
        rejects(b -> b.hidden(0), "hidden");
        rejects(b -> b.numClasses(1), "numClasses");
        rejects(b -> b.numLayers(0), "numLayers");
        rejects(b -> b.dropout(1.0), "dropout");
        rejects(b -> b.dropout(-0.1), "dropout");
        rejects(b -> b.learningRate(0), "learningRate");
        rejects(b -> b.learningRate(Double.NaN), "learningRate");
        rejects(b -> b.weightDecay(-1e-4), "weightDecay");
    }

    @Test
    void layerWidthsAndSerialization() throws Exception {
        ModelConfig c = valid().hidden(5).numLayers(3).seed(9).build();
        assertEquals(8, c.layerIn(0));
        assertEquals(5, c.layerOut(0));
        assertEquals(5, c.layerIn(2));
        assertEquals(3, c.layerOut(2));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(c);
        }
        try (ObjectInputStream in =
                new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            assertEquals(c, in.readObject());
        }
    }

    @Test
    void cosineScheduleDecaysToZeroAndStays() {
        ModelConfig c =
                ModelConfig.builder()
                        .inFeatures(2)
                        .numClasses(2)
                        .learningRate(0.01)
                        .decaySteps(100)
                        .build();
        assertEquals(0.01, c.learningRateAt(0), 1e-12);
        assertEquals(0.005, c.learningRateAt(50), 1e-12);
        assertEquals(0.0, c.learningRateAt(100), 1e-12);
        assertEquals(0.0, c.learningRateAt(1000), 1e-12);
        ModelConfig constant =
                ModelConfig.builder().inFeatures(2).numClasses(2).learningRate(0.01).build();
        assertEquals(0.01, constant.learningRateAt(12345), 1e-12);
    }
}

package io.gnnstream.operators.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.operators.messages.MiniBatch;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** Malformed batches fail loudly before any state changes instead of reading wrong rows. */
class BatchValidationTest {

    private static final ModelConfig CONFIG =
            ModelConfig.builder().inFeatures(4).hidden(5).numClasses(3).numLayers(2).build();

    private static MiniBatch batch() {
        return TestGraphs.sample(
                TestGraphs.random(30, 4, 3, 3, 4, 1),
                new int[] {1, 2, 3},
                new int[] {2, 2},
                true,
                1);
    }

    private static void rejects(Consumer<MiniBatch> corrupt, String messagePart) {
        SageModel model = new SageModel(CONFIG);
        long checksum = model.checksum();
        MiniBatch b = batch();
        corrupt.accept(b);
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> model.trainStep(b));
        assertTrue(e.getMessage().contains(messagePart), e.getMessage());
        assertEquals(checksum, model.checksum());
        assertEquals(0, model.step());
    }

    @Test
    void rejectsMalformedBatches() {
        rejects(b -> b.featureDim = 5, "featureDim");
        rejects(b -> b.numLayers = 1, "hops");
        rejects(b -> b.labels[1] = 3, "label 3");
        rejects(b -> b.labels = new int[1], "label per seed");
        rejects(b -> b.indices[b.indices.length - 1] = b.numNodes(), "edge source");
        rejects(b -> b.indices[0] = b.numSrc(1), "edge source");
        rejects(b -> b.features = new float[3], "features");
    }

    @Test
    void rejectsWrongGradientLength() {
        SageModel model = new SageModel(CONFIG);
        assertThrows(IllegalArgumentException.class, () -> model.applyGradients(new float[3]));
        assertThrows(IllegalArgumentException.class, () -> model.setParameterVector(new float[3]));
    }
}

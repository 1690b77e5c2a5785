package io.gnnstream.operators.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gnnstream.operators.messages.MiniBatch;
import org.junit.jupiter.api.Test;

/**
 * A seed without a label is left out of loss, accuracy and gradient, as if it were not in the
 * batch.
 */
class UnlabelledSeedsTest {

    private static final ModelConfig CONFIG =
            ModelConfig.builder()
                    .inFeatures(2)
                    .hidden(3)
                    .numClasses(2)
                    .numLayers(1)
                    .dropout(0)
                    .seed(5)
                    .build();

    @Test
    void unlabelledSeedDoesNotContribute() {
        MiniBatch both = new MiniBatch();
        both.numLayers = 1;
        both.nodeCounts = new int[] {2, 4};
        both.nodeIds = new long[] {0, 1, 2, 3};
        both.indptr = new int[] {0, 1, 2};
        both.indptrOffsets = new int[] {0};
        both.indices = new int[] {2, 3};
        both.indicesOffsets = new int[] {0};
        both.featureDim = 2;
        both.features = new float[] {1, 0, 0, 1, 0.5f, 0.5f, 0, 2};
        both.labels = new int[] {1, MiniBatch.NO_LABEL};

        MiniBatch only = new MiniBatch();
        only.numLayers = 1;
        only.nodeCounts = new int[] {1, 2};
        only.nodeIds = new long[] {0, 2};
        only.indptr = new int[] {0, 1};
        only.indptrOffsets = new int[] {0};
        only.indices = new int[] {1};
        only.indicesOffsets = new int[] {0};
        only.featureDim = 2;
        only.features = new float[] {1, 0, 0.5f, 0.5f};
        only.labels = new int[] {1};

        try (SageModel a = new SageModel(CONFIG);
                SageModel b = new SageModel(CONFIG)) {
            Gradients ga = a.computeGradients(both);
            Gradients gb = b.computeGradients(only);
            assertEquals(1, ga.numSeeds());
            assertEquals(gb.loss(), ga.loss(), 1e-9);
            assertArrayEquals(gb.grad(), ga.grad(), 1e-7f);
            assertEquals(1, a.evaluate(both).numSeeds());
        }
    }
}

package io.gnnstream.benchmarks.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.model.ModelConfig;
import io.gnnstream.operators.model.SageModel;
import org.junit.jupiter.api.Test;

class FullExpansionBatchTest {

    @Test
    void referenceShapes() {
        assertArrayEquals(
                new int[] {1_024, 26_624, 282_624},
                FullExpansionBatch.nodeCounts(1024, new int[] {25, 10}));
        assertArrayEquals(
                new long[] {25_600, 281_600},
                FullExpansionBatch.edgeCounts(1024, new int[] {25, 10}));
    }

    @Test
    void blocksNestAndEveryChildHasOneParentPerHop() {
        int seeds = 6;
        int[] fanouts = {3, 2};
        MiniBatch b = FullExpansionBatch.build(seeds, fanouts, 4, 3, 7);
        assertArrayEquals(new int[] {6, 24, 60}, b.nodeCounts);
        assertEquals(18, b.numEdges(1));
        assertEquals(18 + 36, b.numEdges(2));
        for (int h = 1; h <= 2; h++) {
            int[] parents = new int[b.numNodes()];
            for (int i = 0; i < b.numDst(h); i++) {
                int tier = i < seeds ? 0 : 1;
                assertEquals(
                        fanouts[tier],
                        b.edgeEnd(h, i) - b.edgeStart(h, i),
                        "degree of " + i + " in hop " + h);
                for (int k = b.edgeStart(h, i); k < b.edgeEnd(h, i); k++) {
                    int u = b.indices[k];
                    assertTrue(
                            u >= b.nodeCounts[tier] && u < b.nodeCounts[tier + 1],
                            "child in the next tier");
                    parents[u]++;
                }
            }
            for (int u = seeds; u < b.numSrc(h); u++) {
                assertEquals(1, parents[u], "node " + u + " in hop " + h);
            }
        }
        // Hop 2 repeats the hop-1 edges of the seeds (all edges sampled so far).
        for (int i = 0; i < seeds; i++) {
            for (int k = 0; k < 3; k++) {
                assertEquals(b.indices[b.edgeStart(1, i) + k], b.indices[b.edgeStart(2, i) + k]);
            }
        }
        assertEquals(60 * 4, b.features.length);
        assertEquals(seeds, b.labels.length);
    }

    @Test
    void deterministicAndAcceptedByTheModel() {
        MiniBatch a = FullExpansionBatch.build(8, new int[] {4, 3}, 5, 3, 11);
        MiniBatch b = FullExpansionBatch.build(8, new int[] {4, 3}, 5, 3, 11);
        assertArrayEquals(a.indices, b.indices);
        assertArrayEquals(a.features, b.features);
        assertArrayEquals(a.labels, b.labels);
        ModelConfig cfg = ModelConfig.builder().inFeatures(5).hidden(8).numClasses(3).build();
        try (SageModel model = new SageModel(cfg)) {
            assertTrue(Double.isFinite(model.trainStep(a).loss()));
        }
    }
}

package io.gnnstream.operators.model.gpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.gnnstream.operators.messages.MiniBatch;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class BatchLayoutTest {

    /** Two seeds; hop 1: 0 <- {2, 3, 2}, 1 <- {3}; hop 2 over 4 destinations and 6 sources. */
    private static MiniBatch batch() {
        MiniBatch b = new MiniBatch();
        b.numLayers = 2;
        b.nodeCounts = new int[] {2, 4, 6};
        b.setBlocks(
                new int[][] {{0, 3, 4}, {0, 1, 1, 3, 4}}, new int[][] {{2, 3, 2, 3}, {5, 4, 0, 5}});
        b.labels = new int[] {1, -1};
        return b;
    }

    private static int[] slice(BatchLayout l, int from, int count) {
        return Arrays.copyOfRange(l.ints(), from, from + count);
    }

    @Test
    void hopsAreLaidOutWithTheirReverseCsr() {
        BatchLayout l = new BatchLayout().build(batch(), 2);
        assertArrayEquals(new int[] {0, 3, 4}, slice(l, l.indptr(1), 3));
        assertArrayEquals(new int[] {2, 3, 2, 3}, slice(l, l.indices(1), 4));
        // Hop 1's sources 0..3: source 2 has destination 0 twice, source 3 destinations 0 and 1.
        assertArrayEquals(new int[] {0, 0, 0, 2, 4}, slice(l, l.revPtr(1), 5));
        assertArrayEquals(new int[] {0, 0, 0, 1}, slice(l, l.revDst(1), 4));
        assertArrayEquals(new int[] {0, 1, 1, 3, 4}, slice(l, l.indptr(2), 5));
        // Hop 2's sources 0..5: 0 <- dst 2, 4 <- dst 2, 5 <- dsts 0 and 3.
        assertArrayEquals(new int[] {0, 1, 1, 1, 1, 2, 4}, slice(l, l.revPtr(2), 7));
        assertArrayEquals(new int[] {2, 2, 0, 3}, slice(l, l.revDst(2), 4));
        assertArrayEquals(new int[] {1, -1}, slice(l, l.labels(), 2));
        assertEquals(-1, l.summed());
        assertEquals(l.labels() + 2, l.size());
    }

    @Test
    void inferenceBlocksCarrySummedCountsAndNoLabels() {
        MiniBatch b = new MiniBatch();
        b.numLayers = 1;
        b.nodeCounts = new int[] {2, 3};
        b.setBlocks(new int[][] {{0, 1, 2}}, new int[][] {{2, 0}});
        b.summedNeighbours = new int[] {4, 0};
        BatchLayout l = new BatchLayout().build(b, 0);
        assertEquals(-1, l.revPtr(1));
        assertEquals(-1, l.labels());
        assertArrayEquals(new int[] {4, 0}, slice(l, l.summed(), 2));
    }

    @Test
    void aSourceOutsideTheHopIsRefused() {
        MiniBatch b = batch();
        b.indices[1] = 9;
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> new BatchLayout().build(b, 2));
        assertEquals("hop 1 edge 1 names source 9 of 4", e.getMessage());
    }
}

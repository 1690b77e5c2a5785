package io.gnnstream.operators.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.gnnstream.operators.messages.MiniBatch;
import java.nio.FloatBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link BlockOps#scatterInputGrad} gives, bit for bit, what the SAGE and GCN kernels' own scatters
 * gave before they shared it (their code is kept here as the reference).
 */
@Timeout(60)
class SharedScatterTest {

    @Test
    void sharedScatterIsBitIdenticalToTheFormerKernels() {
        TestGraphs.Graph g = TestGraphs.random(60, 7, 3, 9, 5, 11L);
        MiniBatch b =
                TestGraphs.sample(g, new int[] {0, 3, 5, 8, 13, 21}, new int[] {4, 3}, true, 3L);
        Random r = new Random(17);
        for (int hop = 1; hop <= 2; hop++) {
            int in = 7;
            int nSrc = b.numSrc(hop);
            for (int blocks = 1; blocks <= 2; blocks++) {
                int width = blocks * in + 1;
                FloatBuffer dx = FloatBuffer.allocate(b.numDst(hop) * width);
                for (int k = 0; k < dx.capacity(); k++) {
                    dx.put(k, (float) r.nextGaussian());
                }
                for (int[] cols : new int[][] {{0, in}, {2, 5}}) {
                    float[] expected = new float[nSrc * in];
                    float[] actual = new float[nSrc * in];
                    float[] row = new float[2 * in];
                    if (blocks == 2) {
                        sage(dx, in, b, hop, expected, cols[0], cols[1], row);
                        BlockOps.scatterInputGrad(
                                dx, in, true, 0, b, hop, actual, cols[0], cols[1], row);
                    } else {
                        gcn(dx, in, b, hop, expected, cols[0], cols[1], row);
                        BlockOps.scatterInputGrad(
                                dx, in, false, 1, b, hop, actual, cols[0], cols[1], row);
                    }
                    assertArrayEquals(expected, actual);
                }
            }
        }
    }

    /** SageBlockOps.scatterInputGrad as it was. */
    private static void sage(
            FloatBuffer dx,
            int in,
            MiniBatch b,
            int hop,
            float[] dSrc,
            int c0,
            int c1,
            float[] row) {
        int nDst = b.numDst(hop);
        int width = 2 * in + 1;
        int len = c1 - c0;
        int[] indices = b.indices;
        for (int i = 0; i < nDst; i++) {
            dx.get(i * width + c0, row, 0, len);
            int base = i * in + c0;
            for (int c = 0; c < len; c++) {
                dSrc[base + c] += row[c];
            }
            int start = b.edgeStart(hop, i);
            int end = b.edgeEnd(hop, i);
            if (end == start) {
                continue;
            }
            dx.get(i * width + in + c0, row, len, len);
            float inv = 1f / (end - start);
            for (int c = 0; c < len; c++) {
                row[len + c] *= inv;
            }
            for (int k = start; k < end; k++) {
                int ub = indices[k] * in + c0;
                for (int c = 0; c < len; c++) {
                    dSrc[ub + c] += row[len + c];
                }
            }
        }
    }

    /** GcnBlockOps.scatterInputGrad as it was. */
    private static void gcn(
            FloatBuffer dx,
            int in,
            MiniBatch b,
            int hop,
            float[] dSrc,
            int c0,
            int c1,
            float[] row) {
        int nDst = b.numDst(hop);
        int width = in + 1;
        int len = c1 - c0;
        int[] indices = b.indices;
        for (int i = 0; i < nDst; i++) {
            dx.get(i * width + c0, row, 0, len);
            int start = b.edgeStart(hop, i);
            int end = b.edgeEnd(hop, i);
            if (end > start) {
                float inv = 1f / (end - start + 1);
                for (int c = 0; c < len; c++) {
                    row[c] *= inv;
                }
            }
            int base = i * in + c0;
            for (int c = 0; c < len; c++) {
                dSrc[base + c] += row[c];
            }
            for (int k = start; k < end; k++) {
                int ub = indices[k] * in + c0;
                for (int c = 0; c < len; c++) {
                    dSrc[ub + c] += row[c];
                }
            }
        }
    }
}

package io.gnnstream.operators.model;

import io.gnnstream.operators.messages.MiniBatch;
import java.nio.FloatBuffer;
import java.util.Arrays;

/**
 * The sparse half of a {@link SageModel} layer, as tight loops over heap arrays. A layer's dense
 * input row for destination {@code i} is {@code [drop(h_i) | mean_u drop(h_u) | 1]}, so one gemm
 * against {@code [W_root; W_neigh; b]} (exactly the flat parameter layout) gives the layer output,
 * and one gemm gives all three weight gradients. The input gradient is scattered back by {@link
 * BlockOps#scatterInputGrad}. Rows move to and from native memory as one bulk copy each instead of
 * per-element INDArray access.
 *
 * <p>As in {@link BlockOps}, every method works on a part of its output with the same operations in
 * the same order whatever the part, so results do not depend on the number of threads of a {@link
 * LoopPool}.
 */
final class SageBlockOps {

    private SageBlockOps() {}

    /**
     * Writes the input rows {@code [from, to)} of the layer using hop {@code hop} into {@code out}
     * (row width {@code 2*in+1}). {@code src} holds the layer's source rows ({@code in} floats
     * each); {@code drop} (nullable) is applied on the fly so dropped copies of {@code src} are
     * never materialized. Destinations without sampled neighbours get a zero mean. A destination's
     * degree counts its {@link MiniBatch#summedNeighbours} as well as its edges. {@code row} needs
     * {@code 2*in+1} floats, {@code scale} {@code BlockOps.SCALE_ROWS * in}.
     *
     * <p>Neighbour rows are summed four at a time: rows are gathered in random order, and four
     * independent streams let the memory system fetch them in parallel (about twice as fast as one
     * at a time). Each element still adds its neighbours one by one in edge order, so the result is
     * bit-identical to a one-row-at-a-time loop.
     */
    static void buildInput(
            float[] src,
            int in,
            MiniBatch b,
            int hop,
            Dropout drop,
            FloatBuffer out,
            int from,
            int to,
            float[] row,
            float[] scale) {
        int width = 2 * in + 1;
        int[] indices = b.indices;
        for (int i = from; i < to; i++) {
            int base = i * in;
            if (drop == null) {
                System.arraycopy(src, base, row, 0, in);
            } else {
                drop.fillScales(base, in, scale);
                for (int c = 0; c < in; c++) {
                    row[c] = src[base + c] * scale[c];
                }
            }
            Arrays.fill(row, in, 2 * in, 0f);
            int start = b.edgeStart(hop, i);
            int end = b.edgeEnd(hop, i);
            int k = start;
            for (; k + 4 <= end; k += 4) {
                int u0 = indices[k] * in;
                int u1 = indices[k + 1] * in;
                int u2 = indices[k + 2] * in;
                int u3 = indices[k + 3] * in;
                if (drop == null) {
                    for (int c = 0; c < in; c++) {
                        float v = row[in + c];
                        v += src[u0 + c];
                        v += src[u1 + c];
                        v += src[u2 + c];
                        v += src[u3 + c];
                        row[in + c] = v;
                    }
                } else {
                    drop.fillScales(u0, in, scale, 0);
                    drop.fillScales(u1, in, scale, in);
                    drop.fillScales(u2, in, scale, 2 * in);
                    drop.fillScales(u3, in, scale, 3 * in);
                    for (int c = 0; c < in; c++) {
                        float v = row[in + c];
                        v += src[u0 + c] * scale[c];
                        v += src[u1 + c] * scale[in + c];
                        v += src[u2 + c] * scale[2 * in + c];
                        v += src[u3 + c] * scale[3 * in + c];
                        row[in + c] = v;
                    }
                }
            }
            for (; k < end; k++) {
                int ub = indices[k] * in;
                if (drop == null) {
                    for (int c = 0; c < in; c++) {
                        row[in + c] += src[ub + c];
                    }
                } else {
                    drop.fillScales(ub, in, scale);
                    for (int c = 0; c < in; c++) {
                        row[in + c] += src[ub + c] * scale[c];
                    }
                }
            }
            if (end > start) {
                // Neighbours summed at their owner are in the degree, not among the edges.
                float inv = 1f / (end - start + b.summedNeighbours(hop, i));
                for (int c = 0; c < in; c++) {
                    row[in + c] *= inv;
                }
            }
            row[2 * in] = 1f;
            out.put(i * width, row, 0, width);
        }
    }
}

package io.gnnstream.operators.model;

import io.gnnstream.operators.messages.MiniBatch;
import java.nio.FloatBuffer;
import java.util.Arrays;

/**
 * The sparse half of a SAGE layer, as tight loops over heap arrays. A layer's dense input row for
 * destination {@code i} is {@code [drop(h_i) | mean_u drop(h_u) | 1]}, so one gemm against
 * {@code [W_root; W_neigh; b]} (exactly the flat parameter layout) gives the layer output, and one
 * gemm gives all three weight gradients. Rows move to and from native memory as one bulk copy
 * each instead of per-element INDArray access.
 */
final class BlockOps {

    private BlockOps() {}

    /**
     * Writes the input rows of the layer using hop {@code hop} into {@code out} (row width
     * {@code 2*in+1}). {@code src} holds the layer's source rows ({@code in} floats each);
     * {@code drop} (nullable) is applied on the fly so dropped copies of {@code src} are never
     * materialized. Destinations without sampled neighbours get a zero mean.
     */
    static void buildInput(float[] src, int in, MiniBatch b, int hop, Dropout drop,
            FloatBuffer out, float[] row, float[] scale) {
        int nDst = b.numDst(hop);
        int width = 2 * in + 1;
        int[] indices = b.indices;
        for (int i = 0; i < nDst; i++) {
            int base = i * in;
            if (drop == null) {
                System.arraycopy(src, base, row, 0, in);
            } else {
                drop.fillScales((long) i * in, in, scale);
                for (int c = 0; c < in; c++) {
                    row[c] = src[base + c] * scale[c];
                }
            }
            Arrays.fill(row, in, 2 * in, 0f);
            int start = b.edgeStart(hop, i);
            int end = b.edgeEnd(hop, i);
            for (int k = start; k < end; k++) {
                int ub = indices[k] * in;
                if (drop == null) {
                    for (int c = 0; c < in; c++) {
                        row[in + c] += src[ub + c];
                    }
                } else {
                    drop.fillScales((long) ub, in, scale);
                    for (int c = 0; c < in; c++) {
                        row[in + c] += src[ub + c] * scale[c];
                    }
                }
            }
            if (end > start) {
                float inv = 1f / (end - start);
                for (int c = 0; c < in; c++) {
                    row[in + c] *= inv;
                }
            }
            row[2 * in] = 1f;
            out.put(i * width, row, 0, width);
        }
    }

    /**
     * Gradient w.r.t. the layer's (dropped) source rows from the gradient {@code dx} of its input
     * rows: the root part goes to row {@code i}, the neighbour part is shared equally among the
     * sampled neighbours. Fills {@code dSrc[0 .. numSrc*in)}.
     */
    static void scatterInputGrad(FloatBuffer dx, int in, MiniBatch b, int hop, float[] dSrc,
            float[] row) {
        int nDst = b.numDst(hop);
        int width = 2 * in + 1;
        int[] indices = b.indices;
        Arrays.fill(dSrc, 0, b.numSrc(hop) * in, 0f);
        for (int i = 0; i < nDst; i++) {
            dx.get(i * width, row, 0, width);
            int base = i * in;
            for (int c = 0; c < in; c++) {
                dSrc[base + c] += row[c];
            }
            int start = b.edgeStart(hop, i);
            int end = b.edgeEnd(hop, i);
            if (end == start) {
                continue;
            }
            float inv = 1f / (end - start);
            for (int c = 0; c < in; c++) {
                row[in + c] *= inv;
            }
            for (int k = start; k < end; k++) {
                int ub = indices[k] * in;
                for (int c = 0; c < in; c++) {
                    dSrc[ub + c] += row[in + c];
                }
            }
        }
    }

    /** Reads a layer output from native memory and applies ReLU, into {@code act[0..n)}. */
    static void reluFrom(FloatBuffer z, float[] act, int n) {
        z.get(0, act, 0, n);
        for (int k = 0; k < n; k++) {
            act[k] = Math.max(act[k], 0f);
        }
    }

    /**
     * Turns the gradient w.r.t. dropped activations into the gradient w.r.t. the pre-ReLU output, in
     * place: multiply by the (recomputed) dropout mask and by the ReLU derivative. The derivative is
     * applied branch-free as a bit mask (activations are {@code +0.0} or positive, so their bit
     * pattern is positive exactly when active) because active/inactive is close to a coin flip.
     */
    static void reluDropoutBackward(float[] grad, float[] act, int n, Dropout drop, float[] scale) {
        if (drop == null) {
            for (int k = 0; k < n; k++) {
                grad[k] = Float.intBitsToFloat(Float.floatToRawIntBits(grad[k]) & activeMask(act[k]));
            }
            return;
        }
        for (int from = 0; from < n; from += scale.length) {
            int len = Math.min(scale.length, n - from);
            drop.fillScales(from, len, scale);
            for (int k = 0; k < len; k++) {
                float g = grad[from + k] * scale[k];
                grad[from + k] = Float.intBitsToFloat(Float.floatToRawIntBits(g) & activeMask(act[from + k]));
            }
        }
    }

    /** All ones if the post-ReLU activation is positive, zero if it is {@code +0.0}. */
    private static int activeMask(float act) {
        return -Float.floatToRawIntBits(act) >> 31;
    }
}

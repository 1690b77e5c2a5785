package io.gnnstream.operators.model;

import io.gnnstream.operators.messages.MiniBatch;
import java.nio.FloatBuffer;

/**
 * The kernels every architecture shares (dropout masks, ReLU forward and backward, the scatter of a
 * mean aggregation's input gradient), as tight loops over heap arrays; the kernels that build a
 * layer's input rows live with its architecture ({@link SageBlockOps}, {@link GcnBlockOps}).
 *
 * <p>Every method works on a part of its output ({@code [from, to)} of destination rows, elements
 * or columns) so that a {@link LoopPool} can spread it over threads; each output element is
 * computed by exactly one call with the same operations in the same order whatever the part, so
 * results do not depend on the number of threads. Absolute {@link FloatBuffer} reads and writes do
 * not touch the buffer's position and are safe on disjoint ranges from several threads.
 */
final class BlockOps {

    private BlockOps() {}

    /** Scale slots a layer's input builder needs per thread, in multiples of the layer width. */
    static final int SCALE_ROWS = 4;

    /**
     * Writes rows {@code [from, to)} of {@code src} ({@code in} floats each) times their dropout
     * multipliers into {@code out}: the same products {@link SageBlockOps#buildInput} forms on the
     * fly, once per row. {@code scale} needs {@code in} floats.
     */
    static void applyDropout(
            float[] src, int in, Dropout drop, float[] out, int from, int to, float[] scale) {
        for (int i = from; i < to; i++) {
            int base = i * in;
            drop.fillScales(base, in, scale);
            for (int c = 0; c < in; c++) {
                out[base + c] = src[base + c] * scale[c];
            }
        }
    }

    /**
     * Reads elements {@code [from, to)} of a layer output from native memory and applies ReLU into
     * {@code act}.
     */
    static void reluFrom(FloatBuffer z, float[] act, int from, int to) {
        z.get(from, act, from, to - from);
        for (int k = from; k < to; k++) {
            act[k] = Math.max(act[k], 0f);
        }
    }

    /**
     * Turns elements {@code [from, to)} of the gradient w.r.t. dropped activations into the
     * gradient w.r.t. the pre-ReLU output, in place, and copies them to {@code out}: multiply by
     * the (recomputed) dropout mask and by the ReLU derivative. The derivative is applied
     * branch-free as a bit mask (activations are {@code +0.0} or positive, so their bit pattern is
     * positive exactly when active) because active/inactive is close to a coin flip.
     */
    static void reluDropoutBackward(
            float[] grad,
            float[] act,
            int from,
            int to,
            Dropout drop,
            float[] scale,
            FloatBuffer out) {
        if (drop == null) {
            for (int k = from; k < to; k++) {
                grad[k] =
                        Float.intBitsToFloat(Float.floatToRawIntBits(grad[k]) & activeMask(act[k]));
            }
        } else {
            for (int start = from; start < to; start += scale.length) {
                int len = Math.min(scale.length, to - start);
                drop.fillScales(start, len, scale);
                for (int k = 0; k < len; k++) {
                    float g = grad[start + k] * scale[k];
                    grad[start + k] =
                            Float.intBitsToFloat(
                                    Float.floatToRawIntBits(g) & activeMask(act[start + k]));
                }
            }
        }
        out.put(from, grad, from, to - from);
    }

    /**
     * Gradient w.r.t. a mean-aggregating layer's (dropped) source rows from the gradient {@code dx}
     * of its input rows, for columns {@code [c0, c1)}. The input row of destination {@code i} is
     * {@code [h_i |] (self * h_i + sum_u h_u) / (self + |N(i)|) | 1}: with {@code root}, a first
     * block of the destination's own row (SAGE's root weight), whose gradient goes to row {@code i}
     * unscaled; then the mean block, whose gradient, scaled by {@code 1f / (self + |N(i)|)} where
     * {@code i} has sampled neighbours, goes to row {@code i} if {@code self} is 1 (GCN's
     * self-loop) and to each sampled neighbour. Adds into {@code dSrc} (rows of {@code in}), whose
     * columns {@code [c0, c1)} of the first {@code numSrc} rows must be zero; the contributions to
     * every element arrive in destination order (own row first, then edge order), as in a
     * sequential pass. {@code row} needs {@code c1 - c0} floats.
     */
    static void scatterInputGrad(
            FloatBuffer dx,
            int in,
            boolean root,
            int self,
            MiniBatch b,
            int hop,
            float[] dSrc,
            int c0,
            int c1,
            float[] row) {
        int nDst = b.numDst(hop);
        int mean = root ? in : 0;
        int width = mean + in + 1;
        int len = c1 - c0;
        int[] indices = b.indices;
        for (int i = 0; i < nDst; i++) {
            int base = i * in + c0;
            if (root) {
                dx.get(i * width + c0, row, 0, len);
                for (int c = 0; c < len; c++) {
                    dSrc[base + c] += row[c];
                }
            }
            int start = b.edgeStart(hop, i);
            int end = b.edgeEnd(hop, i);
            if (end == start && self == 0) {
                continue;
            }
            dx.get(i * width + mean + c0, row, 0, len);
            if (end > start) {
                float inv = 1f / (end - start + self);
                for (int c = 0; c < len; c++) {
                    row[c] *= inv;
                }
            }
            if (self != 0) {
                for (int c = 0; c < len; c++) {
                    dSrc[base + c] += row[c];
                }
            }
            for (int k = start; k < end; k++) {
                int ub = indices[k] * in + c0;
                for (int c = 0; c < len; c++) {
                    dSrc[ub + c] += row[c];
                }
            }
        }
    }

    /** All ones if the post-ReLU activation is positive, zero if it is {@code +0.0}. */
    private static int activeMask(float act) {
        return -Float.floatToRawIntBits(act) >> 31;
    }
}

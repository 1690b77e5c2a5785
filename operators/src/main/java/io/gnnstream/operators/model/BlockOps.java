package io.gnnstream.operators.model;

import java.nio.FloatBuffer;

/**
 * The element-wise kernels every architecture shares (dropout masks, ReLU forward and backward), as
 * tight loops over heap arrays; the sparse kernels of a layer live with its architecture ({@link
 * SageBlockOps}, {@link GcnBlockOps}).
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

    /** All ones if the post-ReLU activation is positive, zero if it is {@code +0.0}. */
    private static int activeMask(float act) {
        return -Float.floatToRawIntBits(act) >> 31;
    }
}

package io.gnnstream.operators.model;

import io.gnnstream.operators.messages.MiniBatch;
import java.nio.FloatBuffer;
import java.util.Arrays;

/**
 * The sparse half of a SAGE layer, as tight loops over heap arrays. A layer's dense input row for
 * destination {@code i} is {@code [drop(h_i) | mean_u drop(h_u) | 1]}, so one gemm against {@code
 * [W_root; W_neigh; b]} (exactly the flat parameter layout) gives the layer output, and one gemm
 * gives all three weight gradients. Rows move to and from native memory as one bulk copy each
 * instead of per-element INDArray access.
 *
 * <p>Every method works on a part of its output ({@code [from, to)} of destination rows, elements
 * or columns) so that a {@link LoopPool} can spread it over threads; each output element is
 * computed by exactly one call with the same operations in the same order whatever the part, so
 * results do not depend on the number of threads. Absolute {@link FloatBuffer} reads and writes do
 * not touch the buffer's position and are safe on disjoint ranges from several threads.
 */
final class BlockOps {

    private BlockOps() {}

    /** Scale slots {@link #buildInput} needs per thread, in multiples of the layer width. */
    static final int SCALE_ROWS = 4;

    /**
     * Writes rows {@code [from, to)} of {@code src} ({@code in} floats each) times their dropout
     * multipliers into {@code out}: the same products {@link #buildInput} forms on the fly, once
     * per row. {@code scale} needs {@code in} floats.
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
     * Writes the input rows {@code [from, to)} of the layer using hop {@code hop} into {@code out}
     * (row width {@code 2*in+1}). {@code src} holds the layer's source rows ({@code in} floats
     * each); {@code drop} (nullable) is applied on the fly so dropped copies of {@code src} are
     * never materialized. Destinations without sampled neighbours get a zero mean. {@code row}
     * needs {@code 2*in+1} floats, {@code scale} {@code SCALE_ROWS * in}.
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
     * rows, for columns {@code [c0, c1)}: the root part goes to row {@code i}, the neighbour part
     * is shared equally among the sampled neighbours. Adds into {@code dSrc} (rows of {@code in}),
     * whose columns {@code [c0, c1)} of the first {@code numSrc} rows must be zero; the
     * contributions to every element arrive in destination order, as in a sequential pass. {@code
     * row} needs {@code 2 * (c1 - c0)} floats.
     */
    static void scatterInputGrad(
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

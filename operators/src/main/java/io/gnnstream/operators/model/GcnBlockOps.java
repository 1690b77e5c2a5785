package io.gnnstream.operators.model;

import io.gnnstream.operators.messages.MiniBatch;
import java.nio.FloatBuffer;

/**
 * The sparse half of a {@link GcnModel} layer, as tight loops over heap arrays. A layer's dense
 * input row for destination {@code i} with sampled in-neighbours {@code N(i)} is {@code [(drop(h_i)
 * + sum_u drop(h_u)) / (|N(i)| + 1) | 1]}, so one gemm against {@code [W; b]} (exactly the flat
 * parameter layout) gives the layer output, and one gemm gives both gradients. The input gradient
 * is scattered back by {@link BlockOps#scatterInputGrad}.
 *
 * <p>As in {@link BlockOps}, every method works on a part of its output ({@code [from, to)} of
 * destination rows, or columns {@code [c0, c1)}) with the same operations in the same order
 * whatever the part, so results do not depend on the number of threads of a {@link LoopPool}.
 */
final class GcnBlockOps {

    private GcnBlockOps() {}

    /**
     * Writes the input rows {@code [from, to)} of the layer using hop {@code hop} into {@code out}
     * (row width {@code in+1}). {@code src} holds the layer's source rows ({@code in} floats each;
     * destination {@code i} is source row {@code i}); {@code drop} (nullable) is applied on the
     * fly. Each element sums the destination's own value, then its neighbours' in edge order, then
     * multiplies by {@code 1f / (|N(i)| + 1)}. {@code row} needs {@code in+1} floats, {@code scale}
     * {@code BlockOps.SCALE_ROWS * in}. Neighbour rows are summed four at a time (four independent
     * memory streams), which adds in the same order as one at a time.
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
        if (b.summedNeighbours != null) {
            throw new IllegalArgumentException(
                    "a GCN layer aggregates every neighbour itself (no summedNeighbours)");
        }
        int width = in + 1;
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
                        float v = row[c];
                        v += src[u0 + c];
                        v += src[u1 + c];
                        v += src[u2 + c];
                        v += src[u3 + c];
                        row[c] = v;
                    }
                } else {
                    drop.fillScales(u0, in, scale, 0);
                    drop.fillScales(u1, in, scale, in);
                    drop.fillScales(u2, in, scale, 2 * in);
                    drop.fillScales(u3, in, scale, 3 * in);
                    for (int c = 0; c < in; c++) {
                        float v = row[c];
                        v += src[u0 + c] * scale[c];
                        v += src[u1 + c] * scale[in + c];
                        v += src[u2 + c] * scale[2 * in + c];
                        v += src[u3 + c] * scale[3 * in + c];
                        row[c] = v;
                    }
                }
            }
            for (; k < end; k++) {
                int ub = indices[k] * in;
                if (drop == null) {
                    for (int c = 0; c < in; c++) {
                        row[c] += src[ub + c];
                    }
                } else {
                    drop.fillScales(ub, in, scale);
                    for (int c = 0; c < in; c++) {
                        row[c] += src[ub + c] * scale[c];
                    }
                }
            }
            if (end > start) {
                float inv = 1f / (end - start + 1);
                for (int c = 0; c < in; c++) {
                    row[c] *= inv;
                }
            }
            row[in] = 1f;
            out.put(i * width, row, 0, width);
        }
    }

    /**
     * The coefficients of {@link GcnNorm#SYM} for destination {@code i} of hop {@code hop}: {@code
     * [1 / d_i, (d_i - 1) / (s_i sqrt(d_i))]} where {@code d_i} is its degree with the self-loop
     * ({@link MiniBatch#degrees}) and {@code s_i} its edges in the block; a source {@code u}'s edge
     * then weighs the second times {@code 1 / sqrt(d_u)}. With every neighbour in the block ({@code
     * s_i = d_i - 1}) that is {@code 1 / sqrt(d_i d_u)}, the GCN paper's; with a sample, the sum
     * over it is scaled up to estimate the sum over all {@code d_i - 1} neighbours.
     */
    static float[] symCoefficients(MiniBatch b, int hop, int i, float[] out) {
        int d = b.degrees[i];
        int s = b.edgeEnd(hop, i) - b.edgeStart(hop, i);
        out[0] = (float) (1.0 / d);
        out[1] = s == 0 ? 0f : (float) ((d - 1) / (s * Math.sqrt(d)));
        return out;
    }

    /** {@code 1 / sqrt(d_u)} of node {@code u}. */
    static float invSqrtDegree(MiniBatch b, int u) {
        return (float) (1.0 / Math.sqrt(b.degrees[u]));
    }

    /** Throws unless {@code b} carries a degree of at least 1 for each of its nodes. */
    static void requireDegrees(MiniBatch b) {
        if (b.degrees == null || b.degrees.length < b.numNodes()) {
            throw new IllegalArgumentException(
                    "--gcn-norm sym needs every node's degree in the batch (MiniBatch.degrees),"
                            + " which this batch does not carry");
        }
    }

    /**
     * {@link #buildInput} for {@link GcnNorm#SYM}: each element is {@code h_i / d_i}, then plus
     * each neighbour's {@code h_u} times its edge weight ({@link #symCoefficients}) in edge order.
     */
    static void buildInputSym(
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
        int width = in + 1;
        int[] indices = b.indices;
        float[] coef = new float[2];
        for (int i = from; i < to; i++) {
            symCoefficients(b, hop, i, coef);
            int base = i * in;
            if (drop == null) {
                for (int c = 0; c < in; c++) {
                    row[c] = src[base + c] * coef[0];
                }
            } else {
                drop.fillScales(base, in, scale);
                for (int c = 0; c < in; c++) {
                    row[c] = src[base + c] * scale[c] * coef[0];
                }
            }
            int end = b.edgeEnd(hop, i);
            for (int k = b.edgeStart(hop, i); k < end; k++) {
                int u = indices[k];
                int ub = u * in;
                float w = coef[1] * invSqrtDegree(b, u);
                if (drop == null) {
                    for (int c = 0; c < in; c++) {
                        row[c] += src[ub + c] * w;
                    }
                } else {
                    drop.fillScales(ub, in, scale);
                    for (int c = 0; c < in; c++) {
                        row[c] += src[ub + c] * scale[c] * w;
                    }
                }
            }
            row[in] = 1f;
            out.put(i * width, row, 0, width);
        }
    }

    /**
     * Gradient w.r.t. the (dropped) source rows of a {@link GcnNorm#SYM} layer from the gradient
     * {@code dx} of its input rows, columns {@code [c0, c1)}: row {@code i} gets its gradient times
     * {@code 1 / d_i}, each neighbour times its edge weight, in destination and then edge order, as
     * {@link BlockOps#scatterInputGrad}. {@code row} needs {@code c1 - c0} floats.
     */
    static void scatterInputGradSym(
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
        float[] coef = new float[2];
        for (int i = 0; i < nDst; i++) {
            symCoefficients(b, hop, i, coef);
            dx.get(i * width + c0, row, 0, len);
            int base = i * in + c0;
            for (int c = 0; c < len; c++) {
                dSrc[base + c] += row[c] * coef[0];
            }
            int end = b.edgeEnd(hop, i);
            for (int k = b.edgeStart(hop, i); k < end; k++) {
                int u = indices[k];
                float w = coef[1] * invSqrtDegree(b, u);
                int ub = u * in + c0;
                for (int c = 0; c < len; c++) {
                    dSrc[ub + c] += row[c] * w;
                }
            }
        }
    }
}

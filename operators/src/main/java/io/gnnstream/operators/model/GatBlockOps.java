package io.gnnstream.operators.model;

import io.gnnstream.operators.messages.MiniBatch;
import java.util.Arrays;

/**
 * The kernels of a {@link GatModel} layer, as tight loops over heap arrays. A layer with {@code H}
 * heads of {@code C} channels projects its source rows ({@code g = x W}, {@code H*C} floats per
 * row), scores them per head ({@code s = g . a_src}, {@code d = g . a_dst}) and gives destination
 * {@code i} the attention-weighted sum of the projections of its <em>slots</em>: itself first (the
 * self-loop), then its sampled in-neighbours in edge order, an in-neighbour equal to {@code i}
 * skipped (as PyG's {@code GATConv} removes self-loops before adding its own). Slot {@code t} of
 * destination {@code i} is {@code slotBase(i) + t}; per-slot arrays hold {@code H} floats per slot.
 *
 * <p>As in {@link BlockOps}, every method computes a part of its output ({@code [from, to)} of rows
 * or columns) with the same operations in the same order whatever the part, so results do not
 * depend on the number of threads of a {@link LoopPool}.
 */
final class GatBlockOps {

    /** The negative slope of the LeakyReLU on attention logits (PyG's default). */
    static final float SLOPE = 0.2f;

    private GatBlockOps() {}

    /** The first slot of destination {@code i} of hop {@code hop}. */
    static int slotBase(MiniBatch b, int hop, int i) {
        return b.edgeStart(hop, i) - b.edgeStart(hop, 0) + i;
    }

    /** Slots of all destinations of hop {@code hop}: one per edge plus a self-loop each. */
    static int slots(MiniBatch b, int hop) {
        return b.numEdges(hop) + b.numDst(hop);
    }

    /**
     * Rows {@code [from, to)} of {@code g = x W}: {@code x} has {@code in} floats per row, {@code
     * W} is {@code [in, hc]} at {@code w[wOff]}. Zero inputs are skipped (bag-of-words features are
     * mostly zeros); each output element still adds its terms in input order.
     */
    static void project(
            float[] x, int in, float[] w, int wOff, int hc, float[] g, int from, int to) {
        for (int r = from; r < to; r++) {
            int gb = r * hc;
            Arrays.fill(g, gb, gb + hc, 0f);
            int xb = r * in;
            for (int k = 0; k < in; k++) {
                float v = x[xb + k];
                if (v != 0f) {
                    int wb = wOff + k * hc;
                    for (int c = 0; c < hc; c++) {
                        g[gb + c] += v * w[wb + c];
                    }
                }
            }
        }
    }

    /**
     * Rows {@code [from, to)} of the per-head scores {@code e[r*H+h] = g[r, h, :] . a[h, :]} with
     * {@code a} ({@code [H, C]}) at {@code p[aOff]}.
     */
    static void scores(
            float[] g, int heads, int ch, float[] p, int aOff, float[] e, int from, int to) {
        int hc = heads * ch;
        for (int r = from; r < to; r++) {
            for (int h = 0; h < heads; h++) {
                float s = 0f;
                int gb = r * hc + h * ch;
                int ab = aOff + h * ch;
                for (int c = 0; c < ch; c++) {
                    s += g[gb + c] * p[ab + c];
                }
                e[r * heads + h] = s;
            }
        }
    }

    /** The source row of slot {@code t} of destination {@code i}: {@code i} for the self-loop. */
    private static int source(MiniBatch b, int start, int i, int t) {
        return t == 0 ? i : b.indices[start + t - 1];
    }

    /**
     * Destinations {@code [from, to)}: attention coefficients {@code alpha} (per slot and head,
     * before attention dropout), attention dropout scales into {@code scale} ({@code drop} null:
     * none, {@code scale} untouched) and the layer output {@code z} before its activation: per head
     * the weighted sum of the slots' projections, concatenated ({@code concat}, {@code H*C} floats
     * per row) or averaged ({@code C} floats), plus the bias at {@code p[biasOff]}. {@code acc}
     * needs {@code H*C} floats.
     */
    static void attend(
            MiniBatch b,
            int hop,
            int heads,
            int ch,
            float[] g,
            float[] srcScore,
            float[] dstScore,
            Dropout drop,
            float[] alpha,
            float[] scale,
            boolean concat,
            float[] p,
            int biasOff,
            float[] z,
            int from,
            int to,
            float[] acc) {
        int hc = heads * ch;
        for (int i = from; i < to; i++) {
            int start = b.edgeStart(hop, i);
            int n = b.edgeEnd(hop, i) - start + 1;
            int s0 = slotBase(b, hop, i);
            for (int h = 0; h < heads; h++) {
                float dst = dstScore[i * heads + h];
                float max = Float.NEGATIVE_INFINITY;
                for (int t = 0; t < n; t++) {
                    int u = source(b, start, i, t);
                    if (t > 0 && u == i) {
                        continue;
                    }
                    float v = srcScore[u * heads + h] + dst;
                    float e = v > 0f ? v : SLOPE * v;
                    alpha[(s0 + t) * heads + h] = e;
                    max = Math.max(max, e);
                }
                double sum = 0.0;
                for (int t = 0; t < n; t++) {
                    int k = (s0 + t) * heads + h;
                    if (t > 0 && source(b, start, i, t) == i) {
                        alpha[k] = 0f;
                        continue;
                    }
                    float ex = (float) Math.exp(alpha[k] - max);
                    alpha[k] = ex;
                    sum += ex;
                }
                float inv = (float) (1.0 / sum);
                for (int t = 0; t < n; t++) {
                    alpha[(s0 + t) * heads + h] *= inv;
                }
            }
            if (drop != null) {
                drop.fillScales((long) s0 * heads, n * heads, scale, s0 * heads);
            }
            Arrays.fill(acc, 0, hc, 0f);
            for (int t = 0; t < n; t++) {
                int ub = source(b, start, i, t) * hc;
                for (int h = 0; h < heads; h++) {
                    int k = (s0 + t) * heads + h;
                    float a = drop == null ? alpha[k] : alpha[k] * scale[k];
                    int cb = h * ch;
                    for (int c = 0; c < ch; c++) {
                        acc[cb + c] += a * g[ub + cb + c];
                    }
                }
            }
            if (concat) {
                int zb = i * hc;
                for (int c = 0; c < hc; c++) {
                    z[zb + c] = acc[c] + p[biasOff + c];
                }
            } else {
                float invHeads = 1f / heads;
                int zb = i * ch;
                for (int c = 0; c < ch; c++) {
                    float s = 0f;
                    for (int h = 0; h < heads; h++) {
                        s += acc[h * ch + c];
                    }
                    z[zb + c] = s * invHeads + p[biasOff + c];
                }
            }
        }
    }

    /** Output gradient of head {@code h}, channel {@code c} of destination {@code i}. */
    static float outGrad(float[] dz, int i, int h, int c, int heads, int ch, boolean concat) {
        return concat ? dz[i * heads * ch + h * ch + c] : dz[i * ch + c] * (1f / heads);
    }

    /**
     * Destinations {@code [from, to)}: from the output gradient {@code dz}, the gradient of each
     * slot's attention logit before the LeakyReLU into {@code dLogit} (per slot and head) and their
     * sum per destination and head (the destination score's gradient) into {@code dDst}.
     */
    static void attentionBackward(
            MiniBatch b,
            int hop,
            int heads,
            int ch,
            float[] g,
            float[] srcScore,
            float[] dstScore,
            float[] alpha,
            float[] scale,
            boolean dropped,
            boolean concat,
            float[] dz,
            float[] dLogit,
            float[] dDst,
            int from,
            int to) {
        int hc = heads * ch;
        for (int i = from; i < to; i++) {
            int start = b.edgeStart(hop, i);
            int n = b.edgeEnd(hop, i) - start + 1;
            int s0 = slotBase(b, hop, i);
            for (int h = 0; h < heads; h++) {
                float weighted = 0f;
                for (int t = 0; t < n; t++) {
                    int k = (s0 + t) * heads + h;
                    int ub = source(b, start, i, t) * hc + h * ch;
                    float d = 0f;
                    for (int c = 0; c < ch; c++) {
                        d += outGrad(dz, i, h, c, heads, ch, concat) * g[ub + c];
                    }
                    if (dropped) {
                        d *= scale[k];
                    }
                    dLogit[k] = d;
                    weighted += alpha[k] * d;
                }
                float dst = dstScore[i * heads + h];
                float sum = 0f;
                for (int t = 0; t < n; t++) {
                    int k = (s0 + t) * heads + h;
                    int u = source(b, start, i, t);
                    if (t > 0 && u == i) {
                        dLogit[k] = 0f;
                        continue;
                    }
                    float de = alpha[k] * (dLogit[k] - weighted);
                    float v = srcScore[u * heads + h] + dst;
                    float dv = v > 0f ? de : SLOPE * de;
                    dLogit[k] = dv;
                    sum += dv;
                }
                dDst[i * heads + h] = sum;
            }
        }
    }

    /**
     * Columns {@code [c0, c1)} of the projections' gradient {@code dg} (zeroed here, {@code nSrc}
     * rows of {@code H*C}): each slot's share of its destination's output (attention times output
     * gradient), then per row the score gradients times the attention vectors; and the same columns
     * of the attention vectors' gradients {@code dA} ({@code [H, C]} at {@code dA[srcOff]} and
     * {@code dA[dstOff]}). Contributions arrive in destination and slot order.
     */
    static void projectionBackward(
            MiniBatch b,
            int hop,
            int heads,
            int ch,
            int nSrc,
            float[] g,
            float[] alpha,
            float[] scale,
            boolean dropped,
            boolean concat,
            float[] dz,
            float[] dLogitSrc,
            float[] dDst,
            float[] p,
            int aSrcOff,
            int aDstOff,
            float[] dg,
            float[] dA,
            int srcOff,
            int dstOff,
            int c0,
            int c1) {
        int hc = heads * ch;
        int nDst = b.numDst(hop);
        for (int r = 0; r < nSrc; r++) {
            Arrays.fill(dg, r * hc + c0, r * hc + c1, 0f);
        }
        for (int i = 0; i < nDst; i++) {
            int start = b.edgeStart(hop, i);
            int n = b.edgeEnd(hop, i) - start + 1;
            int s0 = slotBase(b, hop, i);
            for (int t = 0; t < n; t++) {
                int ub = source(b, start, i, t) * hc;
                for (int c = c0; c < c1; c++) {
                    int h = c / ch;
                    int k = (s0 + t) * heads + h;
                    float a = dropped ? alpha[k] * scale[k] : alpha[k];
                    dg[ub + c] += a * outGrad(dz, i, h, c - h * ch, heads, ch, concat);
                }
            }
        }
        for (int c = c0; c < c1; c++) {
            int h = c / ch;
            float as = p[aSrcOff + c];
            float ad = p[aDstOff + c];
            float gs = 0f;
            float gd = 0f;
            for (int r = 0; r < nSrc; r++) {
                float ds = dLogitSrc[r * heads + h];
                float gv = g[r * hc + c];
                gs += ds * gv;
                float v = dg[r * hc + c] + ds * as;
                if (r < nDst) {
                    float dd = dDst[r * heads + h];
                    gd += dd * gv;
                    v += dd * ad;
                }
                dg[r * hc + c] = v;
            }
            dA[srcOff + c] = gs;
            dA[dstOff + c] = gd;
        }
    }

    /**
     * Adds the slots' logit gradients {@code dLogit} to their sources' score gradients {@code dSrc}
     * ({@code nSrc * H}, zeroed by the caller), in destination and slot order.
     */
    static void scatterScores(MiniBatch b, int hop, int heads, float[] dLogit, float[] dSrc) {
        int nDst = b.numDst(hop);
        for (int i = 0; i < nDst; i++) {
            int start = b.edgeStart(hop, i);
            int n = b.edgeEnd(hop, i) - start + 1;
            int s0 = slotBase(b, hop, i);
            for (int t = 0; t < n; t++) {
                int ub = source(b, start, i, t) * heads;
                int k = (s0 + t) * heads;
                for (int h = 0; h < heads; h++) {
                    dSrc[ub + h] += dLogit[k + h];
                }
            }
        }
    }

    /**
     * Input rows {@code [k0, k1)} of the weight gradient {@code dW[k, :] = sum_r x[r, k] dg[r, :]}
     * ({@code [in, hc]} at {@code dW[off]}), rows {@code r} in order, zero inputs skipped.
     */
    static void weightGrad(
            float[] x, int in, int nSrc, float[] dg, int hc, float[] dW, int off, int k0, int k1) {
        Arrays.fill(dW, off + k0 * hc, off + k1 * hc, 0f);
        for (int r = 0; r < nSrc; r++) {
            int xb = r * in;
            int gb = r * hc;
            for (int k = k0; k < k1; k++) {
                float v = x[xb + k];
                if (v != 0f) {
                    int wb = off + k * hc;
                    for (int c = 0; c < hc; c++) {
                        dW[wb + c] += v * dg[gb + c];
                    }
                }
            }
        }
    }

    /**
     * Rows {@code [from, to)} of the input gradient {@code dx = dg W^T} ({@code in} floats per
     * row), times the input's dropout scales ({@code drop} null: none) and the derivative of the
     * previous layer's ELU at its output {@code act}: {@code 1} where positive, {@code act + 1}
     * elsewhere. {@code scale} needs {@code in} floats.
     */
    static void inputGrad(
            float[] dg,
            int hc,
            float[] w,
            int wOff,
            int in,
            Dropout drop,
            float[] act,
            float[] dx,
            int from,
            int to,
            float[] scale) {
        for (int r = from; r < to; r++) {
            int gb = r * hc;
            int xb = r * in;
            if (drop != null) {
                drop.fillScales(xb, in, scale);
            }
            for (int k = 0; k < in; k++) {
                int wb = wOff + k * hc;
                float s = 0f;
                for (int c = 0; c < hc; c++) {
                    s += dg[gb + c] * w[wb + c];
                }
                if (drop != null) {
                    s *= scale[k];
                }
                float a = act[xb + k];
                dx[xb + k] = a > 0f ? s : s * (a + 1f);
            }
        }
    }

    /** ELU of {@code z[from, to)} into {@code act}. */
    static void elu(float[] z, float[] act, int from, int to) {
        for (int k = from; k < to; k++) {
            float v = z[k];
            act[k] = v > 0f ? v : (float) Math.expm1(v);
        }
    }
}

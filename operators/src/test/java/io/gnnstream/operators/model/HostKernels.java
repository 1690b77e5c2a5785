package io.gnnstream.operators.model;

import io.gnnstream.operators.model.gpu.GpuKernels;
import java.util.HashMap;
import java.util.Map;

/**
 * The {@link GpuKernels} contract rendered in plain Java, loop by loop as gpu/native's kernels
 * compute it (one output element at a time, the same order of additions), on a simulated device
 * memory of 4-byte words. It lets the tests run {@code GpuModel}'s orchestration (buffers, offsets,
 * layouts, the order of the primitives) against the CPU models without a GPU; the CUDA kernels
 * themselves are checked on a GPU host by the device check.
 */
public final class HostKernels implements GpuKernels {

    private static final long BASE = 1L << 20;

    private int[] memory = new int[1024];
    private long next = BASE;
    private final Map<Long, Long> sizes = new HashMap<>();
    private final String kind;
    private boolean closed;
    private int gemms;
    private int synchronizations;
    private long downloadedFloats;

    public HostKernels() {
        this("host");
    }

    public HostKernels(String kind) {
        this.kind = kind;
    }

    /** Number of {@link #gemm} calls so far. */
    public int gemms() {
        return gemms;
    }

    /** Bytes allocated and not freed. */
    public long liveBytes() {
        return sizes.values().stream().mapToLong(Long::longValue).sum();
    }

    public boolean closed() {
        return closed;
    }

    @Override
    public String deviceKind() {
        return kind;
    }

    private int word(long ptr) {
        if (ptr < BASE || (ptr & 3) != 0 || ptr >= next) {
            throw new IllegalStateException("bad device pointer " + ptr);
        }
        return (int) ((ptr - BASE) >> 2);
    }

    private float f(long ptr, long i) {
        return Float.intBitsToFloat(memory[word(ptr) + (int) i]);
    }

    private void setF(long ptr, long i, float v) {
        memory[word(ptr) + (int) i] = Float.floatToRawIntBits(v);
    }

    private int in(long ptr, long i) {
        return memory[word(ptr) + (int) i];
    }

    @Override
    public long alloc(long count) {
        if (closed) {
            throw new IllegalStateException("closed");
        }
        long ptr = next;
        long words = Math.max(1, count);
        next += 4 * words;
        int need = (int) ((next - BASE) >> 2);
        if (need > memory.length) {
            memory = java.util.Arrays.copyOf(memory, Math.max(need, memory.length * 2));
        }
        // Poison: a kernel that reads what nothing wrote sees NaNs.
        java.util.Arrays.fill(memory, word(ptr), need, 0x7FC00001);
        sizes.put(ptr, 4 * count);
        return ptr;
    }

    @Override
    public void free(long ptr) {
        if (ptr != 0 && sizes.remove(ptr) == null) {
            throw new IllegalStateException("free of an unknown pointer " + ptr);
        }
    }

    @Override
    public void uploadFloats(long dst, float[] src, int offset, int count) {
        for (int i = 0; i < count; i++) {
            setF(dst, i, src[offset + i]);
        }
    }

    @Override
    public void uploadInts(long dst, int[] src, int offset, int count) {
        System.arraycopy(src, offset, memory, word(dst), count);
    }

    /** Floats downloaded so far. */
    public long downloadedFloats() {
        return downloadedFloats;
    }

    @Override
    public void downloadFloats(long src, float[] dst, int count) {
        downloadedFloats += count;
        for (int i = 0; i < count; i++) {
            dst[i] = f(src, i);
        }
    }

    @Override
    public void downloadInts(long src, int[] dst, int count) {
        System.arraycopy(memory, word(src), dst, 0, count);
    }

    @Override
    public void downloadDoubles(long src, double[] dst, int count) {
        int w = word(src);
        for (int i = 0; i < count; i++) {
            long lo = memory[w + 2 * i] & 0xFFFFFFFFL;
            long hi = memory[w + 2 * i + 1];
            dst[i] = Double.longBitsToDouble((hi << 32) | lo);
        }
    }

    private void setD(long ptr, long i, double v) {
        long bits = Double.doubleToRawLongBits(v);
        int w = word(ptr) + 2 * (int) i;
        memory[w] = (int) bits;
        memory[w + 1] = (int) (bits >>> 32);
    }

    @Override
    public void gemm(
            boolean transA,
            boolean transB,
            int m,
            int n,
            int k,
            long a,
            int lda,
            long b,
            int ldb,
            long c,
            int ldc) {
        gemms++;
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                float sum = 0f;
                for (int p = 0; p < k; p++) {
                    float av = transA ? f(a, (long) p * lda + i) : f(a, (long) i * lda + p);
                    float bv = transB ? f(b, (long) j * ldb + p) : f(b, (long) p * ldb + j);
                    sum += av * bv;
                }
                setF(c, (long) i * ldc + j, sum);
            }
        }
    }

    private static float multiplier(long key, int threshold, float scale, long e) {
        if (threshold == 0) {
            return scale;
        }
        return ((Dropout.keepBits(key, threshold, e >>> 6) >>> (e & 63)) & 1L) != 0 ? scale : 0f;
    }

    @Override
    public void dropout(long src, long dst, long count, long key, int threshold, float scale) {
        for (long e = 0; e < count; e++) {
            setF(dst, e, f(src, e) * multiplier(key, threshold, scale, e));
        }
    }

    @Override
    public void aggregate(
            int mode, long src, int inW, long indptr, long indices, long summed, int nDst, long x) {
        int width = (mode == SAGE ? 2 : 1) * inW + 1;
        for (int i = 0; i < nDst; i++) {
            long row = (long) i * width;
            setF(x, row + width - 1, 1f);
            int start = in(indptr, i);
            int end = in(indptr, i + 1);
            for (int c = 0; c < inW; c++) {
                float own = f(src, (long) i * inW + c);
                if (mode == SAGE) {
                    float sum = 0f;
                    for (int k = start; k < end; k++) {
                        sum += f(src, (long) in(indices, k) * inW + c);
                    }
                    if (end > start) {
                        int degree = end - start + (summed != 0 ? in(summed, i) : 0);
                        sum *= 1f / degree;
                    }
                    setF(x, row + c, own);
                    setF(x, row + inW + c, sum);
                } else {
                    float sum = own;
                    for (int k = start; k < end; k++) {
                        sum += f(src, (long) in(indices, k) * inW + c);
                    }
                    if (end > start) {
                        sum *= 1f / (end - start + 1);
                    }
                    setF(x, row + c, sum);
                }
            }
        }
    }

    @Override
    public void relu(long z, long act, long count) {
        for (long e = 0; e < count; e++) {
            float v = f(z, e);
            setF(act, e, v > 0f ? v : 0f);
        }
    }

    @Override
    public void scatter(
            int mode,
            long dx,
            int inW,
            long indptr,
            long revPtr,
            long revDst,
            int nDst,
            int nSrc,
            long dSrc) {
        int width = (mode == SAGE ? 2 : 1) * inW + 1;
        for (int u = 0; u < nSrc; u++) {
            for (int c = 0; c < inW; c++) {
                float acc = 0f;
                if (u < nDst) {
                    float g = f(dx, (long) u * width + c);
                    int deg = in(indptr, u + 1) - in(indptr, u);
                    if (mode == GCN && deg > 0) {
                        g *= 1f / (deg + 1);
                    }
                    acc += g;
                }
                for (int r = in(revPtr, u); r < in(revPtr, u + 1); r++) {
                    int i = in(revDst, r);
                    int deg = in(indptr, i + 1) - in(indptr, i);
                    if (mode == SAGE) {
                        acc += f(dx, (long) i * width + inW + c) * (1f / deg);
                    } else {
                        acc += f(dx, (long) i * width + c) * (1f / (deg + 1));
                    }
                }
                setF(dSrc, (long) u * inW + c, acc);
            }
        }
    }

    @Override
    public void reluDropoutBackward(
            long grad, long act, long count, long key, int threshold, float scale, long out) {
        for (long e = 0; e < count; e++) {
            float g = f(grad, e) * multiplier(key, threshold, scale, e);
            setF(out, e, f(act, e) > 0f ? g : 0f);
        }
    }

    @Override
    public void softmaxLoss(
            long logits,
            long labels,
            int seeds,
            int classes,
            int labelled,
            boolean gradient,
            long loss,
            long predictions) {
        int divisor = labelled > 0 ? labelled : 1;
        for (int i = 0; i < seeds; i++) {
            long base = (long) i * classes;
            int best = 0;
            for (int c = 1; c < classes; c++) {
                if (f(logits, base + c) > f(logits, base + best)) {
                    best = c;
                }
            }
            double max = f(logits, base + best);
            double sum = 0;
            for (int c = 0; c < classes; c++) {
                sum += Math.exp(f(logits, base + c) - max);
            }
            memory[word(predictions) + i] = best;
            int label = in(labels, i);
            if (label < 0) {
                setD(loss, i, 0.0);
                if (gradient) {
                    for (int c = 0; c < classes; c++) {
                        setF(logits, base + c, 0f);
                    }
                }
                continue;
            }
            setD(loss, i, max + Math.log(sum) - f(logits, base + label));
            if (gradient) {
                for (int c = 0; c < classes; c++) {
                    double p = Math.exp(f(logits, base + c) - max) / sum;
                    setF(logits, base + c, (float) ((p - (c == label ? 1.0 : 0.0)) / divisor));
                }
            }
        }
    }

    @Override
    public void adam(
            long params,
            long grad,
            long m,
            long v,
            long count,
            float stepSize,
            float bc2Sqrt,
            float weightDecay) {
        float beta2 = (float) 0.999;
        float oneMinusB1 = (float) (1.0 - 0.9);
        float oneMinusB2 = (float) (1.0 - 0.999);
        for (long e = 0; e < count; e++) {
            float p = f(params, e);
            float g = weightDecay == 0f ? f(grad, e) : f(grad, e) + weightDecay * p;
            float mi = f(m, e) + oneMinusB1 * (g - f(m, e));
            float vi = f(v, e) * beta2 + oneMinusB2 * g * g;
            setF(m, e, mi);
            setF(v, e, vi);
            float denom = (float) Math.sqrt(vi) / bc2Sqrt + 1e-8f;
            setF(params, e, p - stepSize * (mi / denom));
        }
    }

    @Override
    public void synchronize() {
        synchronizations++;
    }

    /** Number of {@link #synchronize} calls so far. */
    public int synchronizations() {
        return synchronizations;
    }

    @Override
    public void close() {
        closed = true;
    }
}

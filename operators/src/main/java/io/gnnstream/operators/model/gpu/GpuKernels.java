package io.gnnstream.operators.model.gpu;

/**
 * The device primitives a {@code GpuModel} step is made of, on buffers addressed by device pointers
 * ({@code long}; an offset of {@code k} elements is {@code ptr + 4k}). Every call runs on one
 * stream of the device in call order; downloads wait for what came before. Matrices are row-major.
 * Every primitive is deterministic: the same inputs give the same bits on the same kind of device,
 * which is what keeps GPU replicas bit-identical (no atomics: sums over a source's destinations
 * gather through a reverse CSR instead of scattering with atomic adds).
 *
 * <p>{@link CudaKernels} runs them on a CUDA GPU; the semantics of each, which a CPU rendering in
 * the tests follows loop by loop, are in its javadoc here and in docs/design.md, "GPU trainer".
 */
public interface GpuKernels extends AutoCloseable {

    /**
     * {@link #aggregate} and {@link #scatter} mode of a SAGE layer: {@code [h_i | mean_u h_u | 1]}.
     */
    int SAGE = 0;

    /** Mode of a GCN layer: {@code [(h_i + sum_u h_u) / (deg + 1) | 1]}. */
    int GCN = 1;

    /**
     * What the device is, e.g. {@code cuda NVIDIA H200 sm_90 cuBLAS 130101}: ranks of one kind
     * compute the same bits, ranks of different kinds do not.
     */
    String deviceKind();

    /** A device buffer of {@code count} 4-byte elements (floats or ints), contents undefined. */
    long alloc(long count);

    /** Frees a buffer of {@link #alloc}; {@code 0} is ignored. */
    void free(long ptr);

    /** Copies {@code src[offset, offset + count)} to the device at {@code dst}. */
    void uploadFloats(long dst, float[] src, int offset, int count);

    /** As {@link #uploadFloats}, for ints. */
    void uploadInts(long dst, int[] src, int offset, int count);

    /** Copies {@code count} floats from the device at {@code src} into {@code dst[0, count)}. */
    void downloadFloats(long src, float[] dst, int count);

    /** As {@link #downloadFloats}, for ints. */
    void downloadInts(long src, int[] dst, int count);

    /** As {@link #downloadFloats}, for doubles (8 bytes each: two elements of {@link #alloc}). */
    void downloadDoubles(long src, double[] dst, int count);

    /**
     * {@code C = op(A) op(B)} with {@code C} {@code m x n}, {@code op(A)} {@code m x k}, {@code
     * op(B)} {@code k x n}; {@code lda, ldb, ldc} are the stored matrices' row strides. FP32
     * throughout (no TF32).
     */
    void gemm(
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
            int ldc);

    /**
     * {@code dst[e] = src[e] * s(e)} for {@code e < count}, with {@code s(e)} the multiplier of
     * element {@code e} in the counter-based dropout mask of {@code key} and {@code threshold} (0
     * or {@code scale}); threshold 0 keeps every element.
     */
    void dropout(long src, long dst, long count, long key, int threshold, float scale);

    /**
     * The dense input rows of {@code nDst} destinations ({@code blocks * in + 1} floats each: two
     * blocks for {@link #SAGE}, one for {@link #GCN}, then a constant 1) from source rows {@code
     * src} ({@code in} floats; destination {@code i} is source row {@code i}) and the hop's CSR
     * ({@code indptr} of {@code nDst + 1} entries from 0, {@code indices} into the sources). A SAGE
     * mean divides by the edges plus {@code summed[i]} ({@code 0}: no such array) and is zero
     * without edges. Each element adds its neighbours in edge order.
     */
    void aggregate(
            int mode, long src, int in, long indptr, long indices, long summed, int nDst, long x);

    /** {@code act[e] = max(z[e], 0)} for {@code e < count}. */
    void relu(long z, long act, long count);

    /**
     * The gradient of the {@code nSrc} source rows ({@code in} floats each, written, not added)
     * from the gradient {@code dx} of the input rows {@link #aggregate} built: per source, its own
     * root term (sources below {@code nDst}) and then its destinations' terms in ascending order,
     * read through the reverse CSR {@code revPtr} ({@code nSrc + 1} entries) and {@code revDst}
     * (the destination of each edge, grouped by source).
     */
    void scatter(
            int mode,
            long dx,
            int in,
            long indptr,
            long revPtr,
            long revDst,
            int nDst,
            int nSrc,
            long dSrc);

    /**
     * {@code out[e] = (grad[e] * s(e))} where {@code act[e] > 0}, else 0, for {@code e < count};
     * {@code s} as in {@link #dropout}.
     */
    void reluDropoutBackward(
            long grad, long act, long count, long key, int threshold, float scale, long out);

    /**
     * Softmax cross-entropy of {@code seeds} rows of {@code classes} logits against {@code labels}
     * (negative: unlabelled), in double: writes each row's loss ({@code loss}, doubles; 0 when
     * unlabelled) and arg-max ({@code predictions}, ints; ties to the lowest class); with {@code
     * gradient}, overwrites the logits with the gradient of the mean loss over the {@code labelled}
     * seeds (zero rows for unlabelled ones).
     */
    void softmaxLoss(
            long logits,
            long labels,
            int seeds,
            int classes,
            int labelled,
            boolean gradient,
            long loss,
            long predictions);

    /**
     * One Adam step over {@code count} elements, operation by operation as the CPU model's {@code
     * Adam}: {@code g = grad + weightDecay * p}, the moments' lerp and update, then {@code p -=
     * stepSize * m / (sqrt(v) / bc2Sqrt + 1e-8)}.
     */
    void adam(
            long params,
            long grad,
            long m,
            long v,
            long count,
            float stepSize,
            float bc2Sqrt,
            float weightDecay);

    /** Waits until the device has finished every call made so far (for phase timing). */
    void synchronize();

    /** Frees the stream, the library handles and the staging buffers. */
    @Override
    void close();
}

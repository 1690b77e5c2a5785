package io.gnnstream.operators.model.gpu;

/**
 * {@link GpuKernels} on a CUDA GPU through the JNI shim {@code libgnnstream_gpu.so} (source in
 * {@code gpu/native}, built by {@code bin/gnnstream gpu build}): one context per instance with its
 * own stream, cuBLAS handle (atomics not allowed, FP32 math, a workspace of its own) and pinned
 * staging buffers. Uploads copy through the pinned buffers in chunks, the next chunk's host copy
 * overlapping the previous chunk's transfer. CUDA and cuBLAS errors come back as {@link
 * IllegalStateException}s naming the call. Not thread-safe: one thread per instance (the trainer's
 * step thread).
 */
public final class CudaKernels implements GpuKernels {

    private long context;
    private final String kind;

    private CudaKernels(long context) {
        this.context = context;
        this.kind = nDeviceKind(context);
    }

    /**
     * Opens CUDA device {@code device}.
     *
     * @throws GpuUnavailableException if the library cannot be loaded, no CUDA driver or device is
     *     there, or {@code device} is not one of them (the message says which)
     */
    public static CudaKernels open(int device) {
        int count = deviceCount();
        if (device < 0 || device >= count) {
            throw new GpuUnavailableException(
                    "--device cuda:"
                            + device
                            + ": this process sees "
                            + count
                            + " CUDA device(s) (indices 0 to "
                            + (count - 1)
                            + "; CUDA_VISIBLE_DEVICES="
                            + System.getenv().getOrDefault("CUDA_VISIBLE_DEVICES", "unset")
                            + ")");
        }
        long ctx = nOpen(device);
        if (ctx == 0) {
            throw new GpuUnavailableException(
                    "--device cuda:" + device + ": cannot open the device: " + nLastError());
        }
        return new CudaKernels(ctx);
    }

    /**
     * The CUDA devices this process sees ({@code CUDA_VISIBLE_DEVICES} applies), at least 1.
     *
     * @throws GpuUnavailableException if the library cannot be loaded or no driver or device is
     *     there
     */
    public static int deviceCount() {
        CudaLibrary.load();
        int count = nDeviceCount();
        if (count < 1) {
            throw new GpuUnavailableException(
                    "--device cuda: the CUDA driver reports no usable GPU ("
                            + nLastError()
                            + "); use --device cpu, or run on a host with an NVIDIA GPU and"
                            + " driver");
        }
        return count;
    }

    private long ctx() {
        if (context == 0) {
            throw new IllegalStateException("CUDA kernels are closed");
        }
        return context;
    }

    @Override
    public String deviceKind() {
        return kind;
    }

    @Override
    public long alloc(long count) {
        return nAlloc(ctx(), count * 4L);
    }

    @Override
    public void free(long ptr) {
        if (ptr != 0) {
            nFree(ctx(), ptr);
        }
    }

    @Override
    public void uploadFloats(long dst, float[] src, int offset, int count) {
        checkRange(src.length, offset, count);
        nUploadFloats(ctx(), dst, src, offset, count);
    }

    @Override
    public void uploadInts(long dst, int[] src, int offset, int count) {
        checkRange(src.length, offset, count);
        nUploadInts(ctx(), dst, src, offset, count);
    }

    @Override
    public void downloadFloats(long src, float[] dst, int count) {
        checkRange(dst.length, 0, count);
        nDownloadFloats(ctx(), src, dst, count);
    }

    @Override
    public void downloadInts(long src, int[] dst, int count) {
        checkRange(dst.length, 0, count);
        nDownloadInts(ctx(), src, dst, count);
    }

    @Override
    public void downloadDoubles(long src, double[] dst, int count) {
        checkRange(dst.length, 0, count);
        nDownloadDoubles(ctx(), src, dst, count);
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
        nGemm(ctx(), transA, transB, m, n, k, a, lda, b, ldb, c, ldc);
    }

    @Override
    public void dropout(long src, long dst, long count, long key, int threshold, float scale) {
        nDropout(ctx(), src, dst, count, key, threshold, scale);
    }

    @Override
    public void aggregate(
            int mode, long src, int in, long indptr, long indices, long summed, int nDst, long x) {
        nAggregate(ctx(), mode, src, in, indptr, indices, summed, nDst, x);
    }

    @Override
    public void relu(long z, long act, long count) {
        nRelu(ctx(), z, act, count);
    }

    @Override
    public void scatter(
            int mode,
            long dx,
            int in,
            long indptr,
            long revPtr,
            long revDst,
            int nDst,
            int nSrc,
            long dSrc) {
        nScatter(ctx(), mode, dx, in, indptr, revPtr, revDst, nDst, nSrc, dSrc);
    }

    @Override
    public void reluDropoutBackward(
            long grad, long act, long count, long key, int threshold, float scale, long out) {
        nReluDropoutBackward(ctx(), grad, act, count, key, threshold, scale, out);
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
        nSoftmaxLoss(ctx(), logits, labels, seeds, classes, labelled, gradient, loss, predictions);
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
        nAdam(ctx(), params, grad, m, v, count, stepSize, bc2Sqrt, weightDecay);
    }

    @Override
    public void synchronize() {
        nSynchronize(ctx());
    }

    @Override
    public void close() {
        if (context != 0) {
            nClose(context);
            context = 0;
        }
    }

    private static void checkRange(int length, int offset, int count) {
        if (offset < 0 || count < 0 || offset > length - count) {
            throw new IndexOutOfBoundsException(
                    "range ["
                            + offset
                            + ", "
                            + offset
                            + " + "
                            + count
                            + ") of an array of "
                            + length);
        }
    }

    // The shim (gpu/native/gnnstream_gpu.cu). Errors throw IllegalStateException from native code.

    static native int nDeviceCount();

    static native String nLastError();

    static native long nOpen(int device);

    static native String nDeviceKind(long ctx);

    static native void nClose(long ctx);

    static native void nSynchronize(long ctx);

    static native long nAlloc(long ctx, long bytes);

    static native void nFree(long ctx, long ptr);

    static native void nUploadFloats(long ctx, long dst, float[] src, int offset, int count);

    static native void nUploadInts(long ctx, long dst, int[] src, int offset, int count);

    static native void nDownloadFloats(long ctx, long src, float[] dst, int count);

    static native void nDownloadInts(long ctx, long src, int[] dst, int count);

    static native void nDownloadDoubles(long ctx, long src, double[] dst, int count);

    static native void nGemm(
            long ctx,
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

    static native void nDropout(
            long ctx, long src, long dst, long count, long key, int threshold, float scale);

    static native void nAggregate(
            long ctx,
            int mode,
            long src,
            int in,
            long indptr,
            long indices,
            long summed,
            int nDst,
            long x);

    static native void nRelu(long ctx, long z, long act, long count);

    static native void nScatter(
            long ctx,
            int mode,
            long dx,
            int in,
            long indptr,
            long revPtr,
            long revDst,
            int nDst,
            int nSrc,
            long dSrc);

    static native void nReluDropoutBackward(
            long ctx,
            long grad,
            long act,
            long count,
            long key,
            int threshold,
            float scale,
            long out);

    static native void nSoftmaxLoss(
            long ctx,
            long logits,
            long labels,
            int seeds,
            int classes,
            int labelled,
            boolean gradient,
            long loss,
            long predictions);

    static native void nAdam(
            long ctx,
            long params,
            long grad,
            long m,
            long v,
            long count,
            float stepSize,
            float bc2Sqrt,
            float weightDecay);
}

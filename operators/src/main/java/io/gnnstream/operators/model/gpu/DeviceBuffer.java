package io.gnnstream.operators.model.gpu;

/**
 * A buffer of {@link GpuKernels} device memory that only grows, by a quarter beyond the request, so
 * that a model's steps stop allocating once they have seen their largest batch. Not thread-safe.
 */
public final class DeviceBuffer {

    private final GpuKernels kernels;
    private long ptr;
    private long capacity;

    public DeviceBuffer(GpuKernels kernels) {
        this.kernels = kernels;
    }

    /** Grows the buffer to at least {@code count} elements (contents lost) and returns it. */
    public long ensure(long count) {
        if (count > capacity) {
            kernels.free(ptr);
            ptr = 0;
            capacity = 0;
            long size = Math.max(count, capacity + capacity / 4);
            ptr = kernels.alloc(size);
            capacity = size;
        }
        return ptr;
    }

    /** The device pointer, {@code 0} before the first {@link #ensure} of a non-zero count. */
    public long ptr() {
        return ptr;
    }

    /** Frees the memory; the buffer grows again on the next {@link #ensure}. */
    public void release() {
        kernels.free(ptr);
        ptr = 0;
        capacity = 0;
    }
}

package io.gnnstream.operators.model.gpu;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Finds and loads the JNI shim of {@link CudaKernels}, once per class loader: {@code
 * -Dgnnstream.gpu.library=FILE}, else {@code GNNSTREAM_GPU_LIBRARY}, else {@code
 * gpu/lib/libgnnstream_gpu.so} under {@code -Dgnnstream.home} (what {@code bin/gnnstream gpu build}
 * writes).
 */
public final class CudaLibrary {

    /** File name of the shim that {@code gpu/build.sh} writes. */
    public static final String FILE_NAME = "libgnnstream_gpu.so";

    private static volatile Path loaded;

    private CudaLibrary() {}

    /** Where the shim is looked for, or null when nothing says. */
    public static Path location() {
        String named = System.getProperty("gnnstream.gpu.library");
        if (named == null || named.isBlank()) {
            named = System.getenv("GNNSTREAM_GPU_LIBRARY");
        }
        if (named != null && !named.isBlank()) {
            return Path.of(named);
        }
        String home = System.getProperty("gnnstream.home");
        return home == null ? null : Path.of(home, "gpu", "lib", FILE_NAME);
    }

    /**
     * Loads the shim.
     *
     * @throws GpuUnavailableException naming the file and what is wrong with it
     */
    public static synchronized void load() {
        if (loaded != null) {
            return;
        }
        Path file = location();
        if (file == null) {
            throw new GpuUnavailableException(
                    "--device cuda: no CUDA library configured: set -Dgnnstream.gpu.library or"
                            + " GNNSTREAM_GPU_LIBRARY to "
                            + FILE_NAME
                            + " (bin/gnnstream gpu build writes gpu/lib/"
                            + FILE_NAME
                            + "), or use --device cpu");
        }
        if (!Files.isRegularFile(file)) {
            throw new GpuUnavailableException(
                    "--device cuda: the CUDA library "
                            + file
                            + " does not exist: build it with `bin/gnnstream gpu build` (needs"
                            + " nvcc and cuBLAS) or use --device cpu");
        }
        try {
            System.load(file.toAbsolutePath().toString());
        } catch (UnsatisfiedLinkError e) {
            throw new GpuUnavailableException(
                    "--device cuda: cannot load "
                            + file
                            + ": "
                            + e.getMessage()
                            + " (the CUDA driver library libcuda.so.1 and cuBLAS libcublas.so must"
                            + " be on the loader's path, e.g. LD_LIBRARY_PATH); or use --device"
                            + " cpu",
                    e);
        }
        loaded = file;
    }
}

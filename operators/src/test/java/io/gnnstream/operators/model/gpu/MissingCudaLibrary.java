package io.gnnstream.operators.model.gpu;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;

/**
 * Points {@code -Dgnnstream.gpu.library} at a file that does not exist until closed, so that {@code
 * --device cuda} fails to load its library whatever the host has built or installed. Aborts the
 * test (an assumption) where the library is already loaded in this JVM.
 */
public final class MissingCudaLibrary implements AutoCloseable {

    static final String PROPERTY = "gnnstream.gpu.library";

    /** The file named, under {@code dir}; it does not exist. */
    public final Path file;

    private final String previous;

    public MissingCudaLibrary(Path dir) {
        file = dir.resolve("not-built").resolve(CudaLibrary.FILE_NAME).toAbsolutePath();
        previous = System.getProperty(PROPERTY);
        System.setProperty(PROPERTY, file.toString());
        boolean fails;
        try {
            CudaLibrary.load();
            fails = false;
        } catch (GpuUnavailableException expected) {
            fails = true;
        }
        if (!fails) {
            close();
        }
        assumeTrue(fails, "the CUDA library is already loaded in this JVM");
    }

    @Override
    public void close() {
        if (previous == null) {
            System.clearProperty(PROPERTY);
        } else {
            System.setProperty(PROPERTY, previous);
        }
    }
}

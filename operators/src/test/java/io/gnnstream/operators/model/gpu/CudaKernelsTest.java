package io.gnnstream.operators.model.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Java side of the CUDA backend without a GPU: every native method has its JNI function in the
 * shim's source, and a missing library fails with a message that names it and the way out.
 */
class CudaKernelsTest {

    private static final Path SHIM = Path.of("../gpu/native/gnnstream_gpu.cu");

    @Test
    void everyNativeMethodHasItsFunctionInTheShim() throws Exception {
        Set<String> natives = new TreeSet<>();
        for (Method m : CudaKernels.class.getDeclaredMethods()) {
            if (Modifier.isNative(m.getModifiers())) {
                natives.add(m.getName());
            }
        }
        Set<String> defined = new TreeSet<>();
        Matcher fn = Pattern.compile("JNI_FN\\(\\w+, (\\w+)\\)\\(").matcher(Files.readString(SHIM));
        while (fn.find()) {
            defined.add(fn.group(1));
        }
        assertTrue(natives.size() > 15, "natives: " + natives);
        assertEquals(natives, defined);
        assertTrue(
                Files.readString(SHIM)
                        .contains("Java_io_gnnstream_operators_model_gpu_CudaKernels_##name"));
    }

    @Test
    void aMissingLibraryNamesItselfAndTheBuildCommand() {
        String before = System.getProperty("gnnstream.gpu.library");
        System.setProperty("gnnstream.gpu.library", "/nonexistent/libgnnstream_gpu.so");
        try {
            GpuUnavailableException e =
                    assertThrows(GpuUnavailableException.class, () -> CudaKernels.open(0));
            assertTrue(e.getMessage().contains("/nonexistent/libgnnstream_gpu.so"), e.getMessage());
            assertTrue(e.getMessage().contains("bin/gnnstream gpu build"), e.getMessage());
            assertTrue(e.getMessage().contains("--device cpu"), e.getMessage());
        } finally {
            if (before == null) {
                System.clearProperty("gnnstream.gpu.library");
            } else {
                System.setProperty("gnnstream.gpu.library", before);
            }
        }
    }

    @Test
    void theDefaultLocationIsUnderTheProjectHome() {
        String home = System.getProperty("gnnstream.home");
        if (System.getProperty("gnnstream.gpu.library") == null
                && System.getenv("GNNSTREAM_GPU_LIBRARY") == null
                && home != null) {
            assertEquals(
                    Path.of(home, "gpu", "lib", CudaLibrary.FILE_NAME), CudaLibrary.location());
        }
        assertTrue(Arrays.asList(CudaLibrary.FILE_NAME.split("\\.")).contains("so"));
    }
}

package io.gnnstream.operators.model;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The GPU step's Java side loads no ND4J, JavaCPP or Flink class (their natives and jars do not
 * travel to a GPU host): a step, a snapshot and a restore run in a class loader that has only the
 * operators module's classes and refuses those packages.
 */
class GpuStepImportsTest {

    private static final List<String> REFUSED =
            List.of("org.nd4j.", "org.bytedeco.", "org.apache.flink.", "com.fasterxml.");

    @Test
    void aGpuStepRunsWithoutNd4jOrFlink() throws Exception {
        URL main = Path.of("target/classes").toUri().toURL();
        URL test = Path.of("target/test-classes").toUri().toURL();
        List<String> loaded = new ArrayList<>();
        try (URLClassLoader loader =
                new URLClassLoader(new URL[] {main, test}, ClassLoader.getPlatformClassLoader()) {
                    @Override
                    protected Class<?> loadClass(String name, boolean resolve)
                            throws ClassNotFoundException {
                        for (String refused : REFUSED) {
                            if (name.startsWith(refused)) {
                                throw new ClassNotFoundException(name + " is refused here");
                            }
                        }
                        loaded.add(name);
                        return super.loadClass(name, resolve);
                    }
                }) {
            Class<?> probe = loader.loadClass(GpuStepProbe.class.getName());
            ((Runnable) probe.getDeclaredConstructor().newInstance()).run();
        }
        assertTrue(loaded.contains(GpuModel.class.getName()));
        assertFalse(loaded.contains(GnnModelBase.class.getName()), "the CPU model base loaded");
    }
}

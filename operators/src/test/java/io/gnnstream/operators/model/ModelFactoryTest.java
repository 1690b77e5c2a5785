package io.gnnstream.operators.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gnnstream.operators.model.gpu.CudaLibrary;
import io.gnnstream.operators.model.gpu.Device;
import io.gnnstream.operators.model.gpu.GpuUnavailableException;
import io.gnnstream.operators.model.gpu.MissingCudaLibrary;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@link ModelFactory}: the ND4J models on the CPU, a clear failure where CUDA is missing. */
@Timeout(60)
class ModelFactoryTest {

    private static ModelConfig config(ModelType type) {
        return ModelConfig.builder()
                .modelType(type)
                .inFeatures(3)
                .hidden(4)
                .numClasses(2)
                .numLayers(2)
                .dropout(0)
                .learningRate(0.01)
                .weightDecay(0)
                .seed(5)
                .build();
    }

    @Test
    void theCpuIsTheNd4jModels() {
        assertSame(ModelFactory.CPU, ModelFactory.of(Device.CPU, -1));
        assertSame(ModelFactory.CPU, ModelFactory.of(Device.parse("cpu"), 3));
        try (GnnModel sage = ModelFactory.CPU.create(config(ModelType.SAGE));
                GnnModel gcn = ModelFactory.CPU.create(config(ModelType.GCN))) {
            assertInstanceOf(SageModel.class, sage);
            assertInstanceOf(GcnModel.class, gcn);
            assertEquals("cpu", sage.deviceKind());
            try (GnnModel reference = GnnModel.create(config(ModelType.SAGE))) {
                assertEquals(reference.checksum(), sage.checksum(), "GnnModel.create's model");
            }
        }
    }

    @Test
    void theCpuRestoresASnapshot() {
        try (GnnModel original = ModelFactory.CPU.create(config(ModelType.SAGE));
                GnnModel restored =
                        ModelFactory.CPU.restore(config(ModelType.SAGE), original.snapshot())) {
            assertInstanceOf(SageModel.class, restored);
            assertEquals(original.checksum(), restored.checksum());
        }
        assertThrows(
                NullPointerException.class,
                () -> ModelFactory.CPU.restore(config(ModelType.SAGE), null));
    }

    @Test
    void cudaWithoutItsLibraryFailsNamingTheFile(@TempDir Path dir) {
        try (MissingCudaLibrary missing = new MissingCudaLibrary(dir)) {
            for (String device : new String[] {"cuda", "cuda:1"}) {
                ModelFactory cuda = ModelFactory.of(Device.parse(device), 0);
                GpuUnavailableException fresh =
                        assertThrows(
                                GpuUnavailableException.class,
                                () -> cuda.create(config(ModelType.SAGE)));
                assertTrue(
                        fresh.getMessage().contains(missing.file.toString())
                                && fresh.getMessage().contains("does not exist")
                                && fresh.getMessage().contains("bin/gnnstream gpu build"),
                        fresh.getMessage());
                try (GnnModel cpu = ModelFactory.CPU.create(config(ModelType.SAGE))) {
                    GpuUnavailableException restored =
                            assertThrows(
                                    GpuUnavailableException.class,
                                    () -> cuda.restore(config(ModelType.SAGE), cpu.snapshot()));
                    assertTrue(
                            restored.getMessage().contains(missing.file.toString()),
                            restored.getMessage());
                }
            }
        }
    }

    /**
     * Without {@code -Dgnnstream.gpu.library} (the property is restored afterwards): the default
     * location under {@code -Dgnnstream.home}, or nothing configured.
     */
    @Test
    void cudaAtTheDefaultLocationNamesTheLibrary(@TempDir Path dir) {
        try (MissingCudaLibrary ignored = new MissingCudaLibrary(dir)) {
            System.clearProperty("gnnstream.gpu.library");
            Path location = CudaLibrary.location();
            assumeTrue(
                    location == null || !Files.isRegularFile(location),
                    "the CUDA library is built at " + location);
            GpuUnavailableException e =
                    assertThrows(
                            GpuUnavailableException.class,
                            () -> ModelFactory.cuda(0).create(config(ModelType.GCN)));
            String named = location == null ? CudaLibrary.FILE_NAME : location.toString();
            assertTrue(e.getMessage().contains(named), e.getMessage());
            assertTrue(e.getMessage().contains("--device cpu"), e.getMessage());
        }
    }
}

package io.gnnstream.operators.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ModelType} as the registry of {@link Architecture}s: every type has one that builds its
 * models and describes their tensors, and no main code outside the model package names a concrete
 * architecture or switches on the type.
 */
@Timeout(60)
class ArchitectureRegistryTest {

    /** Names a concrete architecture: what only the model package may do. */
    private static final Pattern CONCRETE =
            Pattern.compile(
                    "ModelType\\.(SAGE|GCN|GAT)\\b|case\\s+(SAGE|GCN|GAT)\\b"
                            + "|instanceof\\s+(SageModel|GcnModel|GatModel)\\b"
                            + "|GpuKernels\\.(SAGE|GCN)\\b");

    /** A switch or comparison on the type: what only the architectures' own classes may do. */
    private static final Pattern SWITCH =
            Pattern.compile("switch\\s*\\([^)]*modelType\\(\\)\\s*\\)|modelType\\(\\)\\s*[!=]=");

    private static ModelConfig config(ModelType type) {
        return ModelConfig.builder()
                .modelType(type)
                .inFeatures(5)
                .hidden(3)
                .numClasses(4)
                .numLayers(3)
                .dropout(0)
                .seed(2)
                .build();
    }

    @Test
    void everyTypeHasAnArchitectureThatBuildsItsModels() {
        Set<String> ids = new HashSet<>();
        Set<Architecture> architectures = new HashSet<>();
        for (ModelType type : ModelType.values()) {
            Architecture a = type.architecture();
            assertNotNull(a, type.name());
            assertTrue(architectures.add(a), type + " shares its architecture");
            assertTrue(ids.add(type.id()), type + " repeats an id");
            assertEquals(a.id(), type.id());
            assertEquals(a.description(), type.description());
            assertSame(type, ModelType.parse(type.id()));
            assertTrue(a.weightBlocks() >= 1);
            ModelConfig cfg = config(type);
            assertSame(a, cfg.architecture());
            List<List<ModelParameters.Tensor>> tensors = a.tensors(cfg);
            assertEquals(cfg.numLayers(), tensors.size());
            try (GnnModel fresh = GnnModel.create(cfg);
                    GnnModel restored = GnnModel.restore(cfg, fresh.snapshot())) {
                assertSame(type, fresh.config().modelType());
                assertEquals(cfg.numParameters(), fresh.parameterVector().length);
                assertEquals(fresh.checksum(), restored.checksum());
                assertEquals(restored.getClass(), fresh.getClass());
                int n = 0;
                for (List<ModelParameters.Tensor> layer : tensors) {
                    n += layer.size();
                }
                assertEquals(n, fresh.parameters().size());
                for (int j = 0; j < cfg.numLayers(); j++) {
                    assertEquals(tensors.get(j).get(0).name(), nameOf(fresh, j, tensors));
                }
            }
        }
        assertTrue(ids.contains(ModelType.DEFAULT.id()));
    }

    @Test
    void roundRowsFollowTheArchitecture() {
        for (ModelType type : ModelType.values()) {
            Architecture a = type.architecture();
            ModelConfig cfg =
                    ModelConfig.builder()
                            .modelType(type)
                            .inFeatures(5)
                            .hidden(64)
                            .numClasses(3)
                            .numLayers(2)
                            .build();
            if (a.projectsRows()) {
                assertEquals((a.weightBlocks() * 64 + 1) * 3, cfg.layerParameters(1));
                assertTrue(cfg.projectsRoundInput(1, false));
                assertEquals(a.weightBlocks() * 3, cfg.roundRowWidth(1, false));
                assertEquals(a.hasRootWeight() ? 3 : 0, cfg.roundRootWidth(1, false));
            } else {
                // Attention reads the rows themselves: rounds store them as they are.
                assertFalse(a.hasRootWeight(), type + " cannot have a root part");
                assertFalse(cfg.projectsRoundInput(1, false));
                assertEquals(cfg.layerIn(1), cfg.roundRowWidth(1, false));
                assertEquals(0, cfg.roundRootWidth(1, false));
            }
        }
    }

    @Test
    void noCodeOutsideTheModelPackageNamesAnArchitecture() throws IOException {
        Path root = Paths.get("").toAbsolutePath().getParent();
        List<String> offending = new ArrayList<>();
        int scanned = 0;
        try (Stream<Path> modules = Files.list(root)) {
            for (Path module : (Iterable<Path>) modules::iterator) {
                Path main = module.resolve("src/main/java");
                if (!Files.isDirectory(main)) {
                    continue;
                }
                try (Stream<Path> files = Files.walk(main)) {
                    for (Path f : (Iterable<Path>) files::iterator) {
                        if (!f.toString().endsWith(".java")) {
                            continue;
                        }
                        scanned++;
                        String text = Files.readString(f);
                        String where = root.relativize(f).toString().replace('\\', '/');
                        boolean model = where.contains("io/gnnstream/operators/model/");
                        if (!model && CONCRETE.matcher(text).find()) {
                            offending.add(where + " names an architecture");
                        }
                        if (SWITCH.matcher(text).find() && !ownClass(f)) {
                            offending.add(where + " switches on the model type");
                        }
                    }
                }
            }
        }
        assertTrue(scanned > 100, "scanned only " + scanned + " files under " + root);
        assertFalse(!offending.isEmpty(), String.join("\n", offending));
    }

    /** An architecture's own classes: its model and its {@link Architecture}. */
    private static boolean ownClass(Path f) {
        String name = f.getFileName().toString();
        for (ModelType type : ModelType.values()) {
            String simple = type.architecture().getClass().getSimpleName();
            String prefix = simple.substring(0, simple.length() - "Architecture".length());
            if (name.equals(simple + ".java") || name.equals(prefix + "Model.java")) {
                return true;
            }
        }
        return false;
    }

    private static String nameOf(GnnModel model, int layer, List<List<ModelParameters.Tensor>> t) {
        int k = 0;
        for (int j = 0; j < layer; j++) {
            k += t.get(j).size();
        }
        return model.parameters().get(k).name();
    }
}

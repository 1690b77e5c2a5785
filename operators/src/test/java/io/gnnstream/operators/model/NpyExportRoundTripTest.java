package io.gnnstream.operators.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gnnstream.operators.messages.MiniBatch;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@link NpyExport} followed by {@link ModelExports#load} gives the same model, for both types. */
class NpyExportRoundTripTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** GAT with three heads, two output heads and attention dropout, so its manifest holds them. */
    private static ModelConfig config(ModelType type) {
        ModelConfig.Builder b = ModelConfig.builder().modelType(type);
        if (type == ModelType.GAT) {
            b.heads(3).outHeads(2).attentionDropout(0.25);
        }
        return b.inFeatures(7)
                .hidden(9)
                .numClasses(3)
                .numLayers(2)
                .dropout(0.3)
                .weightDecay(1e-4)
                .seed(3)
                .decaySteps(50)
                .build();
    }

    private static TestGraphs.Graph graph() {
        return TestGraphs.random(50, 7, 3, 4, 4, 2);
    }

    /** A model of {@code type} trained for two steps and exported to {@code dir}. */
    private static GnnModel exported(ModelType type, Path dir) throws IOException {
        GnnModel model = GnnModel.create(config(type));
        for (int s = 0; s < 2; s++) {
            model.trainStep(
                    TestGraphs.sample(
                            graph(), new int[] {1, 2, 3, 5 + s}, new int[] {3, 3}, true, 4 + s));
        }
        NpyExport.export(model, dir, Map.of("rank", 0));
        return model;
    }

    @ParameterizedTest
    @EnumSource(ModelType.class)
    void loadGivesTheExportedModel(ModelType type, @TempDir Path dir) throws Exception {
        try (GnnModel model = exported(type, dir);
                GnnModel loaded = ModelExports.load(dir)) {
            JsonNode manifest = JSON.readTree(dir.resolve(NpyExport.MANIFEST).toFile());
            assertEquals("gnnstream-npy/2", manifest.get("format").asText());
            assertEquals(type.id(), manifest.get("model").asText());
            assertEquals(type.description(), manifest.get("description").asText());
            assertEquals(type.id(), manifest.get("config").get("model").asText());

            assertEquals(model.getClass(), loaded.getClass());
            assertEquals(model.config(), loaded.config());
            assertEquals(2, loaded.step());
            assertEquals(model.checksum(), loaded.checksum());
            assertArrayEquals(model.parameterVector(), loaded.parameterVector());
            for (float[] m : loaded.snapshot().adamM) {
                assertTrue(allZero(m), "Adam moments start at zero");
            }
            LayerwiseInference.Graph g = LayerwiseInferenceTest.graph(graph());
            LayerwiseInference.Outputs a = LayerwiseInference.run(model, g, 16);
            LayerwiseInference.Outputs b = LayerwiseInference.run(loaded, g, 16);
            for (int j = 0; j < a.layers().length; j++) {
                assertArrayEquals(a.layers()[j], b.layers()[j], "inferLayer output of layer " + j);
            }
            MiniBatch batch =
                    TestGraphs.sample(graph(), new int[] {4, 8, 9}, new int[] {3, 2}, true, 1);
            assertArrayEquals(
                    model.evaluate(batch).predictions(), loaded.evaluate(batch).predictions());
            assertEquals(model.evaluate(batch).lossSum(), loaded.evaluate(batch).lossSum());
        }
    }

    /**
     * The export records the eval fanout in its config; an export without one (older builds) reads
     * as the default.
     */
    @Test
    void theEvalFanoutTravelsInTheConfig(@TempDir Path dir) throws Exception {
        try (GnnModel model = GnnModel.create(config(ModelType.SAGE))) {
            NpyExport.export(model, dir, 12, Map.of());
            JsonNode config = JSON.readTree(dir.resolve(NpyExport.MANIFEST).toFile()).get("config");
            assertEquals(12, config.get(NpyExport.EVAL_FANOUT).asInt());
            assertEquals(12, ModelExports.evalFanout(dir));
            NpyExport.export(model, dir, -1, Map.of());
            assertEquals(-1, ModelExports.evalFanout(dir));
            try (GnnModel loaded = ModelExports.load(dir)) {
                assertEquals(model.config(), loaded.config());
            }

            ObjectNode manifest =
                    (ObjectNode) JSON.readTree(dir.resolve(NpyExport.MANIFEST).toFile());
            ((ObjectNode) manifest.get("config")).remove(NpyExport.EVAL_FANOUT);
            JSON.writeValue(dir.resolve(NpyExport.MANIFEST).toFile(), manifest);
            assertEquals(4096, ModelExports.evalFanout(dir));

            ((ObjectNode) manifest.get("config")).put(NpyExport.EVAL_FANOUT, 0);
            JSON.writeValue(dir.resolve(NpyExport.MANIFEST).toFile(), manifest);
            IOException e = assertThrows(IOException.class, () -> ModelExports.evalFanout(dir));
            assertTrue(
                    e.getMessage().contains("evalFanout must be positive or -1"), e.getMessage());
        }
    }

    @Test
    void readsTheSageFormatOfVersionOne(@TempDir Path dir) throws Exception {
        try (GnnModel model = exported(ModelType.SAGE, dir)) {
            ObjectNode manifest =
                    (ObjectNode) JSON.readTree(dir.resolve(NpyExport.MANIFEST).toFile());
            manifest.put("format", "gnnstream-sage-npy/1");
            manifest.put("model", "GraphSAGE-mean (PyG SAGEConv aggr=mean, root_weight=True)");
            manifest.remove("description");
            ((ObjectNode) manifest.get("config")).remove("model");
            JSON.writeValue(dir.resolve(NpyExport.MANIFEST).toFile(), manifest);
            try (GnnModel loaded = ModelExports.load(dir)) {
                assertTrue(loaded instanceof SageModel);
                assertEquals(model.checksum(), loaded.checksum());
                assertEquals(model.config(), loaded.config());
            }
        }
    }

    @Test
    void missingOrCorruptFilesGiveClearErrors(@TempDir Path root) throws Exception {
        Path dir = root.resolve("gcn");
        exported(ModelType.GCN, dir).close();
        Path weight = dir.resolve("layers.1.lin.weight.npy");
        byte[] good = Files.readAllBytes(weight);

        Files.write(weight, Arrays.copyOf(good, good.length - 4));
        assertFails(dir, "layers.1.lin.weight.npy", "truncated");
        Files.write(weight, NpyFile.encode(new int[] {3, 9}, new float[27]));
        assertFails(dir, "layers.1.lin.weight.npy", "shape [3, 9], expected [9, 3]");
        Files.write(
                weight,
                new String(good, StandardCharsets.ISO_8859_1)
                        .replace("<f4", "<f8")
                        .getBytes(StandardCharsets.ISO_8859_1));
        assertFails(dir, "layers.1.lin.weight.npy", "dtype <f8");
        Files.write(weight, "not numpy".getBytes(StandardCharsets.US_ASCII));
        assertFails(dir, "layers.1.lin.weight.npy", "bad magic");
        Files.write(weight, NpyFile.encode(new int[] {9, 3}, new float[27]));
        assertFails(dir, "checksum");
        Files.delete(weight);
        assertFails(dir, "missing tensor file", "layers.1.lin.weight.npy");
        Files.write(weight, good);
        try (GnnModel ok = ModelExports.load(dir)) {
            assertTrue(ok instanceof GcnModel);
        }

        Path manifest = dir.resolve(NpyExport.MANIFEST);
        String text = Files.readString(manifest);
        Files.writeString(
                manifest,
                text.replace(
                        "\"model\" : \"gcn\",\n  \"description\"",
                        "\"model\" : \"gin\",\n  \"description\""));
        assertFails(dir, "unknown model type 'gin'");
        Files.writeString(manifest, text.replace("\"hidden\" : 9", "\"hidden\" : 8"));
        assertFails(dir, "layers.0.lin.weight", "[7, 8]");
        Files.writeString(manifest, text.replace("gnnstream-npy/2", "gnnstream-npy/9"));
        assertFails(dir, "unsupported format 'gnnstream-npy/9'");
        Files.writeString(manifest, text.substring(0, text.length() / 2));
        assertFails(dir, "corrupt manifest");
        Files.delete(manifest);
        assertFails(dir, "no manifest.json");
    }

    private static void assertFails(Path dir, String... fragments) {
        IOException e = assertThrows(IOException.class, () -> ModelExports.load(dir).close());
        for (String f : fragments) {
            assertTrue(e.getMessage().contains(f), "'" + f + "' not in: " + e.getMessage());
        }
    }

    private static boolean allZero(float[] values) {
        for (float v : values) {
            if (v != 0f) {
                return false;
            }
        }
        return true;
    }
}

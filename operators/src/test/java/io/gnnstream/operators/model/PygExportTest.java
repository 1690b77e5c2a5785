package io.gnnstream.operators.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The export's {@code pyg/} folder: the keys and shapes of the {@code state_dict} of PyG 2.8's
 * {@code GraphSAGE(5, 4, 2, 3)}, {@code GCN(5, 4, 2, 3)} and {@code GAT(5, 8, 2, 3, heads=2)} as
 * printed by PyG itself, each tensor our tensor in PyG's layout, and the class and arguments the
 * loader builds (the PyG round trip itself is {@code PygRoundTripITCase}).
 */
@Timeout(60)
class PygExportTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static ModelConfig config(ModelType type, int heads, int outHeads) {
        return ModelConfig.builder()
                .modelType(type)
                .inFeatures(5)
                .hidden(4)
                .numClasses(3)
                .numLayers(2)
                .heads(heads)
                .outHeads(outHeads)
                .seed(7)
                .build();
    }

    /** Exports a fresh model of {@code cfg} and returns the pyg manifest. */
    private static JsonNode export(ModelConfig cfg, Path dir, Map<String, ParamInfo> ours)
            throws Exception {
        try (GnnModel model = GnnModel.create(cfg)) {
            for (ParamInfo p : model.parameters()) {
                ours.put(p.name(), p);
            }
            NpyExport.export(model, dir, 8, "sum", Map.of());
        }
        JsonNode top = JSON.readTree(dir.resolve(NpyExport.MANIFEST).toFile());
        assertEquals("pyg/manifest.json", top.path("pyg").asText());
        return JSON.readTree(dir.resolve("pyg").resolve(NpyExport.MANIFEST).toFile());
    }

    /** The manifest's tensors as {@code name -> shape}, in order. */
    private static Map<String, String> shapes(JsonNode manifest) {
        Map<String, String> shapes = new LinkedHashMap<>();
        for (JsonNode t : manifest.path("tensors")) {
            shapes.put(t.path("name").asText(), t.path("shape").toString());
        }
        return shapes;
    }

    @Test
    void sageIsGraphSageWithTransposedLinearWeights(@TempDir Path dir) throws Exception {
        Map<String, ParamInfo> ours = new LinkedHashMap<>();
        JsonNode m = export(config(ModelType.SAGE, 1, 1), dir, ours);
        assertEquals(PygExport.FORMAT, m.path("format").asText());
        assertEquals("GraphSAGE", m.path("class").asText());
        assertEquals(
                "{\"in_channels\":5,\"hidden_channels\":4,\"num_layers\":2,\"out_channels\":3,"
                        + "\"act\":\"relu\",\"aggr\":\"mean\"}",
                m.path("kwargs").toString());
        assertEquals(8, m.path("evalFanout").asInt());
        assertEquals("sum", m.path("featureNormalization").asText());
        assertTrue(m.path("edgeWeights").isNull());
        assertEquals(
                Map.of(
                        "convs.0.lin_l.weight", "[4,5]",
                        "convs.0.lin_l.bias", "[4]",
                        "convs.0.lin_r.weight", "[4,5]",
                        "convs.1.lin_l.weight", "[3,4]",
                        "convs.1.lin_l.bias", "[3]",
                        "convs.1.lin_r.weight", "[3,4]"),
                shapes(m));
        float[] neigh = ours.get("layers.1.lin_neigh.weight").values(); // [4, 3]
        float[] lin = NpyFile.read(dir.resolve("pyg/convs.1.lin_l.weight.npy"), new int[] {3, 4});
        for (int i = 0; i < 4; i++) {
            for (int o = 0; o < 3; o++) {
                assertEquals(neigh[i * 3 + o], lin[o * 4 + i]);
            }
        }
        assertArrayEquals(
                ours.get("layers.0.bias").values(),
                NpyFile.read(dir.resolve("pyg/convs.0.lin_l.bias.npy"), new int[] {4}));
    }

    @Test
    void gcnIsGcnWithoutNormalisationAndTheModelsEdgeWeights(@TempDir Path dir) throws Exception {
        JsonNode m = export(config(ModelType.GCN, 1, 1), dir, new LinkedHashMap<>());
        assertEquals("GCN", m.path("class").asText());
        assertEquals(false, m.path("kwargs").path("normalize").asBoolean(true));
        assertEquals("mean", m.path("edgeWeights").asText());
        assertEquals(
                Map.of(
                        "convs.0.lin.weight", "[4,5]",
                        "convs.0.bias", "[4]",
                        "convs.1.lin.weight", "[3,4]",
                        "convs.1.bias", "[3]"),
                shapes(m));
        JsonNode sym =
                export(
                        config(ModelType.GCN, 1, 1).withGcnNorm(GcnNorm.SYM),
                        dir.resolve("sym"),
                        new LinkedHashMap<>());
        assertEquals("sym", sym.path("edgeWeights").asText());
    }

    @Test
    void gatIsGatWhereTheHeadsAgreeAndAStackOfConvsElsewhere(@TempDir Path dir) throws Exception {
        Map<String, ParamInfo> ours = new LinkedHashMap<>();
        JsonNode m = export(config(ModelType.GAT, 2, 2), dir, ours);
        assertEquals("GAT", m.path("class").asText());
        assertEquals(8, m.path("kwargs").path("hidden_channels").asInt());
        assertEquals(2, m.path("kwargs").path("heads").asInt());
        assertEquals("elu", m.path("act").asText());
        assertEquals(
                Map.of(
                        "convs.0.lin.weight", "[8,5]",
                        "convs.0.att_src", "[1,2,4]",
                        "convs.0.att_dst", "[1,2,4]",
                        "convs.0.bias", "[8]",
                        "convs.1.lin.weight", "[6,8]",
                        "convs.1.att_src", "[1,2,3]",
                        "convs.1.att_dst", "[1,2,3]",
                        "convs.1.bias", "[3]"),
                shapes(m));
        assertArrayEquals(
                ours.get("layers.1.att_dst").values(),
                NpyFile.read(dir.resolve("pyg/convs.1.att_dst.npy"), new int[] {1, 2, 3}));

        JsonNode stack = export(config(ModelType.GAT, 2, 1), dir.resolve("h21"), ours);
        assertTrue(stack.path("class").isNull(), "PyG's GAT gives the last layer 2 heads");
        JsonNode last = stack.path("convs").path(1);
        assertEquals("GATConv", last.path("class").asText());
        assertEquals(
                "{\"in_channels\":8,\"out_channels\":3,\"heads\":1,\"concat\":false}",
                last.path("kwargs").toString());
        assertEquals("[1,1,3]", shapes(stack).get("convs.1.att_src"));
    }
}

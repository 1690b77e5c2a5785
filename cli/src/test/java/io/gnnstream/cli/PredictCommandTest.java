package io.gnnstream.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gnnstream.operators.model.ClassProbabilities;
import io.gnnstream.operators.model.LayerwiseInference;
import io.gnnstream.operators.model.ModelConfig;
import io.gnnstream.operators.model.NpyExport;
import io.gnnstream.operators.model.SageModel;
import io.gnnstream.state.records.Split;
import io.gnnstream.tools.DatasetGraph;
import io.gnnstream.tools.NeighbourSampler;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code predict} on the bundled Cora with a model trained a few steps here and exported. */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class PredictCommandTest {

    private static final Path CORA = Path.of("..", "data", "cora");
    private static final ObjectMapper JSON = new ObjectMapper();

    private static DatasetGraph graph;
    private static SageModel model;

    @TempDir Path tmp;

    private record Run(int exit, String out, String err) {}

    @BeforeAll
    static void train() throws Exception {
        graph = DatasetGraph.load(CORA, true);
        ModelConfig config =
                ModelConfig.builder()
                        .inFeatures(graph.featureDim)
                        .numClasses(graph.numClasses)
                        .hidden(16)
                        .numLayers(2)
                        .dropout(0.5)
                        .learningRate(0.01)
                        .seed(5)
                        .build();
        model = new SageModel(config);
        NeighbourSampler sampler = new NeighbourSampler(graph, new int[] {10, 5});
        int[] train = graph.split(Split.TRAIN);
        SplittableRandom random = new SplittableRandom(9);
        for (int step = 0; step < 5; step++) {
            int[] seeds = random.ints(32, 0, train.length).map(i -> train[i]).toArray();
            model.trainStep(sampler.sample(seeds, random));
        }
    }

    @AfterAll
    static void close() {
        model.close();
    }

    private static Run run(String... args) {
        CommandLine cli = GnnstreamCli.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int exit = cli.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    private Path export(SageModel m, String name) throws Exception {
        Path dir = tmp.resolve(name);
        NpyExport.export(m, dir, Map.of());
        return dir;
    }

    @Test
    void predictsEveryVertexLikeLayerwiseInference() throws Exception {
        Path out = tmp.resolve("predictions.jsonl");
        Run r =
                run(
                        "predict",
                        "--model",
                        export(model, "model").toString(),
                        "--dataset",
                        CORA.toString(),
                        "--out",
                        out.toString(),
                        "--emit-embeddings");
        assertEquals(0, r.exit(), r.err());
        assertTrue(
                r.out()
                        .startsWith(
                                "Wrote 2708 predictions (model step 5) to " + out + "; val acc "),
                r.out());
        assertTrue(r.out().contains(" of 500)"), r.out());
        assertTrue(r.out().contains(" of 1000)"), r.out());

        LayerwiseInference.Outputs expected =
                LayerwiseInference.run(model, graph.inferenceGraph(), 2048);
        int classes = model.config().numClasses();
        List<String> lines = Files.readAllLines(out);
        assertEquals(graph.numVertices(), lines.size());
        for (int v = 0; v < lines.size(); v++) {
            JsonNode line = JSON.readTree(lines.get(v));
            assertEquals(List.of("id", "step", "label", "probs", "embedding"), fieldNames(line));
            assertEquals(graph.ids[v], line.get("id").asLong());
            assertEquals(5, line.get("step").asLong());
            assertEquals(
                    ClassProbabilities.argmax(expected.logits(), v, classes),
                    line.get("label").asInt());
            float[] probs = ClassProbabilities.softmax(expected.logits(), v, classes);
            assertEquals(classes, line.get("probs").size());
            double sum = 0;
            for (int c = 0; c < classes; c++) {
                assertEquals(probs[c], line.get("probs").get(c).asDouble(), 1e-6, "vertex " + v);
                sum += line.get("probs").get(c).asDouble();
            }
            assertEquals(1.0, sum, 1e-5, "vertex " + v);
            JsonNode embedding = line.get("embedding");
            assertEquals(16, embedding.size());
            for (int k = 0; k < 16; k++) {
                assertEquals(expected.layers()[0][v * 16 + k], embedding.get(k).asDouble(), 1e-6);
            }
        }
    }

    /**
     * Hubs aggregate the neighbourhood of the export's eval fanout, or of {@code --eval-fanout}; an
     * export without one means 4096.
     */
    @Test
    void usesTheExportsEvalFanoutUnlessOneIsGiven() throws Exception {
        Path dir = tmp.resolve("capped");
        NpyExport.export(model, dir, 8, Map.of());
        LayerwiseInference.Outputs capped =
                LayerwiseInference.run(model, graph.inferenceGraph(), 2048, 8);
        LayerwiseInference.Outputs all =
                LayerwiseInference.run(model, graph.inferenceGraph(), 2048, -1);
        assertFalse(java.util.Arrays.equals(capped.logits(), all.logits()), "Cora has hubs");

        Path out = tmp.resolve("capped.jsonl");
        assertEquals(0, predict(dir, out).exit());
        assertPredicts(capped, out);
        assertEquals(0, predict(dir, out, "--eval-fanout", "-1").exit());
        assertPredicts(all, out);

        ObjectNode manifest = (ObjectNode) JSON.readTree(dir.resolve(NpyExport.MANIFEST).toFile());
        ((ObjectNode) manifest.get("config")).remove(NpyExport.EVAL_FANOUT);
        JSON.writeValue(dir.resolve(NpyExport.MANIFEST).toFile(), manifest);
        assertEquals(0, predict(dir, out).exit());
        assertPredicts(LayerwiseInference.run(model, graph.inferenceGraph(), 2048, 4096), out);

        Run bad = predict(dir, out, "--eval-fanout", "0");
        assertEquals(CommandLine.ExitCode.USAGE, bad.exit());
        assertTrue(bad.err().startsWith("error: --eval-fanout must be positive or -1"), bad.err());
        PredictCommand parsed =
                (PredictCommand)
                        GnnstreamCli.commandLine()
                                .parseArgs(
                                        "predict", "--model", "m", "--dataset", "d", "--out", "o")
                                .subcommand()
                                .commandSpec()
                                .userObject();
        assertNull(parsed.evalFanout, "no default: the export's");
    }

    /**
     * The feature normalisation the export records is applied, whatever the dataset scan says;
     * {@code --normalize-features} overrides it, and an export without one decides from the scan.
     */
    @Test
    void appliesTheExportsFeatureNormalization() throws Exception {
        DatasetGraph raw = DatasetGraph.load(CORA, false);
        LayerwiseInference.Outputs onRaw =
                LayerwiseInference.run(model, raw.inferenceGraph(), 2048, 8);
        LayerwiseInference.Outputs onDivided =
                LayerwiseInference.run(model, graph.inferenceGraph(), 2048, 8);
        Path out = tmp.resolve("normalization.jsonl");

        Path none = tmp.resolve("none");
        NpyExport.export(model, none, 8, "none", Map.of());
        assertEquals(0, predict(none, out).exit());
        assertPredicts(onRaw, out);
        assertEquals(0, predict(none, out, "--normalize-features", "true").exit());
        assertPredicts(onDivided, out);

        Path sum = tmp.resolve("sum");
        NpyExport.export(model, sum, 8, "sum", Map.of());
        assertEquals(0, predict(sum, out).exit());
        assertPredicts(onDivided, out);

        Path unrecorded = tmp.resolve("unrecorded");
        NpyExport.export(model, unrecorded, 8, Map.of());
        assertEquals(0, predict(unrecorded, out).exit());
        assertPredicts(onDivided, out);

        ObjectNode manifest = (ObjectNode) JSON.readTree(sum.resolve(NpyExport.MANIFEST).toFile());
        ((ObjectNode) manifest.get("config")).put(NpyExport.FEATURE_NORMALIZATION, "auto");
        JSON.writeValue(sum.resolve(NpyExport.MANIFEST).toFile(), manifest);
        Run bad = predict(sum, out);
        assertEquals(CommandLine.ExitCode.USAGE, bad.exit());
        assertTrue(bad.err().contains("featureNormalization must be"), bad.err());
    }

    private static Run predict(Path dir, Path out, String... more) {
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "predict",
                                "--model",
                                dir.toString(),
                                "--dataset",
                                CORA.toString(),
                                "--out",
                                out.toString()));
        args.addAll(List.of(more));
        return run(args.toArray(String[]::new));
    }

    private static void assertPredicts(LayerwiseInference.Outputs expected, Path out)
            throws Exception {
        int classes = model.config().numClasses();
        List<String> lines = Files.readAllLines(out);
        assertEquals(graph.numVertices(), lines.size());
        for (int v = 0; v < lines.size(); v++) {
            JsonNode probs = JSON.readTree(lines.get(v)).get("probs");
            float[] want = ClassProbabilities.softmax(expected.logits(), v, classes);
            for (int c = 0; c < classes; c++) {
                assertEquals(want[c], probs.get(c).asDouble(), 1e-6, "vertex " + v);
            }
        }
    }

    /** The OGB layout of Cora (one row per undirected edge) predicts as the bundled folder. */
    @Test
    void readsOtherDatasetFormats() throws Exception {
        Path out = tmp.resolve("ogb.jsonl");
        Path ogb = Path.of("..", "tools", "src", "test", "resources", "formats", "cora-ogb");
        Run r =
                run(
                        "predict",
                        "--model",
                        export(model, "model").toString(),
                        "--dataset",
                        ogb.toString(),
                        "--format",
                        "ogb",
                        "--add-inverse-edges",
                        "--out",
                        out.toString());
        assertEquals(0, r.exit(), r.err());
        assertPredicts(LayerwiseInference.run(model, graph.inferenceGraph(), 2048), out);
        r =
                run(
                        "predict",
                        "--model",
                        export(model, "model").toString(),
                        "--dataset",
                        ogb.toString(),
                        "--format",
                        "npz",
                        "--out",
                        out.toString());
        assertEquals(CommandLine.ExitCode.USAGE, r.exit(), r.out());
        assertTrue(r.err().contains("is not in the npz format"), r.err());
    }

    @Test
    void withoutEmbeddingsLinesHaveTheJobFields() throws Exception {
        Path out = tmp.resolve("p.jsonl");
        Run r =
                run(
                        "predict",
                        "--model",
                        export(model, "model").toString(),
                        "--dataset",
                        CORA.toString(),
                        "--out",
                        out.toString(),
                        "--chunk",
                        "700",
                        "--normalize-features",
                        "true");
        assertEquals(0, r.exit(), r.err());
        assertEquals(
                List.of("id", "step", "label", "probs"),
                fieldNames(JSON.readTree(Files.readAllLines(out).get(0))));
    }

    @Test
    void wrongFeatureWidthIsAClearUsageError() throws Exception {
        ModelConfig wide =
                ModelConfig.builder()
                        .inFeatures(graph.featureDim + 1)
                        .numClasses(graph.numClasses)
                        .hidden(4)
                        .build();
        Path dir;
        try (SageModel m = new SageModel(wide)) {
            dir = export(m, "wide");
        }
        Path out = tmp.resolve("wide.jsonl");
        Run r =
                run(
                        "predict",
                        "--model",
                        dir.toString(),
                        "--dataset",
                        CORA.toString(),
                        "--out",
                        out.toString());
        assertEquals(CommandLine.ExitCode.USAGE, r.exit());
        assertTrue(
                r.err()
                        .startsWith(
                                "error: the model in "
                                        + dir
                                        + " takes 1434 features per vertex, the dataset "
                                        + CORA
                                        + " has 1433"),
                r.err());
        assertFalse(r.err().contains("\tat "), r.err());
        assertFalse(Files.exists(out));
    }

    @Test
    void missingFilesAreClearUsageErrors() throws Exception {
        Path dir = export(model, "model");
        Path bias = dir.resolve("layers.1.bias.npy");
        Files.delete(bias);
        Path out = tmp.resolve("missing.jsonl");
        Run r =
                run(
                        "predict",
                        "--model",
                        dir.toString(),
                        "--dataset",
                        CORA.toString(),
                        "--out",
                        out.toString());
        assertEquals(CommandLine.ExitCode.USAGE, r.exit());
        assertTrue(
                r.err().startsWith("error: missing tensor file ")
                        && r.err().contains("layers.1.bias.npy"),
                r.err());
        assertFalse(r.err().contains("\tat "), r.err());

        r =
                run(
                        "predict",
                        "--model",
                        tmp.resolve("none").toString(),
                        "--dataset",
                        CORA.toString(),
                        "--out",
                        out.toString());
        assertEquals(CommandLine.ExitCode.USAGE, r.exit());
        assertTrue(r.err().startsWith("error: no manifest.json in "), r.err());

        r = run("predict", "--dataset", CORA.toString(), "--out", out.toString());
        assertEquals(CommandLine.ExitCode.USAGE, r.exit());
        assertTrue(r.err().startsWith("Missing required option: '--model=DIR'"), r.err());

        r =
                run(
                        "predict",
                        "--model",
                        export(model, "again").toString(),
                        "--dataset",
                        tmp.resolve("none").toString(),
                        "--out",
                        out.toString());
        assertEquals(CommandLine.ExitCode.USAGE, r.exit());
        assertTrue(r.err().startsWith("error: dataset folder "), r.err());
        assertFalse(Files.exists(out));
    }

    @Test
    void helpDescribesTheOptions() {
        Run r = run("predict", "--help");
        assertEquals(0, r.exit());
        for (String flag :
                List.of(
                        "--model",
                        "--dataset",
                        "--out",
                        "--chunk",
                        "--eval-fanout",
                        "--normalize-features",
                        "--emit-embeddings",
                        "--format")) {
            assertTrue(r.out().contains(flag), r.out());
        }
        String help = r.out().replaceAll("\\s+", " ");
        assertTrue(
                help.contains("(default: 2048)")
                        && help.contains("default: the one the export records"),
                r.out());
    }

    private static List<String> fieldNames(JsonNode line) {
        List<String> names = new ArrayList<>();
        line.fieldNames().forEachRemaining(names::add);
        return names;
    }
}

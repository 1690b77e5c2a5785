package io.gnnstream.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gnnstream.operators.model.GcnNorm;
import io.gnnstream.operators.model.GnnModel;
import io.gnnstream.operators.model.ModelConfig;
import io.gnnstream.operators.model.ModelType;
import io.gnnstream.operators.model.NpyExport;
import io.gnnstream.tools.LocalKafkaBroker;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The export that PyG loads, against PyTorch and {@code torch_geometric} (the Python of {@code
 * -Dgnnstream.python}, profile {@code pyg}; it fails, never skips, without them): {@code train}
 * (one local broker, topics per case) trains each architecture briefly and exports it, {@code
 * predict} scores the dataset with the export, and {@code docs/load_in_pyg.py} loads the export's
 * {@code pyg/} folder into PyG's own classes and compares its full-neighbour inference with {@code
 * predict}'s probabilities (within 1e-4, same classes); {@code docs/predict_numpy.py} is compared
 * the same way for SAGE. Two datasets: the bundled Cora, and Cora made like CiteSeer (isolated
 * vertices, some of them with all-zero features, ids after a gap, a hub with more in-neighbours
 * than {@code --eval-fanout 8}, which many of Cora's vertices have too). GAT runs with the job's
 * one output head on Cora (a stack of {@code GATConv} layers in PyG) and with as many as hidden
 * heads on the other (PyG's {@code GAT}). GCN with {@code --gcn-norm sym} is exported untrained
 * ({@code DemoPredictionsITCase} compares the job's sym rounds with {@code predict}).
 */
@Tag("pyg")
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class PygRoundTripITCase {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Path CORA = ROOT.resolve("data").resolve("cora");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern MAX_DIFF =
            Pattern.compile("max \\|probs difference\\| ([0-9.eE+-]+)");

    @TempDir static Path shared;
    private static Path python;
    private static Path citeseerLike;
    private static LocalKafkaBroker broker;

    @BeforeAll
    static void pythonWithPygAndTheSecondDataset() throws Exception {
        String property = System.getProperty("gnnstream.python", "").trim();
        if (property.isEmpty() || property.startsWith("${")) {
            fail(
                    "-Dgnnstream.python=PATH (a Python with torch and torch_geometric) is required"
                            + " by the pyg profile");
        }
        python = Path.of(property);
        run(
                List.of(
                        python.toString(),
                        "-c",
                        "import torch, torch_geometric;"
                                + " print('torch', torch.__version__,"
                                + " 'torch_geometric', torch_geometric.__version__)"));
        citeseerLike = citeseerLike(shared.resolve("citeseer-like"));
        broker = LocalKafkaBroker.builder().workDir(shared.resolve("kafka")).port(0).start();
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (broker != null) {
            broker.close();
        }
    }

    @ParameterizedTest(name = "{0} on {1}")
    @CsvSource({
        "sage, cora",
        "gcn, cora",
        "gat, cora",
        "sage, citeseer-like",
        "gcn, citeseer-like",
        "gat, citeseer-like"
    })
    void pygReproducesPredictOnTheTrainedExport(String modelType, String dataset, @TempDir Path dir)
            throws Exception {
        boolean cora = dataset.equals("cora");
        Path data = cora ? CORA : citeseerLike;
        Path model = dir.resolve("model");
        Path offline = dir.resolve("offline.jsonl");
        List<String> more =
                new ArrayList<>(
                        List.of(
                                "--model",
                                modelType,
                                "--num-features",
                                "1433",
                                "--min-vertices",
                                cora ? "2708" : "2728"));
        if (!cora) {
            more.addAll(List.of("--eval-fanout", "8"));
        }
        if (modelType.equals("gat") && !cora) {
            // PyG's GAT class (as many output heads as hidden ones); the default one output head
            // on Cora is a stack of GATConv layers.
            more.addAll(List.of("--heads", "2", "--out-heads", "2"));
        }
        String prefix = modelType + "-" + dataset;
        TopicNormalizationITCase.load(broker.bootstrapServers(), prefix, data);
        TopicNormalizationITCase.train(
                broker.bootstrapServers(), prefix, dir, model, 20, more.toArray(new String[0]));
        DemoPredictionsITCase.predict(model, data, offline);
        compare("load_in_pyg.py", model, data, offline);
        if (modelType.equals("sage")) {
            compare("predict_numpy.py", model, data, offline);
        }
    }

    @Test
    void pygReproducesPredictOnSymmetricGcn(@TempDir Path dir) throws Exception {
        ModelConfig sym =
                ModelConfig.builder()
                        .modelType(ModelType.GCN)
                        .inFeatures(1433)
                        .hidden(16)
                        .numClasses(7)
                        .seed(11)
                        .build()
                        .withGcnNorm(GcnNorm.SYM);
        Path model = dir.resolve("model");
        try (GnnModel fresh = GnnModel.create(sym)) {
            // Raw features: the untrained model's probabilities then differ enough between classes
            // for a wrong edge weight to show (here by about 1e-2).
            NpyExport.export(fresh, model, 8, "none", Map.of());
        }
        Path offline = dir.resolve("offline.jsonl");
        DemoPredictionsITCase.predict(model, citeseerLike, offline);
        compare("load_in_pyg.py", model, citeseerLike, offline);
    }

    /** Runs {@code docs/<script> --compare} and checks its largest difference. */
    private static void compare(String script, Path model, Path data, Path predictions)
            throws Exception {
        String out =
                run(
                        List.of(
                                python.toString(),
                                ROOT.resolve("docs").resolve(script).toString(),
                                "--model",
                                model.toString(),
                                "--dataset",
                                data.toString(),
                                "--compare",
                                predictions.toString()));
        Matcher m = MAX_DIFF.matcher(out);
        assertTrue(m.find(), script + " printed no difference:\n" + out);
        double diff = Double.parseDouble(m.group(1));
        System.out.println(script + " on " + data.getFileName() + ": max difference " + diff);
        assertTrue(diff <= 1e-4, script + ": largest difference " + diff + "\n" + out);
    }

    /** Runs {@code command} in the project root; fails unless it exits 0; returns its output. */
    private static String run(List<String> command) throws IOException, InterruptedException {
        Process p =
                new ProcessBuilder(command)
                        .directory(ROOT.toFile())
                        .redirectErrorStream(true)
                        .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(2, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            fail(String.join(" ", command) + " ran past 2 minutes:\n" + out);
        }
        System.out.print(out);
        assertEquals(0, p.exitValue(), String.join(" ", command) + " failed:\n" + out);
        return out;
    }

    /**
     * Cora made like CiteSeer: the edges of every vertex with {@code id % 50 == 7} dropped
     * (isolated, and every other one of them with all-zero features, as CiteSeer's missing test
     * vertices), 20 isolated vertices with ids from 10,000 (copies of Cora's first rows, in the
     * test split), and vertex 0 the destination of 40 more edges.
     */
    private static Path citeseerLike(Path dir) throws IOException {
        Files.createDirectories(dir);
        List<String> nodes = new ArrayList<>();
        List<String> lines = Files.readAllLines(CORA.resolve("nodes.jsonl"));
        for (String line : lines) {
            if (line.isBlank()) {
                continue;
            }
            ObjectNode node = (ObjectNode) JSON.readTree(line);
            long id = node.path("id").asLong();
            if (id % 100 == 7) {
                ArrayNode features = (ArrayNode) node.get("features");
                for (int c = 0; c < features.size(); c++) {
                    features.set(c, 0);
                }
            }
            nodes.add(node.toString());
        }
        for (int k = 0; k < 20; k++) {
            ObjectNode node = (ObjectNode) JSON.readTree(lines.get(k));
            node.put("id", 10_000 + k);
            node.put("split", "test");
            nodes.add(node.toString());
        }
        List<String> edges = new ArrayList<>();
        for (String line : Files.readAllLines(CORA.resolve("edges.csv"))) {
            String[] e = line.split(",");
            if (e.length >= 2
                    && Long.parseLong(e[0].trim()) % 50 != 7
                    && Long.parseLong(e[1].trim()) % 50 != 7) {
                edges.add(line);
            }
        }
        int kept = edges.size();
        for (int u = 1000; edges.size() < kept + 40; u++) {
            if (u % 50 != 7 && !edges.contains(u + ",0")) {
                edges.add(u + ",0");
            }
        }
        Files.write(dir.resolve("nodes.jsonl"), nodes);
        Files.write(dir.resolve("edges.csv"), edges);
        return dir;
    }
}

package io.gnnstream.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gnnstream.tools.DatasetInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The user's path end to end: {@code demo} (real local broker, MiniCluster, RocksDB) writes the
 * predictions topic's records to {@code --predictions-out} and exports the model; the final round's
 * predictions cover every vertex, and {@code predict} with the exported model reproduces them
 * offline. With {@code --eval-fanout 8} many vertices have more in-neighbours than the rounds
 * aggregate: {@code predict} takes the fanout from the export and the same neighbourhoods. Once per
 * architecture, and for GCN once more with {@code --gcn-norm sym}, whose rounds divide by every
 * row's degree under that fanout as its owner counts it (two GraphStore subtasks and two ranks, so
 * rows and degrees come from both owners): the rounds' layer-output store, the export and {@code
 * predict} each have their own path per model.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class DemoPredictionsITCase {

    private static final Path CORA = Path.of("..", "data", "cora");
    private static final ObjectMapper JSON = new ObjectMapper();

    @ParameterizedTest(name = "--model {0}")
    @ValueSource(
            strings = {"sage", "gcn", "gcn --gcn-norm sym --parallelism 2 --trainers 2", "gat"})
    void demoStreamsPredictionsOfEveryVertexAndPredictReproducesThem(
            String modelOptions, @TempDir Path dir) throws Exception {
        Path model = dir.resolve("model");
        Path streamed = dir.resolve("predictions.jsonl");
        Path offline = dir.resolve("offline.jsonl");
        List<String> options = List.of(modelOptions.split(" "));
        String modelType = options.get(0);
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "--eval-every",
                                "20",
                                "--eval-fanout",
                                "8",
                                "--predictions-out",
                                streamed.toString(),
                                "--model"));
        args.addAll(options);
        demo(CORA, dir, model, 40, args.toArray(new String[0]));

        DatasetInfo cora = DatasetInfo.scan(CORA);
        Map<Long, JsonNode> last = new HashMap<>();
        for (String line : Files.readAllLines(streamed)) {
            JsonNode p = JSON.readTree(line);
            if (p.path("step").asLong() == 40) {
                last.put(p.path("id").asLong(), p);
            }
        }
        assertEquals(cora.nodes(), last.size(), "final-round predictions of every vertex");

        predict(model, CORA, offline);
        assertTrue(
                Files.readString(model.resolve("manifest.json")).contains("\"" + modelType + "\""),
                "the export names the model " + modelType);
        JsonNode config = JSON.readTree(model.resolve("manifest.json").toFile()).path("config");
        assertEquals(
                "sum",
                config.path("featureNormalization").asText(),
                "Cora has no signed row: the scan's decision, recorded for predict");
        if (options.contains("sym")) {
            assertEquals("sym", config.path("gcnNorm").asText(), "predict normalises alike");
        }
        List<String> lines = Files.readAllLines(offline);
        assertEquals(cora.nodes(), lines.size());
        double maxDiff = 0;
        for (String line : lines) {
            JsonNode p = JSON.readTree(line);
            JsonNode job = last.get(p.path("id").asLong());
            assertEquals(40, p.path("step").asLong());
            double sum = 0;
            for (int c = 0; c < cora.numClasses(); c++) {
                double a = p.path("probs").path(c).asDouble();
                maxDiff = Math.max(maxDiff, Math.abs(a - job.path("probs").path(c).asDouble()));
                sum += a;
            }
            assertEquals(1.0, sum, 1e-4);
            int jobLabel = job.path("label").asInt();
            int label = p.path("label").asInt();
            // Equal classes, unless the two were tied to within float rounding.
            assertTrue(
                    jobLabel == label
                            || Math.abs(
                                            job.path("probs").path(jobLabel).asDouble()
                                                    - job.path("probs").path(label).asDouble())
                                    < 1e-4,
                    "vertex " + p.path("id"));
        }
        // Only the order of float sums over a vertex's neighbours differs (RocksDB slot order).
        assertTrue(maxDiff < 1e-4, "largest probability difference " + maxDiff);
    }

    /**
     * {@code --select best-val} with two ranks: the final line names the best validation round, the
     * export holds that round's parameters (its step and checksum), {@code predict} with the export
     * reproduces the predictions that round streamed, and the serving round after the final one
     * leaves the kept model's prediction as every vertex's latest on the predictions topic.
     */
    @Test
    void bestValExportsTheBestRoundAndItsPredictions(@TempDir Path dir) throws Exception {
        Path model = dir.resolve("model");
        Path streamed = dir.resolve("predictions.jsonl");
        Path metrics = dir.resolve("metrics.jsonl");
        Path offline = dir.resolve("offline.jsonl");
        int exit =
                GnnstreamCli.commandLine()
                        .execute(
                                "demo",
                                "--dataset",
                                CORA.toString(),
                                "--work-dir",
                                dir.resolve("work").toString(),
                                "--trainers",
                                "2",
                                "--max-steps",
                                "60",
                                "--eval-every",
                                "10",
                                "--lr",
                                "0.05",
                                "--select",
                                "best-val",
                                "--model-out",
                                model.toString(),
                                "--metrics-out",
                                metrics.toString(),
                                "--predictions-out",
                                streamed.toString());
        assertEquals(0, exit, "demo failed");
        List<String> lines = Files.readAllLines(metrics);
        JsonNode last = JSON.readTree(lines.get(lines.size() - 1));
        assertTrue(last.path("final").asBoolean(), last.toString());
        assertEquals("best-val", last.path("select").asText(), last.toString());
        long best = last.path("selected_step").asLong();
        double bestVal = -1;
        long bestStep = -1;
        for (String line : lines) {
            JsonNode l = JSON.readTree(line);
            if (l.has("val_acc")
                    && !l.path("final").asBoolean()
                    && l.path("val_acc").asDouble() > bestVal) {
                bestVal = l.path("val_acc").asDouble();
                bestStep = l.path("step").asLong();
            }
        }
        assertEquals(bestStep, best, "the round of the best validation accuracy (ties: earlier)");
        assertEquals(
                last.path("best_val_test_acc").asDouble(),
                last.path("selected_test_acc").asDouble());
        JsonNode manifest = JSON.readTree(model.resolve("manifest.json").toFile());
        assertEquals(best, manifest.path("step").asLong(), "the export is the best round's");
        assertEquals(
                last.path("selected_checksum").asText(),
                Long.toHexString(manifest.path("checksum").asLong()),
                "the export holds the parameters the best round evaluated");
        assertEquals(60, manifest.path("extra").path("last_step").asLong());

        assertEquals(best, last.path("served_step").asLong(), "the kept model serves");

        DatasetInfo cora = DatasetInfo.scan(CORA);
        Map<Long, JsonNode> round = new HashMap<>();
        Map<Long, JsonNode> latest = new HashMap<>();
        for (String line : Files.readAllLines(streamed)) {
            JsonNode p = JSON.readTree(line);
            if (p.path("step").asLong() == best) {
                round.put(p.path("id").asLong(), p);
            }
            latest.put(p.path("id").asLong(), p); // the topic's order per vertex
        }
        assertEquals(cora.nodes(), round.size(), "the best round's predictions of every vertex");
        assertEquals(cora.nodes(), latest.size(), "a prediction of every vertex");
        predict(model, CORA, offline);
        double maxDiff = 0;
        double latestDiff = 0;
        for (String line : Files.readAllLines(offline)) {
            JsonNode p = JSON.readTree(line);
            long id = p.path("id").asLong();
            assertEquals(best, p.path("step").asLong());
            maxDiff = Math.max(maxDiff, largestDifference(p, round.get(id), cora.numClasses()));
            assertEquals(61, latest.get(id).path("step").asLong(), "served by the serving round");
            latestDiff =
                    Math.max(latestDiff, largestDifference(p, latest.get(id), cora.numClasses()));
        }
        assertTrue(maxDiff < 1e-4, "largest probability difference " + maxDiff);
        assertTrue(
                latestDiff < 1e-4,
                "the latest prediction of every vertex is the kept model's; largest difference "
                        + latestDiff);
    }

    /**
     * Runs {@code demo} on {@code dataset} for {@code steps} steps in {@code dir/work}, exporting
     * the model to {@code model}; {@code more} options follow (e.g. {@code --model gat}).
     */
    static void demo(Path dataset, Path dir, Path model, int steps, String... more) {
        List<String> args = new ArrayList<>();
        args.addAll(
                List.of(
                        "demo",
                        "--dataset",
                        dataset.toString(),
                        "--work-dir",
                        dir.resolve("work").toString(),
                        "--max-steps",
                        String.valueOf(steps),
                        "--model-out",
                        model.toString()));
        args.addAll(List.of(more));
        assertEquals(
                0, GnnstreamCli.commandLine().execute(args.toArray(new String[0])), "demo failed");
    }

    /** The largest difference of two prediction records' probabilities over {@code classes}. */
    static double largestDifference(JsonNode a, JsonNode b, int classes) {
        double max = 0;
        for (int c = 0; c < classes; c++) {
            max =
                    Math.max(
                            max,
                            Math.abs(
                                    a.path("probs").path(c).asDouble()
                                            - b.path("probs").path(c).asDouble()));
        }
        return max;
    }

    /** Runs {@code predict} with the export {@code model} on {@code dataset} into {@code out}. */
    static void predict(Path model, Path dataset, Path out) {
        assertEquals(
                0,
                GnnstreamCli.commandLine()
                        .execute(
                                "predict",
                                "--model",
                                model.toString(),
                                "--dataset",
                                dataset.toString(),
                                "--out",
                                out.toString()),
                "predict failed");
    }
}

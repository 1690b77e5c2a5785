package io.gnnstream.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gnnstream.connectors.RowNormalization;
import io.gnnstream.tools.DatasetGraph;
import io.gnnstream.tools.LocalKafkaBroker;
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

/**
 * {@code train} on a node topic with {@code --normalize-features auto}: Cora's rows, of which the
 * first 300 are non-negative and every fourth later one has a negative feature. The job decides
 * once from the first {@code --normalize-decide-after 300} rows (divide), divides every row alike,
 * records that in the export, and {@code predict}, which reads it from the manifest, reproduces the
 * final round's predictions, although a scan of the whole folder would have decided the other way.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class TopicNormalizationITCase {

    private static final Path CORA = Path.of("..", "data", "cora");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int FIRST = 300;
    private static final int STEPS = 30;

    @Test
    void rowsBeforeAndAfterTheDecisionAreTreatedAlikeAndPredictAppliesIt(@TempDir Path dir)
            throws Exception {
        Path data = dir.resolve("data");
        Files.createDirectories(data);
        Files.copy(CORA.resolve("edges.csv"), data.resolve("edges.csv"));
        List<String> lines = new ArrayList<>();
        int i = 0;
        for (String line : Files.readAllLines(CORA.resolve("nodes.jsonl"))) {
            if (line.isBlank()) {
                continue;
            }
            ObjectNode node = (ObjectNode) JSON.readTree(line);
            if (i >= FIRST && i % 4 == 0) {
                ((ArrayNode) node.get("features")).set(0, -0.25);
            }
            lines.add(node.toString());
            i++;
        }
        Files.write(data.resolve("nodes.jsonl"), lines);
        assertEquals(
                RowNormalization.FALSE,
                DatasetGraph.load(data, RowNormalization.AUTO).normalization,
                "the whole folder's scan finds signed rows");

        Path model = dir.resolve("model");
        Path streamed = dir.resolve("predictions.jsonl");
        Path offline = dir.resolve("offline.jsonl");
        try (LocalKafkaBroker broker =
                LocalKafkaBroker.builder().workDir(dir.resolve("kafka")).port(0).start()) {
            String servers = broker.bootstrapServers();
            load(servers, "norm", data);
            train(
                    servers,
                    "norm",
                    dir,
                    model,
                    STEPS,
                    "--num-features",
                    String.valueOf(featureDim(lines.get(0))),
                    "--min-vertices",
                    String.valueOf(lines.size()),
                    "--eval-fanout",
                    "8",
                    "--normalize-decide-after",
                    String.valueOf(FIRST),
                    "--predictions-out",
                    streamed.toString());
        }
        JsonNode manifest = JSON.readTree(model.resolve("manifest.json").toFile());
        assertEquals(
                "sum",
                manifest.path("config").path("featureNormalization").asText(),
                "decided from the first rows, none of them signed");

        assertEquals(
                0,
                GnnstreamCli.commandLine()
                        .execute(
                                "predict",
                                "--model",
                                model.toString(),
                                "--dataset",
                                data.toString(),
                                "--out",
                                offline.toString()),
                "predict failed");
        Map<Long, JsonNode> job = new HashMap<>();
        for (String line : Files.readAllLines(streamed)) {
            JsonNode p = JSON.readTree(line);
            if (p.path("step").asLong() == STEPS) {
                job.put(p.path("id").asLong(), p);
            }
        }
        assertEquals(lines.size(), job.size(), "final-round predictions of every vertex");
        double maxDiff = 0;
        for (String line : Files.readAllLines(offline)) {
            JsonNode p = JSON.readTree(line);
            maxDiff =
                    Math.max(
                            maxDiff,
                            DemoPredictionsITCase.largestDifference(
                                    p, job.get(p.path("id").asLong()), 7));
        }
        assertTrue(maxDiff < 1e-4, "largest probability difference " + maxDiff);
    }

    private static int featureDim(String line) throws Exception {
        return JSON.readTree(line).path("features").size();
    }

    /**
     * Produces the dataset folder {@code data} into the topics of {@code prefix}, one partition.
     */
    static void load(String servers, String prefix, Path data) {
        assertEquals(
                0,
                GnnstreamCli.commandLine()
                        .execute(
                                "load",
                                "--dataset",
                                data.toString(),
                                "--bootstrap-servers",
                                servers,
                                "--topic-prefix",
                                prefix,
                                "--topic-partitions",
                                "1"),
                "load failed");
    }

    /**
     * Runs {@code train} on the topics of {@code prefix} for {@code steps} steps (7 classes, one
     * round at the end, 4 minutes at most) in {@code dir/work}, exporting the model to {@code
     * model}; {@code more} options follow ({@code --num-features} and {@code --min-vertices} among
     * them).
     */
    static void train(
            String servers, String prefix, Path dir, Path model, int steps, String... more) {
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "train",
                                "--bootstrap-servers",
                                servers,
                                "--topic-prefix",
                                prefix,
                                "--work-dir",
                                dir.resolve("work").toString(),
                                "--num-classes",
                                "7",
                                "--max-steps",
                                String.valueOf(steps),
                                "--eval-every",
                                String.valueOf(steps),
                                "--model-out",
                                model.toString(),
                                "--timeout",
                                "4m"));
        args.addAll(List.of(more));
        assertEquals(
                0, GnnstreamCli.commandLine().execute(args.toArray(new String[0])), "train failed");
    }
}

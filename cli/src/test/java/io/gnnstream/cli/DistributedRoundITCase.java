package io.gnnstream.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gnnstream.tools.SyntheticGraph;
import io.gnnstream.tools.SyntheticGraphOptions;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An inference round over 10^5 vertices with 512 hidden units at two trainer ranks and parallelism
 * 2, in a forked {@code demo} JVM whose 400 MB heap cannot hold every vertex's hidden layer (200 MB
 * per layer, plus the copy a growing table makes) besides the job (about 200 MB live): the rounds
 * keep it in the GraphStore's RocksDB state, and a rank holds the blocks in flight (two of 512
 * destinations, on a graph without large hubs, whose blocks would hold their many sources). The
 * GraphStore fails once while storing the round's layer outputs, so the job restores from a
 * checkpoint in the middle of the training or the round, whose outputs on the feedback edge are
 * lost. The final round must still give every vertex the prediction that the exported model's
 * offline layer-wise inference ({@code predict}) gives, also to the vertices of more than {@code
 * --eval-fanout 8} in-neighbours, which aggregate the same eight in both.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class DistributedRoundITCase {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int N = 100_000;

    @Test
    void aRoundAtTwoRanksFitsASmallHeapAndSurvivesARestore(@TempDir Path dir) throws Exception {
        Path data = dir.resolve("graph");
        new SyntheticGraph(
                        SyntheticGraphOptions.builder()
                                .vertices(N)
                                .avgDegree(5)
                                .features(16)
                                .classes(4)
                                .degreeExponent(3.0)
                                .seed(3)
                                .build())
                .progress(false)
                .write(data);
        Path work = dir.resolve("work");
        Path model = dir.resolve("model");
        Path streamed = dir.resolve("predictions.jsonl");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(
                ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                        .filter(a -> a.startsWith("-D") || a.startsWith("--add-opens"))
                        .collect(Collectors.toList()));
        command.addAll(
                List.of(
                        "-Xmx400m",
                        "-XX:+UseParallelGC",
                        "-cp",
                        System.getProperty("java.class.path"),
                        GnnstreamCli.class.getName(),
                        "demo",
                        "--dataset",
                        data.toString(),
                        "--work-dir",
                        work.toString(),
                        "--max-steps",
                        "30",
                        "--eval-every",
                        "30",
                        "--hidden",
                        "512",
                        "--trainers",
                        "2",
                        "--parallelism",
                        "2",
                        "--feature-cache",
                        "16mb",
                        "--record-cache",
                        "8mb",
                        "--adjacency-cache",
                        "16mb",
                        "--checkpoint-interval",
                        "1s",
                        "--prefetch",
                        "2",
                        "--eval-batch-size",
                        "512",
                        "--eval-fanout",
                        "8",
                        "--inject-fault",
                        "layer-store:1:40",
                        "--fault-marker",
                        dir.resolve("fault-marker").toString(),
                        "--model-out",
                        model.toString(),
                        "--predictions-out",
                        streamed.toString()));
        Path out = dir.resolve("demo.out");
        Process demo =
                new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(out.toFile())
                        .start();
        try {
            assertTrue(demo.waitFor(8, TimeUnit.MINUTES), "demo did not end: " + tail(out));
            assertEquals(0, demo.exitValue(), "demo failed:\n" + tail(out));
        } finally {
            demo.descendants().forEach(ProcessHandle::destroyForcibly);
            demo.destroyForcibly();
        }
        String output = Files.readString(out, StandardCharsets.UTF_8);
        assertTrue(
                Files.exists(dir.resolve("fault-marker")),
                "the injected failure happened:\n" + tail(out));
        assertTrue(
                output.contains("Evaluation round of step 30") && output.contains("over 2 ranks"),
                "the round was spread over both ranks:\n" + tail(out));

        Map<Long, JsonNode> last = new HashMap<>();
        for (String line : Files.readAllLines(streamed)) {
            JsonNode p = JSON.readTree(line);
            if (p.path("step").asLong() == 30) {
                last.put(p.path("id").asLong(), p);
            }
        }
        assertEquals(N, last.size(), "final-round predictions of every vertex");

        Path offline = dir.resolve("offline.jsonl");
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
        double maxDiff = 0;
        int differing = 0;
        for (String line : Files.readAllLines(offline)) {
            JsonNode p = JSON.readTree(line);
            JsonNode job = last.get(p.path("id").asLong());
            for (int c = 0; c < 4; c++) {
                maxDiff =
                        Math.max(
                                maxDiff,
                                Math.abs(
                                        p.path("probs").path(c).asDouble()
                                                - job.path("probs").path(c).asDouble()));
            }
            differing += p.path("label").asInt() != job.path("label").asInt() ? 1 : 0;
        }
        // Only the order of float sums over a vertex's neighbours differs (RocksDB slot order).
        assertTrue(maxDiff < 1e-3, "largest probability difference " + maxDiff);
        assertTrue(
                differing <= N / 10_000, differing + " vertices predicted differently (ties only)");
    }

    private static String tail(Path file) throws Exception {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
    }
}

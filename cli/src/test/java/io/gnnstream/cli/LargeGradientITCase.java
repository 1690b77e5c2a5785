package io.gnnstream.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gnnstream.tools.Directories;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two ranks whose all-reduce carries far more than the loop's network buffers hold (GraphSAGE of
 * hidden 512 on Cora's 1,433 features: 5.9 MB of gradient per rank and step) train to the end (real
 * broker, MiniCluster, RocksDB): the all-reduce's order of chunks and sums keeps the loop free of
 * deadlock (docs/design.md, "All-reduce").
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class LargeGradientITCase {

    private static final Path WORK = Path.of("target", "it-large-gradient").toAbsolutePath();
    private static final Path CORA = Path.of("..", "data", "cora");

    @Test
    void twoRanksWithAGradientLargerThanTheLoopsBuffersTrainToTheEnd() throws Exception {
        Directories.deleteRecursively(WORK);
        Path metrics = WORK.resolve("metrics.jsonl");
        assertEquals(
                0,
                GnnstreamCli.commandLine()
                        .execute(
                                "demo",
                                "--dataset",
                                CORA.toString(),
                                "--work-dir",
                                WORK.resolve("demo").toString(),
                                "--trainers",
                                "2",
                                "--hidden",
                                "512",
                                "--max-steps",
                                "20",
                                "--eval-every",
                                "20",
                                "--metrics-out",
                                metrics.toString()));
        List<String> lines = Files.readAllLines(metrics);
        JsonNode last = new ObjectMapper().readTree(lines.get(lines.size() - 1));
        assertTrue(last.path("final").asBoolean(), last.toString());
        assertEquals(20, last.path("step").asLong());
        assertTrue(last.path("replicas_identical").asBoolean(), last.toString());
    }
}

package io.gnnstream.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gnnstream.jobs.internal.Directories;
import io.gnnstream.state.PartitionMap;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code partition} writes a Gelly map of Cora with a much smaller edge cut than hash, and {@code demo}
 * with {@code --partition-map} and halo replicas (real broker, MiniCluster, RocksDB) learns exactly
 * what it learns with hash partitioning: where a vertex lives changes neither its samples nor the
 * model.
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class PartitionedTrainingITCase {

    private static final Path WORK = Path.of("target", "it-partition").toAbsolutePath();
    private static final Path CORA = Path.of("..", "data", "cora");
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void trainsTheSameModelWithAGellyMapAsWithHash() throws Exception {
        Directories.deleteRecursively(WORK);
        Path map = WORK.resolve("cora-8.map");
        Path figures = WORK.resolve("cora-8.json");
        assertEquals(0, GnnstreamCli.commandLine().execute("partition", "--dataset", CORA.toString(), "--partitions", "8",
                "--out", map.toString(), "--json", figures.toString(), "--parallelism", "1"));
        JsonNode quality = JSON.readTree(figures.toFile());
        assertTrue(quality.path("edge_cut").asDouble() <= 0.5 * quality.path("hash_edge_cut").asDouble(), quality.toString());
        assertTrue(quality.path("balance").asDouble() <= 1.05, quality.toString());
        try (InputStream in = Files.newInputStream(map)) {
            assertEquals(2708, PartitionMap.read(in).size());
        }

        JsonNode hash = demo("hash");
        JsonNode gelly = demo("gelly", "--partition-map", map.toString(), "--halo", "features");
        assertEquals(hash.path("checksum").asText(), gelly.path("checksum").asText(), "same model: " + hash + " vs " + gelly);
        assertEquals(hash.path("test_acc").asDouble(), gelly.path("test_acc").asDouble());
        assertTrue(gelly.path("test_acc").asDouble() >= 0.75, gelly.toString());
    }

    private static JsonNode demo(String name, String... extra) throws Exception {
        Path metrics = WORK.resolve(name + "-metrics.jsonl");
        List<String> args = new java.util.ArrayList<>(List.of("demo", "--dataset", CORA.toString(), "--work-dir",
                WORK.resolve(name).toString(), "--partitions", "8", "--parallelism", "2", "--max-steps", "100",
                "--eval-every", "100", "--metrics-out", metrics.toString()));
        args.addAll(List.of(extra));
        assertEquals(0, GnnstreamCli.commandLine().execute(args.toArray(String[]::new)), "demo " + name);
        List<String> lines = Files.readAllLines(metrics);
        return JSON.readTree(lines.get(lines.size() - 1));
    }
}

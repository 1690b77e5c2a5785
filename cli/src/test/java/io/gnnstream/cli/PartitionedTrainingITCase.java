package io.gnnstream.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gnnstream.state.PartitionMap;
import io.gnnstream.tools.Directories;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code partition} writes a Gelly map of Cora with a much smaller edge cut than hash, and {@code
 * demo} with {@code --partition-map} and its defaults there, halo replicas and local batches (real
 * broker, MiniCluster, RocksDB), learns exactly what it learns with hash partitioning without
 * replicas: where a vertex lives changes neither its samples nor the model. Two ranks learn as well
 * with the map and send at most half the bytes across sites that two ranks with hash partitioning
 * send.
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
        assertEquals(
                0,
                GnnstreamCli.commandLine()
                        .execute(
                                "partition",
                                "--dataset",
                                CORA.toString(),
                                "--partitions",
                                "8",
                                "--out",
                                map.toString(),
                                "--json",
                                figures.toString(),
                                "--parallelism",
                                "1"));
        JsonNode quality = JSON.readTree(figures.toFile());
        assertTrue(
                quality.path("edge_cut").asDouble()
                        <= 0.5 * quality.path("hash_edge_cut").asDouble(),
                quality.toString());
        assertTrue(quality.path("balance").asDouble() <= 1.05, quality.toString());
        try (InputStream in = Files.newInputStream(map)) {
            assertEquals(2708, PartitionMap.read(in).size());
        }

        // Hash without halo replicas against the defaults with a map: halo replicas and local
        // batches.
        JsonNode hash = demo("hash", "--halo", "none");
        JsonNode gelly = demo("gelly", "--partition-map", map.toString());
        assertEquals(
                hash.path("checksum").asText(),
                gelly.path("checksum").asText(),
                "same model: " + hash + " vs " + gelly);
        assertEquals(hash.path("test_acc").asDouble(), gelly.path("test_acc").asDouble());
        assertTrue(gelly.path("test_acc").asDouble() >= 0.75, gelly.toString());
        JsonNode hashLive = lastTrainingLine("hash");
        JsonNode gellyLive = lastTrainingLine("gelly");
        assertTrue(
                gellyLive.path("edge_cut").asDouble() <= 0.5 * hashLive.path("edge_cut").asDouble(),
                "the live edge cut follows the map: " + gellyLive + " vs " + hashLive);
        assertTrue(gellyLive.path("replication_factor").asDouble() > 0, gellyLive.toString());
        assertEquals(
                0.0,
                hashLive.path("replication_factor").asDouble(),
                "no replicas without halo: " + hashLive);

        JsonNode hashRanks = demo("hash-2-ranks", "--trainers", "2", "--halo", "none");
        JsonNode local = demo("local", "--trainers", "2", "--partition-map", map.toString());
        assertTrue(
                hashRanks.path("replicas_identical").asBoolean()
                        && local.path("replicas_identical").asBoolean());
        assertTrue(local.path("test_acc").asDouble() >= 0.75, local.toString());
        double hashRemote = meanRemoteBytes("hash-2-ranks");
        double localRemote = meanRemoteBytes("local");
        assertTrue(
                hashRemote > 0 && localRemote <= 0.5 * hashRemote,
                "remote bytes per batch: local " + localRemote + ", hash " + hashRemote);
    }

    private static JsonNode lastTrainingLine(String name) throws Exception {
        List<JsonNode> lines =
                lines(name).stream().filter(l -> l.has("remote_bytes_per_batch")).toList();
        return lines.get(lines.size() - 1);
    }

    private static double meanRemoteBytes(String name) throws Exception {
        return lines(name).stream()
                .filter(l -> l.has("remote_bytes_per_batch"))
                .mapToDouble(l -> l.path("remote_bytes_per_batch").asDouble())
                .average()
                .orElseThrow();
    }

    private static List<JsonNode> lines(String name) throws Exception {
        List<JsonNode> out = new java.util.ArrayList<>();
        for (String line : Files.readAllLines(WORK.resolve(name + "-metrics.jsonl"))) {
            out.add(JSON.readTree(line));
        }
        return out;
    }

    private static JsonNode demo(String name, String... extra) throws Exception {
        Path metrics = WORK.resolve(name + "-metrics.jsonl");
        List<String> args =
                new java.util.ArrayList<>(
                        List.of(
                                "demo",
                                "--dataset",
                                CORA.toString(),
                                "--work-dir",
                                WORK.resolve(name).toString(),
                                "--partitions",
                                "8",
                                "--parallelism",
                                "2",
                                "--max-steps",
                                "100",
                                "--eval-every",
                                "100",
                                "--metrics-out",
                                metrics.toString()));
        args.addAll(List.of(extra));
        assertEquals(
                0, GnnstreamCli.commandLine().execute(args.toArray(String[]::new)), "demo " + name);
        List<String> lines = Files.readAllLines(metrics);
        return JSON.readTree(lines.get(lines.size() - 1));
    }
}

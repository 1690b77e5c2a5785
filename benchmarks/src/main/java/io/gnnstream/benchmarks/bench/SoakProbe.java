package io.gnnstream.benchmarks.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gnnstream.cluster.ClusterRest;
import io.gnnstream.connectors.KafkaIO;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.api.common.JobID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * What the soak reads of a running job and its processes: checkpoint counts and sizes and restarts
 * (Flink's REST API), the job's gauges and RocksDB's native metrics (REST, summed over the
 * subtasks), how far the Kafka sources are behind (their {@code pendingRecords} and the timestamp
 * of the first record not yet read), and a TaskManager's old generation after a full collection
 * (one {@code jcmd <pid> -f} that runs {@code GC.run}, then {@code GC.heap_info}, whose old
 * generation's used bytes count).
 */
final class SoakProbe implements AutoCloseable {

    private static final Pattern OLD_GEN =
            Pattern.compile(
                    "(?:ParOldGen|PSOldGen|tenured"
                            + " generation)\\s+total\\s+\\d+K,\\s+used\\s+(\\d+)K");
    private static final Pattern G1_USED =
            Pattern.compile("garbage-first heap\\s+total\\s+\\d+K,\\s+used\\s+(\\d+)K");

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ClusterRest rest;
    private final JobID job;
    private final KafkaConsumer<String, String> reader;
    private final Map<String, List<String>> metricIds = new HashMap<>();

    SoakProbe(ClusterRest rest, JobID job, String bootstrap) {
        this.rest = rest;
        this.job = job;
        this.reader = KafkaIO.stringConsumer(bootstrap, 10_000);
    }

    /**
     * Completed and failed checkpoints; the mean full state size of the checkpoints completed after
     * the one of id {@code after} (those in the history, at least the latest), and the latest's id.
     */
    record Checkpoints(long completed, long failed, long stateBytes, long latestId) {}

    Checkpoints checkpoints(long after) throws IOException {
        JsonNode stats = get("/jobs/" + job + "/checkpoints");
        JsonNode latest = stats.path("latest").path("completed");
        long sum = 0;
        int n = 0;
        for (JsonNode c : stats.path("history")) {
            if ("COMPLETED".equals(c.path("status").asText()) && c.path("id").asLong() > after) {
                sum += c.path("state_size").asLong();
                n++;
            }
        }
        return new Checkpoints(
                stats.path("counts").path("completed").asLong(),
                stats.path("counts").path("failed").asLong(),
                n > 0 ? sum / n : latest.path("state_size").asLong(0),
                latest.path("id").asLong(after));
    }

    /** The ids and messages of the failed checkpoints in the job's checkpoint history. */
    List<String> checkpointFailures() throws IOException {
        List<String> out = new ArrayList<>();
        for (JsonNode c : get("/jobs/" + job + "/checkpoints").path("history")) {
            if ("FAILED".equals(c.path("status").asText())) {
                out.add(c.path("id").asText() + ": " + c.path("failure_message").asText());
            }
        }
        return out;
    }

    /** The job's restarts: its {@code numRestarts}, or the entries of its exception history. */
    long restarts() throws IOException {
        long restarts = 0;
        for (JsonNode m : get("/jobs/" + job + "/metrics?get=numRestarts")) {
            restarts = Math.max(restarts, m.path("value").asLong());
        }
        JsonNode history = get("/jobs/" + job + "/exceptions").path("exceptionHistory");
        return Math.max(restarts, history.path("entries").size());
    }

    /**
     * The values of every subtask metric whose name ends with {@code suffix}, by metric id ({@code
     * <subtask>.<operator>...}); {@code rediscover} lists the metrics again (RocksDB's appear as
     * the state is created).
     */
    Map<String, Double> metrics(String suffix, boolean rediscover) throws IOException {
        List<String> ids = metricIds.get(suffix);
        if (ids == null || ids.isEmpty() || rediscover) {
            ids = new ArrayList<>();
            for (JsonNode v : get("/jobs/" + job).path("vertices")) {
                String vertex = v.path("id").asText();
                for (JsonNode m : get("/jobs/" + job + "/vertices/" + vertex + "/metrics")) {
                    String id = m.path("id").asText();
                    if (id.endsWith(suffix)) {
                        ids.add(vertex + "\n" + id);
                    }
                }
            }
            metricIds.put(suffix, ids);
        }
        Map<String, List<String>> byVertex = new HashMap<>();
        for (String id : ids) {
            int nl = id.indexOf('\n');
            byVertex.computeIfAbsent(id.substring(0, nl), k -> new ArrayList<>())
                    .add(id.substring(nl + 1));
        }
        Map<String, Double> values = new HashMap<>();
        for (Map.Entry<String, List<String>> e : byVertex.entrySet()) {
            List<String> names = e.getValue();
            for (int from = 0; from < names.size(); from += 40) {
                List<String> chunk = names.subList(from, Math.min(names.size(), from + 40));
                String get =
                        URLEncoder.encode(String.join(",", chunk), StandardCharsets.UTF_8)
                                .replace("+", "%20");
                for (JsonNode m :
                        get("/jobs/" + job + "/vertices/" + e.getKey() + "/metrics?get=" + get)) {
                    String value = m.path("value").asText("");
                    if (!value.isEmpty()) {
                        try {
                            values.put(m.path("id").asText(), Double.parseDouble(value));
                        } catch (NumberFormatException notANumber) {
                            // a gauge without a value yet
                        }
                    }
                }
            }
        }
        return values;
    }

    /** The sum of the metrics ending with {@code suffix}. */
    double sum(String suffix, boolean rediscover) throws IOException {
        return metrics(suffix, rediscover).values().stream().mapToDouble(Double::doubleValue).sum();
    }

    /**
     * RocksDB's memory: its memtables and table readers summed over the column families, and its
     * block cache, which the column families of one slot share, counted once per subtask index.
     */
    long rocksDbBytes() throws IOException {
        double memtables = sum("size-all-mem-tables", true);
        double readers = sum("estimate-table-readers-mem", true);
        Map<String, Double> perSlot = new HashMap<>();
        metrics("block-cache-usage", true)
                .forEach((id, v) -> perSlot.merge(id.substring(0, id.indexOf('.')), v, Math::max));
        double cache = perSlot.values().stream().mapToDouble(Double::doubleValue).sum();
        return Math.round(memtables + readers + cache);
    }

    /**
     * How far the source of {@code topic} (one partition) is behind, in seconds: 0 when it has read
     * everything, else the age of the first record it has not read ({@code pendingRecords} before
     * the end).
     */
    double lagSeconds(String topic, String sourceName) throws IOException {
        double pending = 0;
        for (Map.Entry<String, Double> m : metrics(".pendingRecords", false).entrySet()) {
            if (m.getKey().contains(sourceName)) {
                pending += m.getValue();
            }
        }
        if (pending < 1) {
            return 0;
        }
        TopicPartition p = new TopicPartition(topic, 0);
        reader.assign(List.of(p));
        long end = reader.endOffsets(List.of(p)).get(p);
        reader.seek(p, Math.max(0, end - (long) pending));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            for (ConsumerRecord<String, String> r : reader.poll(Duration.ofMillis(500))) {
                return Math.max(0, (System.currentTimeMillis() - r.timestamp()) / 1000.0);
            }
        }
        throw new IOException("no record at offset " + (end - (long) pending) + " of " + topic);
    }

    /**
     * The old generation's used bytes of the JVM {@code pid} right after a full collection (the
     * whole heap's for G1, which has no old-generation line).
     */
    static long oldGenerationAfterFullGc(long pid) throws IOException, InterruptedException {
        return oldGeneration(jcmd(pid, "-f", fullGcThenHeapInfo().toString()));
    }

    /** {@link #oldGenerationAfterFullGc} of each JVM in {@code pids}. */
    static List<Long> oldGenerationsAfterFullGc(List<Long> pids)
            throws IOException, InterruptedException {
        List<Long> out = new ArrayList<>();
        for (long pid : pids) {
            out.add(oldGenerationAfterFullGc(pid));
        }
        return out;
    }

    private static Path commands;

    /** A file of jcmd commands: a full collection, then the heap's figures. */
    private static synchronized Path fullGcThenHeapInfo() throws IOException {
        if (commands == null) {
            Path p = Files.createTempFile("soak-jcmd-", ".txt");
            p.toFile().deleteOnExit();
            Files.writeString(p, "GC.run\nGC.heap_info\n");
            commands = p;
        }
        return commands;
    }

    /** The old generation's used bytes in the text of {@code jcmd <pid> GC.heap_info}. */
    static long oldGeneration(String heapInfo) throws IOException {
        Matcher m = OLD_GEN.matcher(heapInfo);
        if (m.find() || (m = G1_USED.matcher(heapInfo)).find()) {
            return Long.parseLong(m.group(1)) * 1024;
        }
        throw new IOException("no old generation in GC.heap_info: " + heapInfo);
    }

    static String jcmd(long pid, String... command) throws IOException, InterruptedException {
        List<String> line = new ArrayList<>(List.of("jcmd", Long.toString(pid)));
        line.addAll(List.of(command));
        Process p = new ProcessBuilder(line).redirectErrorStream(true).start();
        try {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(2, TimeUnit.MINUTES) || p.exitValue() != 0) {
                throw new IOException(
                        "jcmd " + pid + " " + String.join(" ", command) + " failed: " + out);
            }
            return out;
        } finally {
            p.destroyForcibly();
        }
    }

    private JsonNode get(String path) throws IOException {
        HttpRequest request =
                HttpRequest.newBuilder(URI.create(rest.webUi() + path))
                        .timeout(Duration.ofSeconds(30))
                        .GET()
                        .build();
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        if (response.statusCode() != 200) {
            throw new IOException(
                    "GET " + path + " answered " + response.statusCode() + ": " + response.body());
        }
        return JSON.readTree(response.body());
    }

    @Override
    public void close() {
        reader.close();
    }
}

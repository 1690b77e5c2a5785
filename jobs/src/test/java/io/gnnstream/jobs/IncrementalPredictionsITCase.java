package io.gnnstream.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gnnstream.connectors.KafkaClientConfig;
import io.gnnstream.connectors.KafkaIO;
import io.gnnstream.connectors.KafkaTopics;
import io.gnnstream.connectors.RowNormalization;
import io.gnnstream.operators.model.ClassProbabilities;
import io.gnnstream.operators.model.GnnModel;
import io.gnnstream.operators.model.LayerwiseInference;
import io.gnnstream.operators.model.ModelExports;
import io.gnnstream.tools.DatasetGraph;
import io.gnnstream.tools.DatasetInfo;
import io.gnnstream.tools.DatasetLoader;
import io.gnnstream.tools.Directories;
import io.gnnstream.tools.LocalKafkaBroker;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Incremental predictions through the real job (MiniCluster, RocksDB, a real Kafka broker): Cora is
 * trained to its final round, whose model the GraphStore pins; then a burst of changes of every
 * kind goes into the input topics, with the job stopped in the middle of it and restored from its
 * latest checkpoint (the Kafka offsets rewind, the rest of the burst follows). Once the predictions
 * topic is quiet, it holds for every vertex exactly what offline layer-wise inference with the
 * exported final model gives on the final graph; hubs above {@code --eval-fanout} included.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class IncrementalPredictionsITCase {

    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();
    private static final Path WORK = Path.of("target", "it-incremental");
    private static final Path CORA = Path.of("..", "data", "cora");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int STEPS = 40;
    private static final Map<Long, String> LAST = new HashMap<>();

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .setConfiguration(
                                    REPORTER.addToConfiguration(
                                            new Configuration()
                                                    .set(
                                                            TaskManagerOptions.MANAGED_MEMORY_SIZE,
                                                            MemorySize.ofMebiBytes(256))))
                            .build());

    private static LocalKafkaBroker broker;
    private static DatasetInfo cora;

    @BeforeAll
    @Timeout(120)
    static void startBroker() throws Exception {
        broker =
                LocalKafkaBroker.builder()
                        .workDir(WORK.resolve("kafka-" + System.nanoTime()))
                        .port(0)
                        .start();
        cora = DatasetInfo.scan(CORA);
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void predictionsFollowABurstOfChangesExactlyAcrossARestore() throws Exception {
        Path model = WORK.resolve("model");
        Directories.deleteRecursively(model);
        Configuration conf = configuration(model);
        Path checkpoints =
                Path.of(URI.create(conf.get(CheckpointingOptions.CHECKPOINTS_DIRECTORY)));
        Directories.deleteRecursively(checkpoints);
        String edges = KafkaOptions.edgesTopic(conf);
        String nodes = KafkaOptions.nodesTopic(conf);
        KafkaTopics.ensure(broker.bootstrapServers(), 1, edges, nodes);
        TrainingJob.ensureOutputTopics(conf);
        new DatasetLoader(broker.bootstrapServers()).progress(false).load(CORA, edges, nodes);

        Graph graph = Graph.read(CORA);
        List<ProducerRecord<String, String>> burst = graph.burst(new Random(5), 400, edges, nodes);
        assertTrue(graph.recreated > 0, "the burst creates a deleted vertex again");

        JobClient first = submit(conf);
        try (KafkaConsumer<String, String> metrics =
                KafkaIO.stringConsumer(broker.bootstrapServers(), 500)) {
            awaitFinalLine(metrics, KafkaOptions.metricsTopic(conf));
        }
        awaitGauge(first, "pinnedRoundStep", STEPS);
        send(burst.subList(0, burst.size() / 2));
        Thread.sleep(3_000);
        first.cancel().get(60, TimeUnit.SECONDS);
        Path restoreFrom =
                latestCheckpoint(checkpoints.resolve(first.getJobID().toString())).orElseThrow();

        conf.set(StateRecoveryOptions.SAVEPOINT_PATH, restoreFrom.toString());
        JobClient second = submit(conf);
        try {
            // The checkpoint may be older than the pin (the round then runs again): the rest of the
            // burst comes once the round is pinned again, so the second run predicts incrementally.
            awaitGauge(second, "pinnedRoundStep", STEPS);
            send(burst.subList(burst.size() / 2, burst.size()));
            Map<Long, float[]> topic = awaitQuietPredictions(KafkaOptions.predictionsTopic(conf));
            assertTrue(gauge(second, "incrementalPredictions") > 0, "predicted incrementally");
            assertTrue(
                    gauge(second, "freshnessP99Ms") > 0,
                    "prediction-tombstones' freshness gauges measure the incremental predictions");
            compare(model, graph, topic);
        } finally {
            second.cancel().get(60, TimeUnit.SECONDS);
        }
    }

    private static Configuration configuration(Path model) {
        String prefix = "incremental-" + System.nanoTime();
        Configuration conf = new Configuration();
        conf.set(KafkaOptions.BOOTSTRAP_SERVERS, broker.bootstrapServers());
        conf.set(KafkaOptions.TOPIC_PREFIX, prefix);
        conf.set(KafkaOptions.GROUP_ID, prefix);
        conf.set(GraphOptions.NUM_FEATURES, cora.featureDim());
        conf.set(GraphOptions.NUM_CLASSES, cora.numClasses());
        conf.set(GraphOptions.PARTITIONS, 16);
        conf.set(SamplingOptions.MAX_STEPS, (long) STEPS);
        conf.set(SamplingOptions.EVAL_EVERY, STEPS);
        conf.set(SamplingOptions.MIN_VERTICES, cora.nodes());
        conf.set(SamplingOptions.MIN_EDGES, cora.edges());
        // Cora's largest in-degree is 168: hubs above the cap are sampled by the one definition.
        conf.set(SamplingOptions.EVAL_FANOUT, 30);
        conf.set(ModelOptions.TRAINERS, 2);
        conf.set(PredictionOptions.PREDICTION_UPDATES, PredictionOptions.Updates.INCREMENTAL);
        conf.set(ModelOptions.MODEL_OUT, model.toAbsolutePath().toString());
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        JobDefaults.apply(conf, WORK.resolve("checkpoints-" + prefix), Duration.ofSeconds(5));
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(500));
        return conf;
    }

    private static JobClient submit(Configuration conf) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        new TrainingJob(conf).buildWithKafka(env);
        return env.executeAsync(TrainingJob.streamGraph(env));
    }

    private static void awaitFinalLine(KafkaConsumer<String, String> consumer, String topic)
            throws Exception {
        consumer.assign(List.of(new TopicPartition(topic, 0)));
        consumer.seekToBeginning(consumer.assignment());
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(4);
        while (System.nanoTime() < deadline) {
            for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                if (JSON.readTree(r.value()).path("final").asBoolean(false)) {
                    return;
                }
            }
        }
        throw new AssertionError("no final metrics line");
    }

    private static void awaitGauge(JobClient job, String name, long value) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        while (gauge(job, name) != value) {
            assertTrue(System.nanoTime() < deadline, name + " is " + gauge(job, name));
            Thread.sleep(100);
        }
    }

    private static long gauge(JobClient job, String name) {
        long sum = 0;
        for (Map.Entry<String, Metric> e : REPORTER.findMetrics(job.getJobID(), name).entrySet()) {
            if (e.getValue() instanceof Gauge<?> g && e.getKey().endsWith("." + name)) {
                sum += ((Number) g.getValue()).longValue();
            }
        }
        return sum;
    }

    private static void send(List<ProducerRecord<String, String>> records) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            records.forEach(producer::send);
        }
    }

    /**
     * The topic's latest value per vertex (tombstones remove), once it was quiet for 5 s with every
     * transaction committed.
     */
    private static Map<Long, float[]> awaitQuietPredictions(String topic) throws Exception {
        KafkaClientConfig clients = KafkaClientConfig.of(broker.bootstrapServers());
        Map<Long, float[]> latest = new HashMap<>();
        try (KafkaConsumer<String, String> consumer =
                KafkaIO.stringConsumer(broker.bootstrapServers(), 10_000)) {
            consumer.assign(List.of(new TopicPartition(topic, 0)));
            consumer.seekToBeginning(consumer.assignment());
            long quietSince = System.nanoTime();
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
            while (System.nanoTime() - quietSince < TimeUnit.SECONDS.toNanos(5)) {
                assertTrue(System.nanoTime() < deadline, "the predictions never settled");
                // Exactly-once predictions: a record in a transaction not committed yet holds back
                // everything after it, so quiet also means no open transaction.
                if (!KafkaTopics.endOffsets(clients, topic, IsolationLevel.READ_COMMITTED)
                        .equals(
                                KafkaTopics.endOffsets(
                                        clients, topic, IsolationLevel.READ_UNCOMMITTED))) {
                    quietSince = System.nanoTime();
                }
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    quietSince = System.nanoTime();
                    long id = Long.parseLong(r.key());
                    if (r.value() == null) {
                        latest.remove(id);
                        continue;
                    }
                    JsonNode value = JSON.readTree(r.value());
                    LAST.put(id, value.path("step") + "/" + value.path("changed_at").asLong(0));
                    JsonNode probs = value.path("probs");
                    float[] p = new float[probs.size()];
                    for (int c = 0; c < p.length; c++) {
                        p[c] = (float) probs.path(c).asDouble();
                    }
                    latest.put(id, p);
                }
            }
        }
        return latest;
    }

    private static void compare(Path modelDir, Graph graph, Map<Long, float[]> topic)
            throws Exception {
        Path dir = WORK.resolve("final-graph");
        graph.write(dir);
        DatasetGraph g =
                DatasetGraph.load(
                        dir,
                        RowNormalization.ofManifestName(
                                ModelExports.featureNormalization(modelDir)));
        try (GnnModel model = ModelExports.load(modelDir)) {
            float[] logits =
                    LayerwiseInference.run(
                                    model,
                                    g.inferenceGraph(),
                                    512,
                                    ModelExports.evalFanout(modelDir))
                            .logits();
            int classes = model.config().numClasses();
            java.util.Set<Long> missing = new java.util.TreeSet<>();
            for (int i = 0; i < g.numVertices(); i++) {
                if (!topic.containsKey(g.ids[i])) {
                    missing.add(g.ids[i]);
                }
            }
            assertEquals(
                    g.numVertices(), topic.size(), "one prediction per vertex; none of " + missing);
            double worst = 0;
            List<String> differing = new ArrayList<>();
            for (int i = 0; i < g.numVertices(); i++) {
                float[] want = ClassProbabilities.softmax(logits, i, classes);
                float[] got = topic.get(g.ids[i]);
                assertTrue(got != null, "no prediction of vertex " + g.ids[i]);
                double diff = 0;
                for (int c = 0; c < classes; c++) {
                    diff = Math.max(diff, Math.abs(want[c] - got[c]));
                }
                worst = Math.max(worst, diff);
                if (diff > 1e-4 && differing.size() < 20) {
                    differing.add(
                            g.ids[i]
                                    + " (in-degree "
                                    + graph.in.get(g.ids[i]).size()
                                    + ", by "
                                    + String.format("%.4f", diff)
                                    + ", last "
                                    + LAST.get(g.ids[i])
                                    + ")");
                }
            }
            assertTrue(
                    worst <= 1e-4,
                    "largest probability difference " + worst + "; vertices " + differing);
        }
    }

    private static Optional<Path> latestCheckpoint(Path dir) throws Exception {
        if (!Files.isDirectory(dir)) {
            return Optional.empty();
        }
        try (Stream<Path> chk = Files.list(dir)) {
            return chk.filter(p -> p.getFileName().toString().startsWith("chk-"))
                    .filter(p -> Files.exists(p.resolve("_metadata")))
                    .max(
                            (a, b) ->
                                    Long.compare(
                                            Long.parseLong(a.getFileName().toString().substring(4)),
                                            Long.parseLong(
                                                    b.getFileName().toString().substring(4))));
        }
    }

    /** A dataset folder's graph in memory, changed by a burst as the job sees it. */
    private static final class Graph {
        final Map<Long, ObjectNode> nodes = new LinkedHashMap<>();
        final Map<Long, Set<Long>> in = new LinkedHashMap<>();

        static Graph read(Path dir) throws Exception {
            Graph g = new Graph();
            for (String line : Files.readAllLines(dir.resolve("nodes.jsonl"))) {
                if (!line.isBlank()) {
                    ObjectNode n = (ObjectNode) JSON.readTree(line);
                    g.nodes.put(n.path("id").asLong(), n);
                    g.in.put(n.path("id").asLong(), new LinkedHashSet<>());
                }
            }
            for (String line : Files.readAllLines(dir.resolve("edges.csv"))) {
                if (!line.isBlank()) {
                    String[] e = line.split(",");
                    g.in.get(Long.parseLong(e[1].trim())).add(Long.parseLong(e[0].trim()));
                }
            }
            return g;
        }

        /** Deleted vertices the bursts created again. */
        int recreated;

        /**
         * {@code n} changes: edges added and removed, node records (new ones too, some of deleted
         * vertices, which come back), deletions.
         */
        List<ProducerRecord<String, String>> burst(
                Random r, int n, String edgesTopic, String nodesTopic) {
            List<ProducerRecord<String, String>> out = new ArrayList<>();
            List<Long> ids = new ArrayList<>(nodes.keySet());
            List<Long> gone = new ArrayList<>();
            long next = 100_000;
            for (int i = 0; i < n; i++) {
                double kind = r.nextDouble();
                if (kind < 0.45) {
                    long src = ids.get(r.nextInt(ids.size()));
                    // Some edges go to the largest hubs, so their capped neighbourhoods change.
                    long dst = r.nextInt(4) == 0 ? hub() : ids.get(r.nextInt(ids.size()));
                    in.get(dst).add(src);
                    out.add(new ProducerRecord<>(edgesTopic, "" + dst, src + "," + dst));
                } else if (kind < 0.9) {
                    long dst = ids.get(r.nextInt(ids.size()));
                    if (in.get(dst).isEmpty()) {
                        continue;
                    }
                    List<Long> nbrs = new ArrayList<>(in.get(dst));
                    long src = nbrs.get(r.nextInt(nbrs.size()));
                    in.get(dst).remove(src);
                    out.add(new ProducerRecord<>(edgesTopic, "" + dst, src + "," + dst + ",-"));
                } else if (kind < 0.99) {
                    long v =
                            r.nextInt(3) != 0
                                    ? ids.get(r.nextInt(ids.size()))
                                    : gone.isEmpty() || r.nextBoolean()
                                            ? next++
                                            : gone.remove(gone.size() - 1);
                    if (v < next - 1 && !nodes.containsKey(v)) {
                        recreated++;
                    }
                    ObjectNode record =
                            nodes.get(ids.get(r.nextInt(ids.size()))).deepCopy().put("id", v);
                    if (!nodes.containsKey(v)) {
                        ids.add(v);
                        in.put(v, new LinkedHashSet<>());
                    }
                    nodes.put(v, record);
                    out.add(new ProducerRecord<>(nodesTopic, "" + v, record.toString()));
                } else {
                    long v = ids.remove(r.nextInt(ids.size()));
                    gone.add(v);
                    nodes.remove(v);
                    in.remove(v);
                    in.values().forEach(s -> s.remove(v));
                    out.add(
                            new ProducerRecord<>(
                                    nodesTopic, "" + v, "{\"id\":" + v + ",\"op\":\"delete\"}"));
                }
            }
            return out;
        }

        private long hub() {
            return in.entrySet().stream()
                    .max((a, b) -> Integer.compare(a.getValue().size(), b.getValue().size()))
                    .orElseThrow()
                    .getKey();
        }

        void write(Path dir) throws Exception {
            Directories.deleteRecursively(dir);
            Files.createDirectories(dir);
            List<String> nodeLines = new ArrayList<>();
            nodes.values().forEach(n -> nodeLines.add(n.toString()));
            Files.write(dir.resolve("nodes.jsonl"), nodeLines, StandardCharsets.UTF_8);
            List<String> edgeLines = new ArrayList<>();
            in.forEach((dst, srcs) -> srcs.forEach(src -> edgeLines.add(src + "," + dst)));
            Files.write(dir.resolve("edges.csv"), edgeLines, StandardCharsets.UTF_8);
        }
    }
}

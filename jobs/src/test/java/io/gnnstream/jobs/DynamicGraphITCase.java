package io.gnnstream.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.carrotsearch.hppc.LongIntHashMap;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gnnstream.connectors.KafkaIO;
import io.gnnstream.connectors.KafkaTopics;
import io.gnnstream.connectors.NodeFormat;
import io.gnnstream.jobs.testing.GraphComparison;
import io.gnnstream.jobs.testing.ReferenceGraph;
import io.gnnstream.jobs.testing.SamplingAudit;
import io.gnnstream.jobs.testing.StoredGraph;
import io.gnnstream.operators.GraphStoreProbe;
import io.gnnstream.state.PartitionMap;
import io.gnnstream.tools.Directories;
import io.gnnstream.tools.LocalKafkaBroker;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.flink.api.common.JobID;
import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A graph that changes while the job trains on it, through a real broker, at parallelism 2 with two
 * trainer ranks, halo replicas and a partition map. Cora is streamed first; once training runs, 10
 * % of its edges are removed, 5 % of its vertices get new records (new features, labels and
 * splits), 1 % are deleted; once the job reports those applied, half of the deleted vertices are
 * created again with their edges. Then a savepoint is taken and the GraphStore's state read out of
 * it ({@link StoredGraph}) equals the stream's graph as the README defines it ({@link
 * ReferenceGraph}): every record, in-adjacency list, out-edge index entry and replica. The
 * failure-free run also audits every sample ({@link SamplingAudit}) and checks that deleted
 * vertices end with a tombstone in the predictions topic. The same stream with failures injected
 * into a GraphStore subtask, the edge source's task and the replica router while the graph is
 * ingested ends with the same stored graph: no edge lost, none applied twice.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class DynamicGraphITCase {

    private static final Path WORK = Path.of("target", "it-dynamic");
    private static final Path CORA = Path.of("..", "data", "cora");
    private static final int PARTITIONS = 16;
    private static final int PARALLELISM = 2;
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    private static LocalKafkaBroker broker;
    private static List<String> nodeLines;
    private static List<long[]> edges;
    private static int featureDim;
    private static int classes;
    private static Path partitionMap;

    @BeforeAll
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    static void startBrokerAndReadCora() throws Exception {
        Directories.deleteRecursively(WORK);
        broker = LocalKafkaBroker.builder().workDir(WORK.resolve("kafka")).port(0).start();
        nodeLines = Files.readAllLines(CORA.resolve("nodes.jsonl"));
        edges = new ArrayList<>();
        for (String line : Files.readAllLines(CORA.resolve("edges.csv"))) {
            String[] f = line.split(",");
            edges.add(new long[] {Long.parseLong(f[0]), Long.parseLong(f[1])});
        }
        featureDim = NodeFormat.featureCountOf(nodeLines.get(0));
        classes = 0;
        for (String line : nodeLines) {
            classes = Math.max(classes, JSON.readTree(line).path("label").asInt(-1) + 1);
        }
        partitionMap = WORK.resolve("cora.map");
        writeBreadthFirstMap(partitionMap);
    }

    @AfterAll
    static void stopBroker() {
        GraphStoreProbe.install(null);
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void theStoredGraphEqualsTheStreamAfterRemovalsUpdatesAndDeletions(
            @InjectClusterClient ClusterClient<?> client) throws Exception {
        SamplingAudit audit = new SamplingAudit();
        GraphStoreProbe.install(audit);
        Run run;
        try {
            run = run("free", null, client);
        } finally {
            GraphStoreProbe.install(null);
        }
        assertEquals(List.of(), audit.violations(), "sampled after a removal was applied");
        assertTrue(audit.samples() > 0 && audit.removals() > 0, "the audit saw the run");
        Map<Long, String> predictions = latestPredictions(run.conf);
        for (long v : run.stream.deletedForGood) {
            assertTrue(predictions.containsKey(v), "no tombstone for deleted vertex " + v);
            assertEquals(null, predictions.get(v), "a prediction outlives deleted vertex " + v);
        }
        long live = predictions.values().stream().filter(p -> p != null).count();
        assertTrue(live > 2000, "predictions of the vertices kept: " + live);
    }

    @Test
    void exactlyOnceWithFailuresWhileEdgesArrive(@InjectClusterClient ClusterClient<?> client)
            throws Exception {
        String faults = "graph-store-ingest:1:400,edge-bundles:0:2500,replica-router:1:300";
        Run run = run("faults", faults, client);
        Path marker = WORK.resolve("faults-marker");
        for (String m : new String[] {"", ".1", ".2"}) {
            assertTrue(
                    Files.exists(Path.of(marker + m)),
                    "injected failure " + m + " of " + faults + " did not happen");
        }
        assertTrue(run.savepoint != null);
    }

    /** The stream of one run, its job's options and the savepoint compared. */
    private record Run(Configuration conf, Stream stream, String savepoint) {}

    /**
     * Streams Cora, then the changes, into topics of its own, runs the job until all of it is
     * applied, takes a savepoint and compares the stored graph with the reference.
     */
    private static Run run(String name, String faults, ClusterClient<?> client) throws Exception {
        String edgesTopic = name + ".edges";
        String nodesTopic = name + ".nodes";
        KafkaTopics.ensure(broker.bootstrapServers(), 2, edgesTopic, nodesTopic);
        Configuration conf = jobConfiguration(name, edgesTopic, nodesTopic);
        if (faults != null) {
            conf.set(RunOptions.INJECT_FAULT, faults);
            conf.set(
                    RunOptions.FAULT_MARKER,
                    WORK.resolve(name + "-marker").toAbsolutePath().toString());
        }
        // Cora has no signed row: auto decides to divide every row.
        NodeFormat format =
                new NodeFormat(
                        featureDim,
                        classes,
                        conf.get(GraphOptions.NORMALIZE_FEATURES).resolve(false));
        Stream stream = new Stream(new Random(7), new ReferenceGraph(format));
        JobID[] job = new JobID[1];
        String[] savepoint = new String[1];
        int[] phase = {1};
        try (KafkaProducer<String, String> producer = producer();
                Admin admin = admin()) {
            stream.phase1(producer, edgesTopic, nodesTopic);
            Predicate<JsonNode> last =
                    line -> {
                        boolean applied =
                                line.path("vertices").asLong() == stream.reference.vertices()
                                        && line.path("edges_ingested").asLong()
                                                == stream.edgeRecords
                                        && committed(
                                                admin,
                                                conf.get(KafkaOptions.GROUP_ID),
                                                edgesTopic,
                                                nodesTopic);
                        try {
                            if (phase[0] == 1 && line.path("step").asLong() > 0) {
                                stream.phase2(producer, edgesTopic, nodesTopic);
                                phase[0] = 2;
                            } else if (phase[0] == 2 && applied) {
                                stream.phase3(producer, edgesTopic, nodesTopic);
                                phase[0] = 3;
                            } else if (phase[0] == 3 && applied) {
                                savepoint[0] =
                                        client.triggerSavepoint(
                                                        job[0],
                                                        WORK.resolve("savepoints-" + name)
                                                                .toAbsolutePath()
                                                                .toString(),
                                                        SavepointFormatType.CANONICAL)
                                                .get(2, TimeUnit.MINUTES);
                                return true;
                            }
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                        return false;
                    };
            StreamExecutionEnvironment env =
                    StreamExecutionEnvironment.getExecutionEnvironment(conf);
            env.setParallelism(PARALLELISM);
            new TrainingRunner(
                            conf, new PrintStream(System.out, true, StandardCharsets.UTF_8), null)
                    .onSubmit(id -> job[0] = id)
                    .run(env, Duration.ofMinutes(6), last);
        }
        StoredGraph stored = StoredGraph.read(savepoint[0]);
        List<String> differences =
                GraphComparison.differences(
                        stored,
                        stream.reference,
                        TrainingJob.partitioner(conf),
                        PARALLELISM,
                        true,
                        20);
        assertEquals(List.of(), differences, "the stored graph differs from the stream's");
        assertEquals(stream.reference.vertices(), stored.records.size());
        assertEquals(PARTITIONS, stored.indexed.size(), "a deletion builds every out-edge index");
        assertTrue(stored.replicas.size() > 100, "replicas compared: " + stored.replicas.size());
        System.out.println(
                "DynamicGraphITCase "
                        + name
                        + ": stored graph equals the reference: "
                        + stored.records.size()
                        + " records, "
                        + stream.reference.edges()
                        + " edges, "
                        + stored.outEdges.size()
                        + " out-edge index entries, "
                        + stored.replicas.size()
                        + " replicas");
        return new Run(conf, stream, savepoint[0]);
    }

    /** Cora and the changes to it, produced in three phases and applied to the reference. */
    private static final class Stream {
        final Random random;
        final ReferenceGraph reference;
        final List<Long> deletedForGood = new ArrayList<>();
        final List<Long> recreated = new ArrayList<>();

        /** Edge records produced so far (additions and removals). */
        long edgeRecords;

        Stream(Random random, ReferenceGraph reference) {
            this.random = random;
            this.reference = reference;
        }

        void phase1(KafkaProducer<String, String> p, String edgesTopic, String nodesTopic)
                throws Exception {
            for (String line : nodeLines) {
                node(p, nodesTopic, line);
            }
            for (long[] e : edges) {
                edge(p, edgesTopic, e[0] + "," + e[1], e[1]);
            }
            p.flush();
        }

        /**
         * Removes 10 % of the edges, gives 5 % of the vertices another vertex's record (features,
         * label and split) and deletes 1 % of them.
         */
        void phase2(KafkaProducer<String, String> p, String edgesTopic, String nodesTopic)
                throws Exception {
            List<long[]> shuffled = new ArrayList<>(edges);
            Collections.shuffle(shuffled, random);
            for (long[] e : shuffled.subList(0, edges.size() / 10)) {
                edge(p, edgesTopic, e[0] + "," + e[1] + ",-", e[1]);
            }
            List<Integer> vertices = new ArrayList<>();
            for (int i = 0; i < nodeLines.size(); i++) {
                vertices.add(i);
            }
            Collections.shuffle(vertices, random);
            int deletions = nodeLines.size() / 100;
            int updates = nodeLines.size() / 20;
            for (int v : vertices.subList(0, deletions)) {
                node(p, nodesTopic, "{\"id\":" + v + ",\"op\":\"delete\"}");
                (deletedForGood.size() < deletions / 2 ? deletedForGood : recreated).add((long) v);
            }
            for (int v : vertices.subList(deletions, deletions + updates)) {
                ObjectNode other =
                        (ObjectNode) JSON.readTree(nodeLines.get(random.nextInt(nodeLines.size())));
                other.put("id", v);
                node(p, nodesTopic, other.toString());
            }
            p.flush();
        }

        /** Creates half of the deleted vertices again, with their Cora records and edges. */
        void phase3(KafkaProducer<String, String> p, String edgesTopic, String nodesTopic)
                throws Exception {
            Set<Long> back = new HashSet<>(recreated);
            Set<Long> gone = new HashSet<>(deletedForGood);
            for (long v : recreated) {
                node(p, nodesTopic, nodeLines.get((int) v));
            }
            for (long[] e : edges) {
                if ((back.contains(e[0]) || back.contains(e[1]))
                        && !gone.contains(e[0])
                        && !gone.contains(e[1])) {
                    edge(p, edgesTopic, e[0] + "," + e[1], e[1]);
                }
            }
            p.flush();
        }

        private void node(KafkaProducer<String, String> p, String topic, String line)
                throws Exception {
            reference.node(line);
            long id = JSON.readTree(line).path("id").asLong();
            p.send(new ProducerRecord<>(topic, Long.toString(id), line));
        }

        private void edge(KafkaProducer<String, String> p, String topic, String line, long dst)
                throws Exception {
            reference.edge(line);
            edgeRecords++;
            p.send(new ProducerRecord<>(topic, Long.toString(dst), line));
        }
    }

    /** Whether the job's consumer group committed every record of both topics. */
    private static boolean committed(Admin admin, String group, String... topics) {
        try {
            Map<TopicPartition, OffsetAndMetadata> done =
                    admin.listConsumerGroupOffsets(group)
                            .partitionsToOffsetAndMetadata()
                            .get(10, TimeUnit.SECONDS);
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (String topic : topics) {
                for (int partition = 0; partition < 2; partition++) {
                    latest.put(new TopicPartition(topic, partition), OffsetSpec.latest());
                }
            }
            var ends = admin.listOffsets(latest).all().get(10, TimeUnit.SECONDS);
            for (var end : ends.entrySet()) {
                OffsetAndMetadata at = done.get(end.getKey());
                long offset = at == null ? 0 : at.offset();
                if (offset < end.getValue().offset()) {
                    return false;
                }
            }
            return true;
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the committed offsets of " + group, e);
        }
    }

    /** The latest value per key of the predictions topic (null: a tombstone). */
    private static Map<Long, String> latestPredictions(Configuration conf) throws Exception {
        String topic = KafkaOptions.predictionsTopic(conf);
        Map<Long, String> latest = new HashMap<>();
        try (KafkaConsumer<String, String> consumer =
                KafkaIO.stringConsumer(broker.bootstrapServers(), 10_000)) {
            List<TopicPartition> partitions = new ArrayList<>();
            consumer.partitionsFor(topic)
                    .forEach(i -> partitions.add(new TopicPartition(topic, i.partition())));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
                assertTrue(System.nanoTime() < deadline, "predictions topic not read in time");
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    latest.put(Long.parseLong(r.key()), r.value());
                }
            }
        }
        return latest;
    }

    private static Configuration jobConfiguration(String name, String edgesTopic, String nodesTopic)
            throws Exception {
        Configuration conf = new Configuration();
        conf.set(KafkaOptions.BOOTSTRAP_SERVERS, broker.bootstrapServers());
        conf.set(KafkaOptions.EDGES_TOPIC, edgesTopic);
        conf.set(KafkaOptions.NODES_TOPIC, nodesTopic);
        conf.set(KafkaOptions.TOPIC_PREFIX, "dynamic-" + name);
        conf.set(KafkaOptions.GROUP_ID, "dynamic-" + name);
        conf.set(GraphOptions.NUM_FEATURES, featureDim);
        conf.set(GraphOptions.NUM_CLASSES, classes);
        conf.set(GraphOptions.PARTITIONS, PARTITIONS);
        conf.set(GraphOptions.PARTITION_MAP, partitionMap.toAbsolutePath().toString());
        conf.set(GraphOptions.HALO, GraphOptions.Halo.FEATURES);
        conf.set(GraphOptions.RECORD_CACHE, MemorySize.parse("16mb"));
        conf.set(GraphOptions.ADJACENCY_CACHE, MemorySize.parse("16mb"));
        conf.set(ModelOptions.TRAINERS, 2);
        conf.set(ModelOptions.FEATURE_CACHE, MemorySize.parse("64mb"));
        conf.set(SamplingOptions.BATCH_SIZE, 32);
        conf.set(SamplingOptions.MAX_STEPS, 0L);
        conf.set(SamplingOptions.EVAL_EVERY, 20);
        // The run ends with a savepoint and a cancel, which would abort the last transaction of
        // exactly-once predictions, its tombstones with it; the graph, not delivery, is tested
        // here.
        conf.set(KafkaOptions.PREDICTIONS_DELIVERY, KafkaOptions.Delivery.AT_LEAST_ONCE);
        conf.set(SamplingOptions.MIN_VERTICES, (long) nodeLines.size());
        conf.set(SamplingOptions.MIN_EDGES, (long) edges.size());
        conf.set(SamplingOptions.BATCH_TIMEOUT_MS, 3_000L);
        conf.set(ModelOptions.CREDIT_RESEND_MS, 1_000L);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 5);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(500));
        JobDefaults.apply(conf, WORK.resolve("checkpoints-" + name), Duration.ofMillis(500));
        TrainingJob.ensureOutputTopics(conf);
        return conf;
    }

    /**
     * A partition map of Cora into {@link #PARTITIONS} parts of equal size, in breadth-first order
     * over the undirected graph, so that neighbours mostly share a partition.
     */
    private static void writeBreadthFirstMap(Path file) throws Exception {
        int n = nodeLines.size();
        List<List<Integer>> adjacent = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            adjacent.add(new ArrayList<>());
        }
        for (long[] e : edges) {
            adjacent.get((int) e[0]).add((int) e[1]);
            adjacent.get((int) e[1]).add((int) e[0]);
        }
        boolean[] seen = new boolean[n];
        LongIntHashMap assignment = new LongIntHashMap();
        int placed = 0;
        for (int start = 0; start < n; start++) {
            ArrayDeque<Integer> queue = new ArrayDeque<>();
            if (!seen[start]) {
                seen[start] = true;
                queue.add(start);
            }
            while (!queue.isEmpty()) {
                int v = queue.poll();
                assignment.put(v, (int) ((long) placed++ * PARTITIONS / n));
                for (int w : adjacent.get(v)) {
                    if (!seen[w]) {
                        seen[w] = true;
                        queue.add(w);
                    }
                }
            }
        }
        Files.createDirectories(file.getParent());
        try (OutputStream out = Files.newOutputStream(file)) {
            new PartitionMap(PARTITIONS, assignment).write(out);
        }
    }

    private static KafkaProducer<String, String> producer() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        return new KafkaProducer<>(p);
    }

    private static Admin admin() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        return Admin.create(p);
    }
}

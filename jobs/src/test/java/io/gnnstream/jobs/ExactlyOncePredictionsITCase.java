package io.gnnstream.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gnnstream.connectors.KafkaTopics;
import io.gnnstream.tools.DatasetInfo;
import io.gnnstream.tools.DatasetLoader;
import io.gnnstream.tools.Directories;
import io.gnnstream.tools.LocalKafkaBroker;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Exactly-once predictions (docs/design.md, "Evaluation"): the job on a MiniCluster with RocksDB
 * and the real broker predicts every few steps while a trainer rank fails once between two
 * checkpoints; a {@code read_committed} consumer of the predictions topic then sees every vertex's
 * prediction of every round exactly once, the final round's included.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class ExactlyOncePredictionsITCase {

    private static final Path WORK = Path.of("target", "it-exactly-once");
    private static final Path CORA = Path.of("..", "data", "cora");
    private static final String EDGES = "once.edges";
    private static final String NODES = "once.nodes";
    private static final int STEPS = 32;
    private static final int PREDICT_EVERY = 8;
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    private static LocalKafkaBroker broker;
    private static DatasetInfo cora;

    @BeforeAll
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    static void startBrokerAndLoadCora() throws Exception {
        Directories.deleteRecursively(WORK);
        broker = LocalKafkaBroker.builder().workDir(WORK.resolve("kafka")).port(0).start();
        cora = DatasetInfo.scan(CORA);
        KafkaTopics.ensure(broker.bootstrapServers(), 2, EDGES, NODES);
        new DatasetLoader(broker.bootstrapServers()).progress(false).load(CORA, EDGES, NODES);
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void aReadCommittedConsumerSeesEachRoundsPredictionOnceAcrossAFailure() throws Exception {
        Configuration conf = configuration();
        Path marker = WORK.resolve("fault-marker");
        conf.set(RunOptions.INJECT_FAULT, "trainer:0:" + (STEPS / 2 + 3));
        conf.set(RunOptions.FAULT_MARKER, marker.toAbsolutePath().toString());
        TrainingJob.ensureOutputTopics(conf);

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        JsonNode last =
                new TrainingRunner(
                                conf,
                                new PrintStream(System.out, true, StandardCharsets.UTF_8),
                                null)
                        .run(env, Duration.ofMinutes(3))
                        .finalLine();
        assertTrue(Files.exists(marker), "the injected failure did not happen");
        assertEquals(STEPS, last.path("step").asLong());

        String topic = KafkaOptions.predictionsTopic(conf);
        Map<Long, Map<Long, Integer>> committed = read(topic, IsolationLevel.READ_COMMITTED);
        Map<Long, Map<Long, Integer>> all = read(topic, IsolationLevel.READ_UNCOMMITTED);
        System.out.println(
                "ExactlyOncePredictionsITCase: rounds committed "
                        + committed.keySet()
                        + "; records written (read_uncommitted) "
                        + count(all)
                        + ", committed "
                        + count(committed));
        java.util.Set<Long> rounds = new java.util.TreeSet<>();
        for (long step = PREDICT_EVERY; step <= STEPS; step += PREDICT_EVERY) {
            rounds.add(step);
        }
        assertEquals(rounds, committed.keySet(), "rounds committed, the final one included");
        for (Map.Entry<Long, Map<Long, Integer>> round : committed.entrySet()) {
            assertEquals(
                    cora.nodes(),
                    round.getValue().size(),
                    "vertices predicted in the round of step " + round.getKey());
            round.getValue()
                    .forEach(
                            (vertex, times) ->
                                    assertEquals(
                                            1,
                                            times,
                                            "vertex "
                                                    + vertex
                                                    + " in the round of step "
                                                    + round.getKey()));
        }
    }

    private static long count(Map<Long, Map<Long, Integer>> rounds) {
        return rounds.values().stream()
                .flatMap(r -> r.values().stream())
                .mapToLong(Integer::longValue)
                .sum();
    }

    /** How often each (round step, vertex) prediction appears in the topic. */
    private static Map<Long, Map<Long, Integer>> read(String topic, IsolationLevel isolation)
            throws Exception {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "10000");
        p.put(
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                isolation.toString().toLowerCase(java.util.Locale.ROOT));
        Map<Long, Map<Long, Integer>> rounds = new TreeMap<>();
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long end = consumer.endOffsets(List.of(partition)).get(partition);
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
            while (consumer.position(partition) < end) {
                assertTrue(System.nanoTime() < deadline, "predictions not read in time");
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    if (r.value() == null) {
                        continue;
                    }
                    long step = JSON.readTree(r.value()).path("step").asLong();
                    rounds.computeIfAbsent(step, s -> new TreeMap<>())
                            .merge(Long.parseLong(r.key()), 1, Integer::sum);
                }
            }
        }
        return rounds;
    }

    private static Configuration configuration() throws Exception {
        Configuration conf = new Configuration();
        conf.set(KafkaOptions.BOOTSTRAP_SERVERS, broker.bootstrapServers());
        conf.set(KafkaOptions.EDGES_TOPIC, EDGES);
        conf.set(KafkaOptions.NODES_TOPIC, NODES);
        conf.set(KafkaOptions.TOPIC_PREFIX, "once");
        conf.set(KafkaOptions.GROUP_ID, "once");
        conf.set(GraphOptions.NUM_FEATURES, cora.featureDim());
        conf.set(GraphOptions.NUM_CLASSES, cora.numClasses());
        conf.set(GraphOptions.PARTITIONS, 16);
        conf.set(GraphOptions.RECORD_CACHE, MemorySize.parse("16mb"));
        conf.set(GraphOptions.ADJACENCY_CACHE, MemorySize.parse("16mb"));
        conf.set(ModelOptions.TRAINERS, 2);
        conf.set(ModelOptions.FEATURE_CACHE, MemorySize.parse("64mb"));
        conf.set(SamplingOptions.BATCH_SIZE, 32);
        conf.set(SamplingOptions.MAX_STEPS, (long) STEPS);
        conf.set(SamplingOptions.EVAL_EVERY, STEPS);
        conf.set(PredictionOptions.PREDICT_EVERY, PREDICT_EVERY);
        conf.set(SamplingOptions.MIN_VERTICES, cora.nodes());
        conf.set(SamplingOptions.MIN_EDGES, cora.edges());
        conf.set(SamplingOptions.BATCH_TIMEOUT_MS, 3_000L);
        conf.set(ModelOptions.CREDIT_RESEND_MS, 1_000L);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 2);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(500));
        JobDefaults.apply(conf, WORK.resolve("checkpoints"), Duration.ofSeconds(1));
        return conf;
    }
}

package io.gnnstream.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.gnnstream.connectors.KafkaTopics;
import io.gnnstream.operators.model.ModelType;
import io.gnnstream.tools.DatasetInfo;
import io.gnnstream.tools.DatasetLoader;
import io.gnnstream.tools.Directories;
import io.gnnstream.tools.LocalKafkaBroker;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Data-parallel training (2 trainer ranks, graph parallelism 2) from a real local broker, with one
 * injected failure per run: a trainer rank, a reducer or a GraphStore subtask throws once, the job
 * restores from its last checkpoint and finishes. The replicas agree on every line, no edge is
 * ingested twice, and, since training waits for the whole graph (--min-vertices, --min-edges), the
 * final parameters equal a failure-free run's bit for bit (GraphSAGE for each failure, GAT for a
 * trainer's). Also: 30 consecutive checkpoints of the busy loops all complete.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class FailureRecoveryITCase {

    private static final InMemoryReporter REPORTER = InMemoryReporter.create();
    private static final Path WORK = Path.of("target", "it-failures");
    private static final Path CORA = Path.of("..", "data", "cora");
    private static final String EDGES = "recovery.edges";
    private static final String NODES = "recovery.nodes";
    private static final int STEPS = 60;

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .setConfiguration(REPORTER.addToConfiguration(new Configuration()))
                            .build());

    private static LocalKafkaBroker broker;
    private static DatasetInfo cora;
    private static List<JsonNode> failureFreeLines;
    private static JsonNode failureFreeFinal;
    private static List<String> failureFreeChecksums;

    /**
     * Starts the broker, loads Cora and runs the failure-free reference once for the class, so that
     * every recovery case, also one run alone, is compared with it. At most 3 minutes for the
     * broker and the load, 4 for the run ({@link #train}).
     */
    @BeforeAll
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    static void startBrokerLoadCoraAndRunFailureFree() throws Exception {
        Directories.deleteRecursively(WORK);
        broker = LocalKafkaBroker.builder().workDir(WORK.resolve("kafka")).port(0).start();
        cora = DatasetInfo.scan(CORA);
        KafkaTopics.ensure(broker.bootstrapServers(), 2, EDGES, NODES);
        new DatasetLoader(broker.bootstrapServers()).progress(false).load(CORA, EDGES, NODES);
        failureFreeLines = new ArrayList<>();
        failureFreeFinal =
                train(jobConfiguration("none"), collectInto(failureFreeLines)).finalLine();
        failureFreeChecksums = checksums(failureFreeFinal);
        System.out.println(
                "FailureRecoveryITCase: failure-free reference checksums " + failureFreeChecksums);
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void failureFreeRunTrainsConsistentReplicas() {
        assertConsistentRun(failureFreeLines, failureFreeFinal);
    }

    @Test
    void recoversFromATrainerFailureToTheSameParameters() throws Exception {
        assertRecoversToTheFailureFreeParameters("trainer:1:30");
    }

    @Test
    void recoversFromAReducerFailureToTheSameParameters() throws Exception {
        assertRecoversToTheFailureFreeParameters("gradient-reducer:0:90");
    }

    @Test
    void recoversFromAGraphStoreFailureToTheSameParameters() throws Exception {
        assertRecoversToTheFailureFreeParameters("graph-store:1:150");
    }

    /**
     * GAT through the same job: its replicas stay bit-identical under the all-reduce, and a trainer
     * failure restores its model state from the checkpoint to the failure-free run's parameters.
     */
    @Test
    void gatRecoversFromATrainerFailureToTheSameParameters() throws Exception {
        Configuration free = jobConfiguration("gat-none");
        free.set(ModelOptions.MODEL, ModelType.GAT);
        List<JsonNode> freeLines = new ArrayList<>();
        JsonNode freeLast = train(free, collectInto(freeLines)).finalLine();
        assertConsistentRun(freeLines, freeLast);

        Configuration conf = jobConfiguration("gat-trainer");
        conf.set(ModelOptions.MODEL, ModelType.GAT);
        Path marker = WORK.resolve("fault-gat-trainer");
        conf.set(RunOptions.INJECT_FAULT, "trainer:1:30");
        conf.set(RunOptions.FAULT_MARKER, marker.toAbsolutePath().toString());
        List<JsonNode> lines = new ArrayList<>();
        JsonNode last = train(conf, collectInto(lines)).finalLine();
        assertTrue(Files.exists(marker), "the injected failure did not happen");
        assertConsistentRun(lines, last);
        assertEquals(checksums(freeLast), checksums(last), "gat parameters differ after recovery");
        assertFalse(
                checksums(freeLast).equals(failureFreeChecksums), "gat trained sage's parameters");
    }

    /**
     * Runs with {@code fault} injected once; the run recovers and ends with the failure-free run's
     * parameters, bit for bit.
     */
    private static void assertRecoversToTheFailureFreeParameters(String fault) throws Exception {
        String name = fault.replaceAll("[^a-z0-9]+", "-");
        Configuration conf = jobConfiguration(name);
        Path marker = WORK.resolve("fault-" + name);
        conf.set(RunOptions.INJECT_FAULT, fault);
        conf.set(RunOptions.FAULT_MARKER, marker.toAbsolutePath().toString());
        List<JsonNode> lines = new ArrayList<>();
        JsonNode last = train(conf, collectInto(lines)).finalLine();

        assertTrue(Files.exists(marker), "the injected failure did not happen");
        assertConsistentRun(lines, last);
        List<String> checksums = checksums(last);
        assertEquals(
                failureFreeChecksums,
                checksums,
                "final parameters differ from the failure-free run");
        System.out.println(
                "FailureRecoveryITCase: bit-identity checked, "
                        + fault
                        + " ends with the failure-free run's checksums "
                        + checksums);
    }

    /**
     * Every line of a run: two replicas, identical, no edge ingested twice; the last after {@link
     * #STEPS} steps and well above chance on the test set.
     */
    private static void assertConsistentRun(List<JsonNode> lines, JsonNode last) {
        for (JsonNode line : lines) {
            assertEquals(2, line.path("checksums").size(), line.toString());
            assertTrue(line.path("replicas_identical").asBoolean(), "replicas differ: " + line);
            assertTrue(
                    line.path("edges_ingested").asLong() <= cora.edges(),
                    "an edge ingested twice: " + line);
        }
        assertEquals(STEPS, last.path("step").asLong());
        assertTrue(last.path("test_acc").asDouble() >= 0.75, last.toString());
    }

    /** Collects the lines until the final one. */
    private static java.util.function.Predicate<JsonNode> collectInto(List<JsonNode> lines) {
        return line -> {
            lines.add(line);
            return line.path("final").asBoolean(false);
        };
    }

    private static List<String> checksums(JsonNode line) {
        List<String> checksums = new ArrayList<>();
        line.path("checksums").forEach(c -> checksums.add(c.asText()));
        return checksums;
    }

    @Test
    void thirtyConsecutiveCheckpointsOfBusyLoopsAllComplete() throws Exception {
        Configuration conf = jobConfiguration("checkpoints");
        conf.set(SamplingOptions.MAX_STEPS, 0L);
        conf.set(SamplingOptions.EVAL_EVERY, 0);
        conf.set(RunOptions.CHECKPOINT_INTERVAL, Duration.ofMillis(100));
        conf.set(
                org.apache.flink.configuration.CheckpointingOptions.CHECKPOINTING_INTERVAL,
                Duration.ofMillis(100));
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        // Counted from the first metrics line: while tasks are still starting, Flink declines
        // checkpoints ("tasks not ready"), which says nothing about the loops.
        JobID[] job = new JobID[1];
        long[] atStart = {-1, -1};
        long[] seen = new long[2];
        train(
                conf,
                line -> {
                    seen[0] = completed(job[0]);
                    seen[1] =
                            job[0] == null
                                    ? 0
                                    : checkpointGauge(job[0], "numberOfFailedCheckpoints");
                    if (atStart[0] < 0) {
                        atStart[0] = seen[0];
                        atStart[1] = seen[1];
                    }
                    return seen[0] - atStart[0] >= 30;
                },
                id -> job[0] = id);
        assertTrue(
                seen[0] - atStart[0] >= 30,
                "completed checkpoints " + seen[0] + " from " + atStart[0]);
        assertEquals(atStart[1], seen[1], "checkpoints failed while the loops were busy");
    }

    private static long completed(JobID job) {
        return job == null ? 0 : checkpointGauge(job, "numberOfCompletedCheckpoints");
    }

    private static long checkpointGauge(JobID job, String name) {
        for (var t : REPORTER.findJobMetricGroups(job, name)) {
            Metric m = t.f2;
            if (m instanceof Gauge<?> g && g.getValue() instanceof Number n) {
                return n.longValue();
            }
        }
        return 0;
    }

    private static Configuration jobConfiguration(String name) throws Exception {
        Configuration conf = new Configuration();
        conf.set(KafkaOptions.BOOTSTRAP_SERVERS, broker.bootstrapServers());
        conf.set(KafkaOptions.EDGES_TOPIC, EDGES);
        conf.set(KafkaOptions.NODES_TOPIC, NODES);
        conf.set(KafkaOptions.TOPIC_PREFIX, "recovery-" + name);
        conf.set(KafkaOptions.GROUP_ID, "recovery-" + name);
        conf.set(GraphOptions.NUM_FEATURES, cora.featureDim());
        conf.set(GraphOptions.NUM_CLASSES, cora.numClasses());
        conf.set(GraphOptions.PARTITIONS, 16);
        conf.set(ModelOptions.TRAINERS, 2);
        conf.set(
                GraphOptions.RECORD_CACHE, org.apache.flink.configuration.MemorySize.parse("16mb"));
        conf.set(
                GraphOptions.ADJACENCY_CACHE,
                org.apache.flink.configuration.MemorySize.parse("16mb"));
        conf.set(
                ModelOptions.FEATURE_CACHE,
                org.apache.flink.configuration.MemorySize.parse("64mb"));
        conf.set(SamplingOptions.BATCH_SIZE, 32);
        conf.set(SamplingOptions.MAX_STEPS, (long) STEPS);
        conf.set(SamplingOptions.EVAL_EVERY, 20);
        conf.set(SamplingOptions.MIN_VERTICES, cora.nodes());
        conf.set(SamplingOptions.MIN_EDGES, cora.edges());
        conf.set(SamplingOptions.BATCH_TIMEOUT_MS, 3_000L);
        conf.set(ModelOptions.CREDIT_RESEND_MS, 1_000L);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 2);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(500));
        JobDefaults.apply(conf, WORK.resolve("checkpoints-" + name), Duration.ofMillis(500));
        TrainingJob.ensureOutputTopics(conf);
        return conf;
    }

    private static TrainingRunner.Result train(
            Configuration conf, java.util.function.Predicate<JsonNode> last) throws Exception {
        return train(conf, last, id -> {});
    }

    private static TrainingRunner.Result train(
            Configuration conf,
            java.util.function.Predicate<JsonNode> last,
            java.util.function.Consumer<JobID> submitted)
            throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        return new TrainingRunner(
                        conf, new PrintStream(System.out, true, StandardCharsets.UTF_8), null)
                .onSubmit(submitted)
                .run(env, Duration.ofMinutes(4), last);
    }
}

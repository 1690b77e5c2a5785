package io.gnnstream.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.gnnstream.connectors.KafkaTopics;
import io.gnnstream.tools.DatasetInfo;
import io.gnnstream.tools.DatasetLoader;
import io.gnnstream.tools.Directories;
import io.gnnstream.tools.LocalKafkaBroker;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.flink.api.common.JobID;
import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A training job resumed from savepoints at other trainer counts and graph parallelisms
 * (docs/design.md, "Checkpoints and restore", "Another trainer count"): Cora from a real local
 * broker trains at parallelism 2 with 2 trainer ranks, takes a savepoint while it trains and is
 * cancelled, resumes from the savepoint at parallelism 1 with one rank, does the same again and
 * finishes at parallelism 3 with 2 ranks. Each resumed job continues the step count of its
 * savepoint, holds the whole graph (RocksDB key groups and Kafka offsets redistributed, no edge
 * read twice), keeps its replicas identical and learns. Savepoints, not the retained checkpoints:
 * those are unaligned, and Flink does not restore the in-flight data of a job with iterations at
 * another parallelism.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class RescaleITCase {

    private static final Path WORK = Path.of("target", "it-rescale");
    private static final Path CORA = Path.of("..", "data", "cora");
    private static final String EDGES = "rescale.edges";
    private static final String NODES = "rescale.nodes";
    private static final long STEPS = 120;

    /**
     * Steps each interrupted job trains past its first training line before its savepoint (counted
     * from where it resumed: the savepoint lands some steps after the line that triggered it).
     */
    private static final long LEG = 20;

    /** The job's default {@code --log-every}. */
    private static final long LOG_EVERY = 10;

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(3)
                            .build());

    private static LocalKafkaBroker broker;
    private static DatasetInfo cora;

    @BeforeAll
    @Timeout(180)
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
    void resumesAtOtherTrainerCountsAndParallelisms(@InjectClusterClient ClusterClient<?> client)
            throws Exception {
        Leg first = run(client, "p2-t2", 2, 2, null, LEG);
        assertReplicas(first.lines, 2);
        assertSteps(first.lines);
        Leg second = run(client, "p1-t1", 1, 1, first, LEG);
        assertResumed(first, second, 1);
        Leg third = run(client, "p3-t2", 3, 2, second, -1);
        assertResumed(second, third, 2);
        JsonNode last = third.result.finalLine();
        assertEquals(STEPS, last.path("step").asLong(), last.toString());
        assertTrue(last.path("replicas_identical").asBoolean(), last.toString());
        assertTrue(last.path("test_acc").asDouble() >= 0.78, "test accuracy: " + last);
    }

    /**
     * One job's run: its metrics lines (training and evaluation, not the final line), the step it
     * reported before its savepoint and the savepoint.
     */
    private record Leg(
            TrainingRunner.Result result, List<JsonNode> lines, long stopAt, String savepoint) {}

    /**
     * Runs the job at {@code parallelism} with {@code trainers} ranks, resumed from {@code from}'s
     * savepoint unless null, until it reports a training step {@code legSteps} past its first
     * training line and a savepoint is taken (or the final line when negative).
     */
    private static Leg run(
            ClusterClient<?> client,
            String name,
            int parallelism,
            int trainers,
            Leg from,
            long legSteps)
            throws Exception {
        Configuration conf = jobConfiguration(name, trainers);
        if (from != null) {
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, from.savepoint);
        }
        JobID[] job = new JobID[1];
        String[] savepoint = new String[1];
        long[] reported = new long[1];
        long[] firstTraining = {-1};
        List<JsonNode> lines = new ArrayList<>();
        Predicate<JsonNode> last =
                line -> {
                    if (line.path("final").asBoolean(false)) {
                        return true;
                    }
                    lines.add(line);
                    if (line.has("val_acc")) {
                        return false;
                    }
                    long step = line.path("step").asLong();
                    if (firstTraining[0] < 0) {
                        firstTraining[0] = step;
                    }
                    if (legSteps < 0 || step < firstTraining[0] + legSteps) {
                        return false;
                    }
                    reported[0] = line.path("step").asLong();
                    try {
                        savepoint[0] =
                                client.triggerSavepoint(
                                                job[0],
                                                WORK.resolve("savepoints")
                                                        .toAbsolutePath()
                                                        .toString(),
                                                SavepointFormatType.CANONICAL)
                                        .get(2, TimeUnit.MINUTES);
                    } catch (Exception e) {
                        throw new IllegalStateException("no savepoint of job " + job[0], e);
                    }
                    return true;
                };
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(parallelism);
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        TrainingRunner.Result result =
                new TrainingRunner(conf, out, null)
                        .onSubmit(id -> job[0] = id)
                        .run(env, Duration.ofMinutes(4), last);
        return new Leg(result, lines, legSteps < 0 ? -1 : reported[0], savepoint[0]);
    }

    /**
     * The resumed job continues after the savepoint's step, which is at least the step its
     * predecessor reported before the savepoint (only an evaluation round of the restored step
     * itself, run again, reports that step), every {@link #LOG_EVERY} steps without a gap, with the
     * whole graph and identical replicas.
     */
    private static void assertResumed(Leg before, Leg resumed, int ranks) {
        assertFalse(resumed.lines.isEmpty(), "no metrics line after the resume");
        JsonNode first =
                resumed.lines.stream().filter(l -> !l.has("val_acc")).findFirst().orElseThrow();
        String context =
                "savepoint after step "
                        + before.stopAt
                        + ", resumed from "
                        + before.savepoint
                        + " with "
                        + first;
        assertTrue(first.path("step").asLong() > before.stopAt, "no restart: " + context);
        assertTrue(resumed.lines.get(0).path("step").asLong() >= before.stopAt, context);
        assertSteps(resumed.lines);
        for (JsonNode line : resumed.lines) {
            if (!line.has("val_acc")) {
                assertEquals(
                        cora.edges(),
                        line.path("edges_ingested").asLong(),
                        "edges ingested once: " + line);
                assertEquals(cora.nodes(), line.path("vertices").asLong(), "every vertex: " + line);
            }
        }
        assertReplicas(resumed.lines, ranks);
    }

    /** A line every {@link #LOG_EVERY} steps, none missing, none repeated. */
    private static void assertSteps(List<JsonNode> lines) {
        for (int i = 1; i < lines.size(); i++) {
            assertEquals(
                    lines.get(i - 1).path("step").asLong() + LOG_EVERY,
                    lines.get(i).path("step").asLong(),
                    "after " + lines.get(i - 1));
        }
    }

    private static void assertReplicas(List<JsonNode> lines, int ranks) {
        for (JsonNode line : lines) {
            assertTrue(line.path("replicas_identical").asBoolean(), "replicas differ: " + line);
            assertTrue(
                    line.path("checksums").size() == ranks || line.path("ranks").asInt() == 1,
                    "a checksum per rank: " + line);
        }
    }

    private static Configuration jobConfiguration(String name, int trainers) throws Exception {
        Configuration conf = new Configuration();
        conf.set(KafkaOptions.BOOTSTRAP_SERVERS, broker.bootstrapServers());
        conf.set(KafkaOptions.EDGES_TOPIC, EDGES);
        conf.set(KafkaOptions.NODES_TOPIC, NODES);
        conf.set(KafkaOptions.TOPIC_PREFIX, "rescale-" + name);
        conf.set(KafkaOptions.GROUP_ID, "rescale");
        conf.set(GraphOptions.NUM_FEATURES, cora.featureDim());
        conf.set(GraphOptions.NUM_CLASSES, cora.numClasses());
        conf.set(GraphOptions.PARTITIONS, 16);
        // Halo replicas rescale with their partitions, and the replica router's state with its
        // vertices.
        conf.set(GraphOptions.HALO, GraphOptions.Halo.FEATURES);
        conf.set(ModelOptions.TRAINERS, trainers);
        conf.set(GraphOptions.RECORD_CACHE, MemorySize.parse("16mb"));
        conf.set(GraphOptions.ADJACENCY_CACHE, MemorySize.parse("16mb"));
        conf.set(ModelOptions.FEATURE_CACHE, MemorySize.parse("64mb"));
        conf.set(SamplingOptions.MAX_STEPS, STEPS);
        conf.set(SamplingOptions.EVAL_EVERY, 40);
        conf.set(SamplingOptions.MIN_VERTICES, cora.nodes());
        conf.set(SamplingOptions.MIN_EDGES, cora.edges());
        conf.set(SamplingOptions.BATCH_TIMEOUT_MS, 3_000L);
        conf.set(ModelOptions.CREDIT_RESEND_MS, 1_000L);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        JobDefaults.apply(conf, WORK.resolve("checkpoints"), Duration.ofSeconds(5));
        TrainingJob.ensureOutputTopics(conf);
        return conf;
    }
}

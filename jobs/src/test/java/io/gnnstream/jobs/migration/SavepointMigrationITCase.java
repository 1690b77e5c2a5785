package io.gnnstream.jobs.migration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.gnnstream.jobs.ModelOptions;
import io.gnnstream.jobs.SamplingOptions;
import io.gnnstream.jobs.TrainingRunner;
import io.gnnstream.tools.DatasetLoader;
import io.gnnstream.tools.LocalKafkaBroker;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every committed savepoint ({@code src/test/resources/migration/savepoint-v<N>/}, written by
 * {@link WriteMigrationSavepoint}) still restores with this build: a fresh local broker gets the
 * same topics with the same records in the same order (the savepoint's Kafka offsets refer to
 * them), and the job resumes from a copy of the savepoint with the recorded options, claiming all
 * of its state. The resumed job must carry on from the savepoint's step with the trained model and
 * the whole graph (no edge read twice) and train to the step limit; a state change that makes the
 * savepoint unreadable fails the restore, and so this test. Finally the resumed job's own savepoint
 * is audited: every state of this build has a versioned serializer snapshot, compatible as is.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class SavepointMigrationITCase {

    private static final Path WORK = Path.of("target", "it-migration");

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    static Stream<String> labels() throws IOException {
        return MigrationScenario.committedLabels().stream();
    }

    @ParameterizedTest(name = "savepoint-v{0}")
    @MethodSource("labels")
    void resumesFromTheCommittedSavepoint(
            String label, @InjectClusterClient ClusterClient<?> client) throws Exception {
        Path committed = MigrationScenario.committed(label);
        Properties recorded = MigrationScenario.readProperties(committed);
        long nodes = Long.parseLong(recorded.getProperty(MigrationScenario.NODES));
        long edges = Long.parseLong(recorded.getProperty(MigrationScenario.EDGES));
        long[] steps = MigrationScenario.steps(recorded);
        long savepointStep = Arrays.stream(steps).min().orElseThrow();
        Path work = WORK.resolve("v" + label + "-" + System.currentTimeMillis()).toAbsolutePath();
        // A copy elsewhere: the savepoint must be relocatable, and the committed one is never
        // touched.
        Path savepoint = work.resolve("savepoint");
        WriteMigrationSavepoint.copyTree(committed.resolve(MigrationScenario.SAVEPOINT), savepoint);

        List<JsonNode> lines = new ArrayList<>();
        String[] ownSavepoint = new String[1];
        TrainingRunner.Result result;
        Configuration conf;
        try (LocalKafkaBroker broker =
                LocalKafkaBroker.builder().workDir(work.resolve("kafka")).port(0).start()) {
            conf =
                    MigrationScenario.jobConfiguration(
                            recorded, broker.bootstrapServers(), work.resolve("checkpoints"));
            DatasetLoader.Result loaded =
                    MigrationScenario.load(
                            broker.bootstrapServers(),
                            conf,
                            Integer.parseInt(
                                    recorded.getProperty(MigrationScenario.TOPIC_PARTITIONS)),
                            committed.resolve(MigrationScenario.DATASET));
            assertEquals(nodes, loaded.nodes());
            assertEquals(edges, loaded.edges());
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint.toString());
            conf.set(StateRecoveryOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE, false);

            StreamExecutionEnvironment env =
                    StreamExecutionEnvironment.getExecutionEnvironment(conf);
            env.setParallelism(
                    Integer.parseInt(recorded.getProperty(MigrationScenario.PARALLELISM)));
            JobID[] job = new JobID[1];
            String ownDir = work.resolve("own-savepoints").toUri().toString();
            result =
                    new TrainingRunner(
                                    conf,
                                    new PrintStream(System.out, true, StandardCharsets.UTF_8),
                                    null)
                            .onSubmit(id -> job[0] = id)
                            .run(
                                    env,
                                    Duration.ofMinutes(2),
                                    line -> {
                                        lines.add(line);
                                        if (!line.path("final").asBoolean(false)) {
                                            return false;
                                        }
                                        try {
                                            ownSavepoint[0] =
                                                    client.triggerSavepoint(
                                                                    job[0],
                                                                    ownDir,
                                                                    SavepointFormatType.CANONICAL)
                                                            .get(60, TimeUnit.SECONDS);
                                        } catch (Exception e) {
                                            throw new IllegalStateException(
                                                    "savepoint of the resumed job failed", e);
                                        }
                                        return true;
                                    });
        }

        String context =
                "savepoint-v" + label + " at steps " + Arrays.toString(steps) + "; lines " + lines;
        List<JsonNode> windows =
                lines.stream().filter(l -> l.path("batches_per_s").asDouble() > 0).toList();
        assertFalse(windows.isEmpty(), context);
        JsonNode first = windows.get(0);
        long firstStep = first.path("step").asLong();
        int logEvery = conf.get(ModelOptions.LOG_EVERY);
        assertTrue(
                firstStep > savepointStep
                        && firstStep <= Arrays.stream(steps).max().orElseThrow() + logEvery,
                "the first line continues from the savepoint's step: " + context);
        for (JsonNode line : windows) {
            assertTrue(
                    line.path("step").asLong() > savepointStep,
                    "a step before the savepoint's: " + context);
        }
        double firstLoss =
                Double.parseDouble(recorded.getProperty(MigrationScenario.FIRST_LINE_LOSS));
        assertTrue(
                first.path("loss").asDouble() < firstLoss,
                "the trained model came back (the first line of the original run had loss "
                        + firstLoss
                        + "): "
                        + context);
        for (JsonNode line : lines) {
            if (line.has("vertices")) {
                assertEquals(nodes, line.path("vertices").asLong(), "vertices: " + context);
                assertEquals(
                        edges,
                        line.path("edges_ingested").asLong(),
                        "edges ingested once: " + context);
            }
        }
        JsonNode last = result.finalLine();
        assertTrue(last.path("final").asBoolean(false), context);
        assertEquals(conf.get(SamplingOptions.MAX_STEPS), last.path("step").asLong(), context);
        assertTrue(last.path("replicas_identical").asBoolean(), "replicas differ: " + context);

        List<String> problems =
                StateAudit.problems(
                        SavepointContents.read(SavepointContents.localPath(ownSavepoint[0])), true);
        assertTrue(
                problems.isEmpty(),
                "the resumed job's own savepoint: " + String.join("\n", problems));
    }
}

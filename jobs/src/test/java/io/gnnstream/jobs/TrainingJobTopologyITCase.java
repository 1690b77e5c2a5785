package io.gnnstream.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gnnstream.connectors.Reject;
import io.gnnstream.jobs.testing.CollectingSink;
import io.gnnstream.jobs.testing.FileLinesSource;
import io.gnnstream.operators.messages.Prediction;
import io.gnnstream.operators.model.gpu.CudaLibrary;
import io.gnnstream.tools.DatasetInfo;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.runtime.executiongraph.AccessExecutionVertex;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The job's real topology ({@link TrainingJob#build}) on a MiniCluster with RocksDB and
 * checkpoints, fed by bounded in-memory sources of the bundled Cora files and writing into
 * collecting sinks: no broker, so it checks the topology itself quickly. It must learn, count every
 * vertex and edge, and dead-letter every bad line with a reason.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class TrainingJobTopologyITCase {

    private static final Path CORA = Path.of("..", "data", "cora");
    private static final Path WORK = Path.of("target", "it-topology");

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    @ParameterizedTest(name = "trainers = {0}")
    @ValueSource(ints = {1, 2})
    void trainsOnBoundedSourcesAndDeadLettersBadLines(int trainers) throws Exception {
        DatasetInfo cora = DatasetInfo.scan(CORA);
        List<String> badEdges = List.of("1,two", "-5,3", "7,8,sideways");
        List<String> badNodes = List.of("{\"id\":1,\"features\":[1,2]}", "not json");

        Configuration conf = new Configuration();
        conf.set(GraphOptions.NUM_FEATURES, cora.featureDim());
        conf.set(GraphOptions.NUM_CLASSES, cora.numClasses());
        conf.set(GraphOptions.PARTITIONS, 16);
        conf.set(SamplingOptions.MAX_STEPS, 100L);
        conf.set(SamplingOptions.EVAL_EVERY, 50);
        conf.set(
                SamplingOptions.MIN_TRAIN_SEEDS,
                (int) cora.splitCount(io.gnnstream.state.records.Split.TRAIN));
        conf.set(ModelOptions.TRAINERS, trainers);
        conf.set(SamplingOptions.MIN_VERTICES, cora.nodes());
        conf.set(SamplingOptions.MIN_EDGES, cora.edges());
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        JobDefaults.apply(conf, WORK.resolve("checkpoints"), Duration.ofMillis(500));
        TrainingJob.validate(conf);

        CollectingSink<Reject> rejects = CollectingSink.named("topology-rejects-" + trainers);
        CollectingSink<String> metrics = CollectingSink.named("topology-metrics-" + trainers);
        CollectingSink<Prediction> predictions =
                CollectingSink.named("topology-predictions-" + trainers);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        new TrainingJob(conf)
                .build(
                        env,
                        FileLinesSource.of(
                                "edges", List.of(CORA.resolve(DatasetInfo.EDGES_FILE)), badEdges),
                        FileLinesSource.of(
                                "nodes", List.of(CORA.resolve(DatasetInfo.NODES_FILE)), badNodes),
                        rejects,
                        metrics,
                        predictions);
        JobClient job = env.executeAsync(TrainingJob.streamGraph(env));
        JsonNode last;
        JsonNode progress = null;
        try {
            last = finalLine(metrics);
            // Predictions reach their sink on a path of their own: wait for those of the final
            // evaluation.
            for (int i = 0;
                    i < 300
                            && predictions.received().stream().filter(p -> p.step == 100).count()
                                    < cora.nodes();
                    i++) {
                Thread.sleep(100);
            }
            for (String line : metrics.received()) {
                JsonNode node = new ObjectMapper().readTree(line);
                if (node.has("edges_ingested")) {
                    progress = node;
                }
                assertEquals(trainers, node.path("checksums").size(), line);
                assertTrue(node.path("replicas_identical").asBoolean(), "replicas differ: " + line);
            }
        } finally {
            job.cancel().get(60, TimeUnit.SECONDS);
        }

        assertTrue(last.path("test_acc").asDouble() >= 0.75, "final line " + last);
        assertEquals(100, last.path("step").asLong());
        assertTrue(progress != null, "no progress line");
        assertEquals(
                cora.edges(),
                progress.path("edges_ingested").asLong(),
                "last progress line " + progress);
        assertEquals(
                cora.nodes(), progress.path("vertices").asLong(), "last progress line " + progress);
        List<Reject> dead = rejects.received();
        Set<String> deadValues = dead.stream().map(r -> r.value).collect(Collectors.toSet());
        for (String bad : badEdges) {
            assertTrue(deadValues.contains(bad), "not dead-lettered: " + bad);
        }
        for (String bad : badNodes) {
            assertTrue(deadValues.contains(bad), "not dead-lettered: " + bad);
        }
        assertEquals(badEdges.size() + badNodes.size(), dead.size(), dead.toString());
        // Every evaluation (after steps 50 and 100) predicts every vertex once, whatever the rank
        // count.
        Map<Long, Long> perStep =
                predictions.received().stream()
                        .collect(Collectors.groupingBy(p -> p.step, Collectors.counting()));
        assertEquals(Map.of(50L, cora.nodes(), 100L, cora.nodes()), perStep);
        for (Prediction p : predictions.received()) {
            double sum = 0;
            for (float q : p.probs) {
                sum += q;
            }
            assertEquals(1.0, sum, 1e-4);
        }
        dead.forEach(
                r -> assertFalse(r.reason == null || r.reason.isBlank(), "no reason: " + r.value));
    }

    /**
     * {@code --device cuda} where the CUDA library is missing: the ranks fail at their start and
     * the job ends at once, under the job's own restart strategy (exponential delay), with no task
     * restarted and a failure that names the library.
     */
    @Test
    void aRankWithoutItsGpuFailsTheJobOnceNamingTheLibrary(
            @TempDir Path dir, @InjectMiniCluster MiniCluster cluster) throws Exception {
        Path missing = dir.resolve("not-built").resolve(CudaLibrary.FILE_NAME).toAbsolutePath();
        String previous = System.getProperty("gnnstream.gpu.library");
        System.setProperty("gnnstream.gpu.library", missing.toString());
        try {
            DatasetInfo cora = DatasetInfo.scan(CORA);
            Configuration conf = new Configuration();
            conf.set(GraphOptions.NUM_FEATURES, cora.featureDim());
            conf.set(GraphOptions.NUM_CLASSES, cora.numClasses());
            conf.set(GraphOptions.PARTITIONS, 16);
            conf.set(ModelOptions.TRAINERS, 2);
            conf.set(ModelOptions.DEVICE, "cuda");
            JobDefaults.apply(conf, WORK.resolve("checkpoints-cuda"), Duration.ofMillis(500));
            TrainingJob.validate(conf);
            StreamExecutionEnvironment env =
                    StreamExecutionEnvironment.getExecutionEnvironment(conf);
            env.setParallelism(2);
            new TrainingJob(conf)
                    .build(
                            env,
                            FileLinesSource.of(
                                    "edges",
                                    List.of(CORA.resolve(DatasetInfo.EDGES_FILE)),
                                    List.of()),
                            FileLinesSource.of(
                                    "nodes",
                                    List.of(CORA.resolve(DatasetInfo.NODES_FILE)),
                                    List.of()),
                            CollectingSink.<Reject>named("cuda-rejects"),
                            CollectingSink.<String>named("cuda-metrics"),
                            CollectingSink.<Prediction>named("cuda-predictions"));
            JobClient job = env.executeAsync(TrainingJob.streamGraph(env));
            ExecutionException failed =
                    assertThrows(
                            ExecutionException.class,
                            () -> job.getJobExecutionResult().get(2, TimeUnit.MINUTES));
            String cause = TrainingRunner.cause(failed);
            assertTrue(cause.contains(missing.toString()) && cause.contains("--device cpu"), cause);
            assertTrue(
                    ExceptionUtils.findThrowable(failed, SuppressRestartsException.class)
                            .isPresent(),
                    cause);
            for (AccessExecutionVertex vertex :
                    cluster.getArchivedExecutionGraph(job.getJobID())
                            .get(1, TimeUnit.MINUTES)
                            .getAllExecutionVertices()) {
                assertEquals(
                        0,
                        vertex.getCurrentExecutionAttempt().getAttemptNumber(),
                        vertex.getTaskNameWithSubtaskIndex() + " was restarted");
            }
        } finally {
            if (previous == null) {
                System.clearProperty("gnnstream.gpu.library");
            } else {
                System.setProperty("gnnstream.gpu.library", previous);
            }
        }
    }

    /** Waits for the final metrics line; the lines stay in the sink's queue. */
    private static JsonNode finalLine(CollectingSink<String> metrics) throws Exception {
        ObjectMapper json = new ObjectMapper();
        int seen = 0;
        while (true) {
            List<String> lines = metrics.received();
            for (; seen < lines.size(); seen++) {
                JsonNode node = json.readTree(lines.get(seen));
                if (node.path("final").asBoolean(false)) {
                    return node;
                }
            }
            Thread.sleep(200);
        }
    }
}

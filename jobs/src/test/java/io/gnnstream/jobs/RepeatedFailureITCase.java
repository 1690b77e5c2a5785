package io.gnnstream.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.connectors.KafkaTopics;
import io.gnnstream.tools.DatasetInfo;
import io.gnnstream.tools.DatasetLoader;
import io.gnnstream.tools.Directories;
import io.gnnstream.tools.LocalKafkaBroker;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A failure that repeats at every restore ends the run soon: a trainer that throws at its third
 * step at every attempt, on a local MiniCluster with its REST endpoint (as {@code demo} and {@code
 * train} run it) and the real local broker, under the default restart strategy (20 restarts with
 * growing delays, about 16 minutes): {@link TrainingRunner} cancels the job at the third failure in
 * a row and throws with the cause in one line, within 2 minutes. A failure that happens once is
 * recovered from as before.
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class RepeatedFailureITCase {

    private static final Path WORK = Path.of("target", "it-repeated-failure");
    private static final Path CORA = Path.of("..", "data", "cora");
    private static final String EDGES = "repeated.edges";
    private static final String NODES = "repeated.nodes";

    private static LocalKafkaBroker broker;
    private static DatasetInfo cora;

    @BeforeAll
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    static void startBrokerAndLoadCora() throws Exception {
        Directories.deleteRecursively(WORK);
        broker = LocalKafkaBroker.builder().workDir(WORK.resolve("kafka")).port(0).start();
        cora = DatasetInfo.scan(CORA);
        KafkaTopics.ensure(broker.bootstrapServers(), 1, EDGES, NODES);
        new DatasetLoader(broker.bootstrapServers()).progress(false).load(CORA, EDGES, NODES);
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void aFailureAtEveryRestoreEndsTheRunWithItsCauseWithinTwoMinutes() throws Exception {
        Configuration conf = jobConfiguration("always");
        conf.set(RunOptions.INJECT_FAULT, "trainer:0:3:always");
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        long[] submitted = {0};
        long started = System.nanoTime();
        TrainingRunner.JobFailedException failed =
                assertThrows(
                        TrainingRunner.JobFailedException.class,
                        () -> train(conf, printed, () -> submitted[0] = System.nanoTime()));
        long ended = System.nanoTime();
        List<String> failures = failureLines(printed);
        System.out.println(
                "RepeatedFailureITCase: gave up "
                        + TimeUnit.NANOSECONDS.toMillis(ended - submitted[0])
                        + " ms after the submission ("
                        + TimeUnit.NANOSECONDS.toMillis(ended - started)
                        + " ms with the start), failures seen: "
                        + failures);
        assertEquals(
                "training job FAILED 3 times in a row with the same cause (cancelled):"
                        + " InjectedFailure: trainer subtask 0 fails at event 3 (injected at every"
                        + " attempt)",
                failed.getMessage());
        // A checkpoint that completes between two failures is progress and starts the count
        // again: how often that happens before the failure depends on timing.
        assertTrue(failures.size() >= 3, String.join("\n", failures));
        assertTrue(
                failures.get(failures.size() - 1).startsWith("Job failed (3 of 3 in a row"),
                String.join("\n", failures));
        assertTrue(
                ended - submitted[0] < TimeUnit.MINUTES.toNanos(2),
                "took " + TimeUnit.NANOSECONDS.toSeconds(ended - submitted[0]) + " s");
    }

    @Test
    void aFailureThatHappensOnceIsRecovered() throws Exception {
        Configuration conf = jobConfiguration("once");
        Path marker = WORK.resolve("fault-once");
        conf.set(RunOptions.INJECT_FAULT, "trainer:0:3");
        conf.set(RunOptions.FAULT_MARKER, marker.toAbsolutePath().toString());
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        TrainingRunner.Result result = train(conf, printed, () -> {});
        assertTrue(Files.exists(marker), "the injected failure did not happen");
        assertEquals(30, result.finalLine().path("step").asLong());
        List<String> failures = failureLines(printed);
        assertEquals(
                List.of(
                        "Job failed (1 of 3 in a row with this cause): InjectedFailure: trainer"
                                + " subtask 0 fails at event 3 (injected once)"),
                failures);
    }

    private static List<String> failureLines(ByteArrayOutputStream printed) {
        return printed.toString(StandardCharsets.UTF_8)
                .lines()
                .filter(l -> l.startsWith("Job failed"))
                .collect(Collectors.toList());
    }

    private static Configuration jobConfiguration(String name) throws Exception {
        Configuration conf = new Configuration();
        conf.set(KafkaOptions.BOOTSTRAP_SERVERS, broker.bootstrapServers());
        conf.set(KafkaOptions.EDGES_TOPIC, EDGES);
        conf.set(KafkaOptions.NODES_TOPIC, NODES);
        conf.set(KafkaOptions.TOPIC_PREFIX, "repeated-" + name);
        conf.set(KafkaOptions.GROUP_ID, "repeated-" + name);
        conf.set(GraphOptions.NUM_FEATURES, cora.featureDim());
        conf.set(GraphOptions.NUM_CLASSES, cora.numClasses());
        conf.set(GraphOptions.RECORD_CACHE, MemorySize.parse("16mb"));
        conf.set(GraphOptions.ADJACENCY_CACHE, MemorySize.parse("16mb"));
        conf.set(ModelOptions.FEATURE_CACHE, MemorySize.parse("64mb"));
        conf.set(SamplingOptions.BATCH_SIZE, 32);
        conf.set(SamplingOptions.MAX_STEPS, 30L);
        conf.set(SamplingOptions.EVAL_EVERY, 10);
        conf.set(SamplingOptions.MIN_VERTICES, cora.nodes());
        conf.set(SamplingOptions.MIN_EDGES, cora.edges());
        // The default restart strategy: exponential delays from 2 s, 20 restarts.
        JobDefaults.apply(conf, WORK.resolve("checkpoints-" + name));
        TrainingJob.ensureOutputTopics(conf);
        return conf;
    }

    /** Runs the job as {@code demo} does: a local MiniCluster with its REST endpoint. */
    private static TrainingRunner.Result train(
            Configuration conf, ByteArrayOutputStream printed, Runnable onSubmit) throws Exception {
        StreamExecutionEnvironment env = LocalFlink.environment(conf, 1, 0);
        PrintStream both =
                new PrintStream(
                        new java.io.OutputStream() {
                            @Override
                            public void write(int b) {
                                System.out.write(b);
                                printed.write(b);
                            }

                            @Override
                            public void write(byte[] b, int off, int len) {
                                System.out.write(b, off, len);
                                printed.write(b, off, len);
                            }
                        },
                        true,
                        StandardCharsets.UTF_8);
        return new TrainingRunner(conf, both, null)
                .onSubmit(id -> onSubmit.run())
                .run(env, Duration.ofMinutes(4));
    }
}

package io.gnnstream.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gnnstream.connectors.KafkaTopics;
import io.gnnstream.connectors.ParseFunction;
import io.gnnstream.tools.DatasetInfo;
import io.gnnstream.tools.DatasetLoader;
import io.gnnstream.tools.Directories;
import io.gnnstream.tools.LocalKafkaBroker;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.LongUnaryOperator;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The real topology on a MiniCluster (RocksDB, checkpoints) fed from a real local Kafka broker with
 * the bundled Cora graph: it must learn, and bad input must end up in the dead-letter topic and in
 * the reject counters, never stop the job.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class TrainingJobITCase {

    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();
    private static final Path WORK = Path.of("target", "it-training");
    private static final Path CORA = Path.of("..", "data", "cora");

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
                                                            MemorySize.ofMebiBytes(512))))
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
    void learnsCoraStreamedThroughKafka() throws Exception {
        Configuration conf = jobConfiguration("clean", 150);
        conf.set(GraphOptions.HALO, GraphOptions.Halo.FEATURES);
        // The counts below are of the whole graph: train once it is in.
        conf.set(SamplingOptions.MIN_VERTICES, cora.nodes());
        conf.set(SamplingOptions.MIN_EDGES, cora.edges());
        load(CORA, conf);
        TrainingRunner.Result result = train(conf, 2);
        assertTrue(result.testAccuracy() >= 0.75, "test accuracy " + result.finalLine());
        assertEquals(0, counterSum(result, ParseFunction.REJECTS_METRIC));
        assertEquals(cora.nodes() + cora.edges(), counterSum(result, ParseFunction.RECORDS_METRIC));
        // The live edge cut's numerator: edges whose ends hash to different partitions.
        io.gnnstream.state.HashPartitioner hash =
                new io.gnnstream.state.HashPartitioner(conf.get(GraphOptions.PARTITIONS));
        long cut =
                Files.readAllLines(CORA.resolve("edges.csv")).stream()
                        .filter(l -> !l.isBlank())
                        .map(l -> l.split(","))
                        .filter(
                                e ->
                                        hash.partition(Long.parseLong(e[0]))
                                                != hash.partition(Long.parseLong(e[1])))
                        .count();
        assertEquals(cut, counterSum(result, "cutEdgesIngested"));
        // One halo replica per GraphStore subtask and source of the other subtask with an edge into
        // it.
        // Logical partition p is key group p; Flink assigns key groups to the 2 subtasks.
        int partitions = conf.get(GraphOptions.PARTITIONS);
        LongUnaryOperator site =
                v ->
                        KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup(
                                partitions, 2, hash.partition(v));
        long replicas =
                Files.readAllLines(CORA.resolve("edges.csv")).stream()
                        .filter(l -> !l.isBlank())
                        .map(l -> l.split(","))
                        .filter(
                                e ->
                                        site.applyAsLong(Long.parseLong(e[0]))
                                                != site.applyAsLong(Long.parseLong(e[1])))
                        .map(e -> site.applyAsLong(Long.parseLong(e[1])) + ":" + e[0])
                        .distinct()
                        .count();
        assertTrue(replicas > 1000, replicas + " replicas");
        assertEquals(replicas, gaugeSum(result, "haloReplicas"));
        // A push creates each replica; the one update of each node pushes again to the replicas
        // made before it.
        long pushes = counterSum(result, "replicaPushes");
        assertTrue(
                pushes >= replicas && pushes <= 2 * replicas,
                pushes + " pushes for " + replicas + " replicas");
    }

    @Test
    void deadLettersEveryBadLineAndStillLearns() throws Exception {
        Path dirty = WORK.resolve("dirty-cora");
        List<String> badLines = writeDirtyCopy(CORA, dirty);
        Configuration conf = jobConfiguration("dirty", 150);
        load(dirty, conf);
        TrainingRunner.Result result = train(conf, 2);
        assertTrue(result.testAccuracy() >= 0.75, "test accuracy " + result.finalLine());
        assertEquals(badLines.size(), counterSum(result, ParseFunction.REJECTS_METRIC));

        Map<String, String> reasons = readRejects(KafkaOptions.rejectsTopic(conf), badLines.size());
        for (String bad : badLines) {
            assertTrue(reasons.containsKey(bad), "not dead-lettered: " + bad);
            assertTrue(!reasons.get(bad).isBlank(), "no reason for: " + bad);
        }
        assertEquals(badLines.size(), reasons.size());
    }

    /**
     * A job cancelled mid-training resumes from its last retained checkpoint: the graph comes back
     * from RocksDB state and the Kafka offsets from the sources' state (no edge is read twice), the
     * model and the step count from the trainer's, and training carries on to the step limit,
     * repeating the steps after the checkpoint exactly. With halo replicas (on hash placement every
     * site holds some) the replicas and the router's state come back as well; their extra writes
     * keep the GraphStore busy, so a checkpoint finds records in flight on its input channels.
     */
    @ParameterizedTest(name = "halo {0}")
    @EnumSource(GraphOptions.Halo.class)
    void resumesFromItsLastRetainedCheckpoint(GraphOptions.Halo halo) throws Exception {
        Configuration conf =
                jobConfiguration("resume-" + halo.name().toLowerCase(Locale.ROOT), 600);
        conf.set(GraphOptions.HALO, halo);
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(300));
        Path checkpoints =
                Path.of(URI.create(conf.get(CheckpointingOptions.CHECKPOINTS_DIRECTORY)));
        Directories.deleteRecursively(checkpoints);
        load(CORA, conf);
        // Stop two checkpoints after step 60 was reported, so the last one was taken after it.
        long[] checkpointAtStep60 = {-1};
        Map<Long, Double> lossBefore = new HashMap<>();
        TrainingRunner.Result first =
                train(
                        conf,
                        2,
                        line -> {
                            if (line.path("batches_per_s").asDouble() > 0) {
                                lossBefore.put(
                                        line.path("step").asLong(), line.path("loss").asDouble());
                            }
                            long latest =
                                    latestCheckpoint(checkpoints)
                                            .map(TrainingJobITCase::checkpointNumber)
                                            .orElse(0L);
                            if (checkpointAtStep60[0] < 0 && line.path("step").asLong() >= 60) {
                                checkpointAtStep60[0] = latest;
                            }
                            return checkpointAtStep60[0] >= 0
                                    && latest >= checkpointAtStep60[0] + 2;
                        });
        long stoppedAt = first.finalLine().path("step").asLong();
        Path restoreFrom =
                latestCheckpoint(checkpoints.resolve(first.jobId().toString())).orElseThrow();

        conf.set(StateRecoveryOptions.SAVEPOINT_PATH, restoreFrom.toString());
        List<JsonNode> lines = new ArrayList<>();
        TrainingRunner.Result resumed =
                train(
                        conf,
                        2,
                        line -> {
                            lines.add(line);
                            return line.path("final").asBoolean(false);
                        });
        // Training windows only: a restore between a step and its evaluation reports the evaluation
        // on a line of its own.
        List<JsonNode> all =
                lines.stream().filter(l -> l.path("batches_per_s").asDouble() > 0).toList();
        // A line the first job wrote after its stop condition can reach the topic late: the resumed
        // job's lines start at its lowest step.
        int start = 0;
        for (int i = 1; i < all.size(); i++) {
            if (all.get(i).path("step").asLong() < all.get(start).path("step").asLong()) {
                start = i;
            }
        }
        List<JsonNode> windows = all.subList(start, all.size());
        JsonNode firstResumed = windows.get(0);
        String context =
                "stopped at step "
                        + stoppedAt
                        + ", resumed from "
                        + restoreFrom
                        + " with "
                        + firstResumed;
        assertTrue(
                firstResumed.path("step").asLong() > 60
                        && firstResumed.path("step").asLong() <= stoppedAt + 10,
                context);
        assertTrue(
                firstResumed.path("loss").asDouble() < 1.2,
                "the trained model came back: " + context);
        assertTrue(
                firstResumed.path("elapsed_s").asDouble() < 20,
                "no stall after the restore: " + context);
        assertEquals(
                cora.edges(),
                firstResumed.path("edges_ingested").asLong(),
                "edges ingested once: " + context);
        // A window that lies wholly after the restored step holds the same training steps as before
        // the stop: the same batches, the same updates, the same loss to the bit.
        for (JsonNode line : windows.subList(1, windows.size())) {
            Double before = lossBefore.get(line.path("step").asLong());
            if (before != null) {
                assertEquals(
                        before,
                        line.path("loss").asDouble(),
                        "loss at step " + line.path("step") + ": " + context);
            }
        }
        assertEquals(600, resumed.finalLine().path("step").asLong());
        assertTrue(resumed.testAccuracy() >= 0.75, "test accuracy " + resumed.finalLine());
    }

    private static long checkpointNumber(Path chk) {
        return Long.parseLong(chk.getFileName().toString().substring("chk-".length()));
    }

    /**
     * The newest completed checkpoint ({@code chk-N} with its metadata) below {@code dir}, if any.
     */
    private static Optional<Path> latestCheckpoint(Path dir) {
        if (!Files.isDirectory(dir)) {
            return Optional.empty();
        }
        // Lists names only, in dir and in its job directories: a walk would also read the
        // attributes
        // of the files in shared/, which Flink deletes while the job runs.
        List<Path> checkpoints = new ArrayList<>();
        for (Path p : entries(dir)) {
            if (p.getFileName().toString().startsWith("chk-")) {
                checkpoints.add(p);
            } else {
                entries(p).stream()
                        .filter(c -> c.getFileName().toString().startsWith("chk-"))
                        .forEach(checkpoints::add);
            }
        }
        return checkpoints.stream()
                .filter(p -> Files.exists(p.resolve("_metadata")))
                .max(Comparator.comparingLong(TrainingJobITCase::checkpointNumber));
    }

    /** The entries of a directory; none when it is not one (any more). */
    private static List<Path> entries(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.collect(Collectors.toList());
        } catch (java.nio.file.NoSuchFileException | java.nio.file.NotDirectoryException gone) {
            return List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Configuration jobConfiguration(String prefix, long steps) {
        Configuration conf = new Configuration();
        conf.set(KafkaOptions.BOOTSTRAP_SERVERS, broker.bootstrapServers());
        conf.set(KafkaOptions.TOPIC_PREFIX, prefix);
        conf.set(KafkaOptions.GROUP_ID, prefix);
        conf.set(GraphOptions.NUM_FEATURES, cora.featureDim());
        conf.set(GraphOptions.NUM_CLASSES, cora.numClasses());
        conf.set(GraphOptions.PARTITIONS, 16);
        conf.set(SamplingOptions.MAX_STEPS, steps);
        conf.set(SamplingOptions.EVAL_EVERY, 50);
        conf.set(SamplingOptions.MIN_TRAIN_SEEDS, 140);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        JobDefaults.apply(conf, WORK.resolve("checkpoints-" + prefix), Duration.ofSeconds(5));
        return conf;
    }

    private static void load(Path dataset, Configuration conf) throws IOException {
        String edges = KafkaOptions.edgesTopic(conf);
        String nodes = KafkaOptions.nodesTopic(conf);
        KafkaTopics.ensure(broker.bootstrapServers(), 2, edges, nodes);
        TrainingJob.ensureOutputTopics(conf);
        new DatasetLoader(broker.bootstrapServers()).progress(false).load(dataset, edges, nodes);
    }

    private static TrainingRunner.Result train(Configuration conf, int parallelism)
            throws Exception {
        return train(conf, parallelism, line -> line.path("final").asBoolean(false));
    }

    private static TrainingRunner.Result train(
            Configuration conf, int parallelism, Predicate<JsonNode> last) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(parallelism);
        return new TrainingRunner(
                        conf, new PrintStream(System.out, true, StandardCharsets.UTF_8), null)
                .run(env, Duration.ofMinutes(8), last);
    }

    private static long gaugeSum(TrainingRunner.Result result, String name) {
        long sum = 0;
        for (Map.Entry<String, Metric> e : REPORTER.findMetrics(result.jobId(), name).entrySet()) {
            if (e.getValue() instanceof Gauge && e.getKey().endsWith("." + name)) {
                sum += ((Number) ((Gauge<?>) e.getValue()).getValue()).longValue();
            }
        }
        return sum;
    }

    private static long counterSum(TrainingRunner.Result result, String name) {
        long sum = 0;
        for (Map.Entry<String, Metric> e : REPORTER.findMetrics(result.jobId(), name).entrySet()) {
            if (e.getValue() instanceof Counter && e.getKey().endsWith("." + name)) {
                sum += ((Counter) e.getValue()).getCount();
            }
        }
        return sum;
    }

    /** Copies a dataset, inserting a bad line of every kind after every 100th line. */
    private static List<String> writeDirtyCopy(Path source, Path target) throws IOException {
        Files.createDirectories(target);
        List<String> bad = new ArrayList<>();
        String[] edgeKinds = {"x%d,1", "%d,-5", "%d;7", "%d,8,*", "%d", "%d,9,+,-1,extra"};
        String[] nodeKinds = {
            "{\"id\":%d,\"label\":1,\"split\":\"train\",\"features\":[1,0]}",
            "{\"id\":%d,\"label\":1,\"split\":\"dev\",\"features\":[]}",
            "{\"id\":-%d,\"label\":1,\"split\":\"none\",\"features\":[]}",
            "{\"id\":%d,\"label\":99,\"split\":\"none\",\"features\":[]}",
            "{\"id\":%d,\"label\":1,\"split\":\"none\",\"features\":[NaN]}",
            "{\"id\":%d,oops"
        };
        copyWithBadLines(
                source.resolve("edges.csv"),
                target.resolve("edges.csv"),
                edgeKinds,
                100_000,
                bad,
                false);
        copyWithBadLines(
                source.resolve("nodes.jsonl"),
                target.resolve("nodes.jsonl"),
                nodeKinds,
                200_000,
                bad,
                true);
        return bad;
    }

    private static void copyWithBadLines(
            Path in, Path out, String[] kinds, int idBase, List<String> bad, boolean nodes)
            throws IOException {
        try (BufferedReader r = Files.newBufferedReader(in);
                BufferedWriter w = Files.newBufferedWriter(out)) {
            String line;
            int n = 0;
            while ((line = r.readLine()) != null) {
                w.write(line);
                w.newLine();
                if (++n % 100 == 0) {
                    String kind = kinds[(n / 100) % kinds.length];
                    String badLine = String.format(kind, idBase + n);
                    if (nodes && kind.contains("\"features\":[]")) {
                        badLine =
                                badLine.replace(
                                        "\"features\":[]",
                                        "\"features\":" + zeros(cora.featureDim()));
                    }
                    bad.add(badLine);
                    w.write(badLine);
                    w.newLine();
                }
            }
        }
    }

    private static String zeros(int n) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < n; i++) {
            b.append(i == 0 ? "0" : ",0");
        }
        return b.append(']').toString();
    }

    private static Map<String, String> readRejects(String topic, int expected) throws IOException {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "it-rejects-reader");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        ObjectMapper json = new ObjectMapper();
        Map<String, String> reasons = new HashMap<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (reasons.size() < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record :
                        consumer.poll(Duration.ofMillis(500))) {
                    JsonNode reject = json.readTree(record.value());
                    reasons.put(reject.path("value").asText(), reject.path("reason").asText());
                }
            }
        }
        return reasons;
    }
}

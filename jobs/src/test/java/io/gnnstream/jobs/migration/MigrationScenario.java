package io.gnnstream.jobs.migration;

import io.gnnstream.connectors.KafkaTopics;
import io.gnnstream.jobs.GraphOptions;
import io.gnnstream.jobs.JobDefaults;
import io.gnnstream.jobs.KafkaOptions;
import io.gnnstream.jobs.ModelOptions;
import io.gnnstream.jobs.PredictionOptions;
import io.gnnstream.jobs.RunOptions;
import io.gnnstream.jobs.SamplingOptions;
import io.gnnstream.jobs.TrainingJob;
import io.gnnstream.state.records.Split;
import io.gnnstream.tools.DatasetInfo;
import io.gnnstream.tools.DatasetLoader;
import io.gnnstream.tools.SyntheticGraphOptions;
import java.io.IOException;
import java.io.InputStream;
import java.io.Writer;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestartStrategyOptions;

/**
 * The run behind a committed migration savepoint ({@code
 * src/test/resources/migration/savepoint-v<N>/}): the graph, the job options and the file that
 * records them. A committed savepoint directory holds
 *
 * <ul>
 *   <li>{@code dataset/}: the graph's {@code nodes.jsonl} and {@code edges.csv}, produced into the
 *       topics in file order, so that the Kafka offsets in the savepoint mean the same records;
 *   <li>{@code savepoint/}: the canonical savepoint ({@code _metadata} and its state files);
 *   <li>{@value #PROPERTIES}: the job options ({@code option.<key>}), the parallelism, the input
 *       topics' partition count, the graph's totals and the trainer ranks' steps in the savepoint.
 * </ul>
 */
public final class MigrationScenario {

    public static final String PROPERTIES = "savepoint.properties";
    public static final String DATASET = "dataset";
    public static final String SAVEPOINT = "savepoint";

    public static final String PARALLELISM = "job.parallelism";
    public static final String TOPIC_PARTITIONS = "topics.partitions";
    public static final String NODES = "dataset.nodes";
    public static final String EDGES = "dataset.edges";

    /** Per trainer rank, comma-separated: the optimizer updates its model state holds. */
    public static final String STEPS = "savepoint.steps";

    /** The step of the last metrics line the writer saw before it triggered the savepoint. */
    public static final String LAST_LINE_STEP = "savepoint.last-line-step";

    public static final String LAST_LINE_LOSS = "savepoint.last-line-loss";
    public static final String FIRST_LINE_LOSS = "run.first-line-loss";
    public static final String OPTION_PREFIX = "option.";

    /** Savepoint is triggered once a metrics line reports this step or a later one. */
    static final long SAVEPOINT_AFTER_STEP = 60;

    static final long MAX_STEPS = 120;
    static final int PARALLELISM_VALUE = 2;

    /** The job's parallelism: incremental predictions run at parallelism 1. */
    static int parallelism(boolean incremental) {
        return incremental ? 1 : PARALLELISM_VALUE;
    }

    static final int TOPIC_PARTITIONS_VALUE = 2;

    private MigrationScenario() {}

    /** The small synthetic graph a new savepoint is written with. */
    static SyntheticGraphOptions graph() {
        return SyntheticGraphOptions.builder()
                .vertices(300)
                .avgDegree(5)
                .features(16)
                .classes(4)
                .splits(0.4, 0.2, 0.3)
                .seed(7)
                .build();
    }

    /**
     * The options a new savepoint is written with (the restoring test reads them back from {@value
     * #PROPERTIES}): two trainer ranks, training once the whole graph is in.
     */
    static Configuration options(DatasetInfo dataset, boolean incremental) {
        Configuration conf = new Configuration();
        conf.set(KafkaOptions.TOPIC_PREFIX, "migration");
        conf.set(KafkaOptions.GROUP_ID, "migration");
        conf.set(GraphOptions.NUM_FEATURES, dataset.featureDim());
        conf.set(GraphOptions.NUM_CLASSES, dataset.numClasses());
        conf.set(GraphOptions.PARTITIONS, 16);
        conf.set(GraphOptions.RECORD_CACHE, MemorySize.parse("16mb"));
        conf.set(GraphOptions.ADJACENCY_CACHE, MemorySize.parse("16mb"));
        conf.set(ModelOptions.FEATURE_CACHE, MemorySize.parse("16mb"));
        conf.set(ModelOptions.TRAINERS, 2);
        conf.set(ModelOptions.HIDDEN, 32);
        conf.set(ModelOptions.CREDIT_RESEND_MS, 1_000L);
        conf.set(RunOptions.PARALLELISM, parallelism(incremental));
        if (incremental) {
            conf.set(PredictionOptions.PREDICTION_UPDATES, PredictionOptions.Updates.INCREMENTAL);
            // Incremental predictions flow at every checkpoint, so an exactly-once sink would leave
            // an open transaction in the savepoint, which the restoring test's fresh broker does
            // not know (InvalidPidMappingException at the commit).
            conf.set(KafkaOptions.PREDICTIONS_DELIVERY, KafkaOptions.Delivery.AT_LEAST_ONCE);
        }
        conf.set(SamplingOptions.BATCH_SIZE, 32);
        conf.set(SamplingOptions.MAX_STEPS, MAX_STEPS);
        conf.set(SamplingOptions.EVAL_EVERY, 50);
        conf.set(SamplingOptions.MIN_TRAIN_SEEDS, (int) dataset.splitCount(Split.TRAIN));
        conf.set(SamplingOptions.MIN_VERTICES, dataset.nodes());
        conf.set(SamplingOptions.MIN_EDGES, dataset.edges());
        conf.set(SamplingOptions.BATCH_TIMEOUT_MS, 3_000L);
        return conf;
    }

    /**
     * The job's configuration: the recorded options, the broker, a checkpoint directory and no
     * restarts (a restore failure fails the job at once), with {@link JobDefaults}.
     */
    public static Configuration jobConfiguration(
            Properties recorded, String bootstrapServers, Path checkpoints) {
        Map<String, String> options = new TreeMap<>();
        for (String key : recorded.stringPropertyNames()) {
            if (key.startsWith(OPTION_PREFIX)) {
                options.put(key.substring(OPTION_PREFIX.length()), recorded.getProperty(key));
            }
        }
        Configuration conf = Configuration.fromMap(options);
        conf.set(KafkaOptions.BOOTSTRAP_SERVERS, bootstrapServers);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        JobDefaults.apply(conf, checkpoints, Duration.ofSeconds(2));
        TrainingJob.validate(conf);
        return conf;
    }

    /**
     * Creates the input topics with {@code partitions} partitions and the job's output topics, and
     * produces the dataset into the input topics in file order; returns the records produced.
     */
    public static DatasetLoader.Result load(
            String bootstrapServers, Configuration conf, int partitions, Path dataset)
            throws IOException {
        String edges = KafkaOptions.edgesTopic(conf);
        String nodes = KafkaOptions.nodesTopic(conf);
        KafkaTopics.ensure(bootstrapServers, partitions, edges, nodes);
        TrainingJob.ensureOutputTopics(conf);
        return new DatasetLoader(bootstrapServers).progress(false).load(dataset, edges, nodes);
    }

    /** The labels of the committed savepoints, in label order. */
    public static List<String> committedLabels() throws IOException {
        try (Stream<Path> dirs = Files.list(migrationRoot())) {
            return dirs.map(d -> d.getFileName().toString())
                    .filter(n -> n.startsWith("savepoint-v"))
                    .map(n -> n.substring("savepoint-v".length()))
                    .sorted()
                    .collect(Collectors.toList());
        }
    }

    /** The directory of the committed savepoint {@code label} (on the test classpath). */
    public static Path committed(String label) throws IOException {
        return migrationRoot().resolve("savepoint-v" + label);
    }

    private static Path migrationRoot() throws IOException {
        URL url = MigrationScenario.class.getResource("/migration");
        if (url == null) {
            throw new IOException("no migration savepoints on the test classpath");
        }
        try {
            return Path.of(url.toURI());
        } catch (URISyntaxException e) {
            throw new IOException(e);
        }
    }

    public static Properties readProperties(Path dir) throws IOException {
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(dir.resolve(PROPERTIES))) {
            p.load(in);
        }
        return p;
    }

    static void writeProperties(Path dir, Properties p, String comment) throws IOException {
        try (Writer out =
                Files.newBufferedWriter(dir.resolve(PROPERTIES), StandardCharsets.ISO_8859_1)) {
            // Sorted keys, so that a new savepoint's file diffs cleanly against an older one.
            Properties sorted =
                    new Properties() {
                        @Override
                        public synchronized java.util.Set<Map.Entry<Object, Object>> entrySet() {
                            java.util.Set<Map.Entry<Object, Object>> entries =
                                    new java.util.TreeSet<>(
                                            (a, b) ->
                                                    a.getKey()
                                                            .toString()
                                                            .compareTo(b.getKey().toString()));
                            entries.addAll(super.entrySet());
                            return entries;
                        }
                    };
            sorted.putAll(p);
            sorted.store(out, comment);
        }
    }

    /** The per-rank steps of {@value #STEPS}. */
    public static long[] steps(Properties p) {
        return Arrays.stream(p.getProperty(STEPS).split(","))
                .map(String::trim)
                .mapToLong(Long::parseLong)
                .toArray();
    }
}

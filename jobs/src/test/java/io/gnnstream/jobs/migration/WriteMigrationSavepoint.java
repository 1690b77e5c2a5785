package io.gnnstream.jobs.migration;

import static io.gnnstream.jobs.migration.MigrationScenario.DATASET;
import static io.gnnstream.jobs.migration.MigrationScenario.SAVEPOINT;

import io.gnnstream.jobs.TrainingJob;
import io.gnnstream.jobs.TrainingRunner;
import io.gnnstream.operators.TrainerReplica;
import io.gnnstream.tools.DatasetInfo;
import io.gnnstream.tools.DatasetLoader;
import io.gnnstream.tools.Directories;
import io.gnnstream.tools.LocalKafkaBroker;
import io.gnnstream.tools.SyntheticGraph;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.runtime.util.EnvironmentInformation;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.util.TestStreamEnvironment;

/**
 * Writes a new committed migration savepoint, {@code
 * jobs/src/test/resources/migration/savepoint-v<label>/}, which {@link SavepointMigrationITCase}
 * then restores with every later build. Run it by hand, from the repository root, only when the
 * state format changes on purpose (older savepoints stay and keep being tested):
 *
 * <pre>
 * mvn -B -o package -pl jobs -am -DskipTests dependency:build-classpath \
 *     -Dmdep.includeScope=test -Dmdep.outputFile=target/test-classpath.txt
 * java -Xmx3g -XX:+UseParallelGC --add-opens=java.base/java.util=ALL-UNNAMED \
 *     --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED \
 *     --add-opens=java.base/sun.nio.ch=ALL-UNNAMED \
 *     -Dlog4j.configurationFile=flink-conf/log4j2-test.properties \
 *     -Dgnnstream.kafka.lib=kafka-broker/target/lib \
 *     -cp "jobs/target/test-classes:jobs/target/classes:$(cat jobs/target/test-classpath.txt)" \
 *     io.gnnstream.jobs.migration.WriteMigrationSavepoint 0.2
 * </pre>
 *
 * With {@code --incremental} after the label the job runs with {@code --prediction-updates
 * incremental} at parallelism 1, so the savepoint holds the incremental predictions' state.
 *
 * <p>It writes a small synthetic graph ({@link MigrationScenario#graph()}), starts a local Kafka
 * broker and produces the graph into the input topics, runs the real topology ({@link TrainingJob})
 * with two trainer ranks at parallelism 2 on a MiniCluster, triggers a canonical savepoint once a
 * metrics line reports step {@value MigrationScenario#SAVEPOINT_AFTER_STEP} or later, cancels the
 * job (a job with iterations does not stop by itself), and moves the dataset, the savepoint and
 * {@value MigrationScenario#PROPERTIES} (options, totals, the ranks' steps read from the savepoint)
 * into the new directory. It refuses to replace an existing label.
 */
public final class WriteMigrationSavepoint {

    private WriteMigrationSavepoint() {}

    /**
     * Arguments: the new label (e.g. {@code 0.2}) and, optionally, the repository root (default:
     * the working directory).
     */
    public static void main(String[] args) {
        try {
            write(args);
        } catch (Throwable t) {
            t.printStackTrace();
            // Flink's and Kafka's non-daemon threads would keep a failed run alive.
            System.exit(1);
        }
        System.exit(0);
    }

    private static void write(String[] args) throws Exception {
        boolean incremental = args.length > 1 && args[1].equals("--incremental");
        if (incremental) {
            String[] rest = new String[args.length - 1];
            rest[0] = args[0];
            System.arraycopy(args, 2, rest, 1, args.length - 2);
            args = rest;
        }
        if (args.length < 1 || args.length > 2 || !args[0].matches("[0-9A-Za-z._-]+")) {
            System.err.println(
                    "usage: WriteMigrationSavepoint <label> [--incremental] [repository root]");
            System.exit(2);
        }
        String label = args[0];
        Path root = (args.length > 1 ? Path.of(args[1]) : Path.of("")).toAbsolutePath();
        Path target =
                root.resolve(
                        Path.of(
                                "jobs",
                                "src",
                                "test",
                                "resources",
                                "migration",
                                "savepoint-v" + label));
        if (Files.exists(target)) {
            throw new IllegalArgumentException(
                    target
                            + " exists: a committed savepoint is never rewritten, "
                            + "choose a new label");
        }
        Path work =
                root.resolve(
                        Path.of(
                                "jobs",
                                "target",
                                "migration-writer",
                                label + "-" + System.currentTimeMillis()));
        Path staging = work.resolve("out");
        Files.createDirectories(staging);

        new SyntheticGraph(MigrationScenario.graph())
                .progress(false)
                .write(staging.resolve(DATASET));
        DatasetInfo dataset = DatasetInfo.scan(staging.resolve(DATASET));
        Properties p = new Properties();
        MigrationScenario.options(dataset, incremental)
                .toMap()
                .forEach((k, v) -> p.setProperty(MigrationScenario.OPTION_PREFIX + k, v));
        p.setProperty(
                MigrationScenario.PARALLELISM,
                Integer.toString(MigrationScenario.parallelism(incremental)));
        p.setProperty(
                MigrationScenario.TOPIC_PARTITIONS,
                Integer.toString(MigrationScenario.TOPIC_PARTITIONS_VALUE));
        p.setProperty(MigrationScenario.NODES, Long.toString(dataset.nodes()));
        p.setProperty(MigrationScenario.EDGES, Long.toString(dataset.edges()));
        p.setProperty("savepoint.label", label);
        p.setProperty("savepoint.format", SavepointFormatType.CANONICAL.name());
        p.setProperty("flink.version", EnvironmentInformation.getVersion());

        String savepoint;
        try (LocalKafkaBroker broker =
                LocalKafkaBroker.builder().workDir(work.resolve("kafka")).port(0).start()) {
            Configuration conf =
                    MigrationScenario.jobConfiguration(
                            p, broker.bootstrapServers(), work.resolve("checkpoints"));
            DatasetLoader.Result loaded =
                    MigrationScenario.load(
                            broker.bootstrapServers(),
                            conf,
                            MigrationScenario.TOPIC_PARTITIONS_VALUE,
                            staging.resolve(DATASET));
            System.out.println("Produced " + loaded);
            // Uncompressed, so that the ranks' steps can be read from the savepoint below.
            conf.set(ExecutionOptions.SNAPSHOT_COMPRESSION, false);
            savepoint = runUntilSavepoint(conf, work, p);
        }

        Path copy = staging.resolve(SAVEPOINT);
        copyTree(SavepointContents.localPath(savepoint), copy);
        List<Long> steps =
                SavepointContents.read(copy).operatorStateValues("replicas").stream()
                        .filter(r -> r instanceof TrainerReplica t && t.model != null)
                        .map(r -> ((TrainerReplica) r).model.step)
                        .collect(Collectors.toList());
        if (steps.size() != 2) {
            throw new IllegalStateException(
                    "expected the replica state of 2 trainer ranks, found "
                            + steps
                            + " of "
                            + SavepointContents.read(copy).operatorStateValues("replicas"));
        }
        p.setProperty(
                MigrationScenario.STEPS,
                steps.stream().map(String::valueOf).collect(Collectors.joining(",")));
        MigrationScenario.writeProperties(
                staging,
                p,
                "Migration savepoint "
                        + label
                        + " (written by io.gnnstream.jobs.migration.WriteMigrationSavepoint)");

        Files.createDirectories(target.getParent());
        Files.move(staging, target);
        System.out.println(
                "Wrote "
                        + target
                        + " ("
                        + Directories.bytesOf(target, f -> true)
                        + " bytes); ranks' steps "
                        + steps);
        Directories.deleteRecursively(work);
    }

    /**
     * Runs the job on a MiniCluster of its own until a training line of step {@value
     * MigrationScenario#SAVEPOINT_AFTER_STEP} or later, triggers a canonical savepoint, then lets
     * the runner cancel the job; records the metrics it saw and returns the savepoint's URI.
     */
    private static String runUntilSavepoint(Configuration conf, Path work, Properties p)
            throws Exception {
        int parallelism = Integer.parseInt(p.getProperty(MigrationScenario.PARALLELISM));
        Configuration clusterConf = new Configuration();
        clusterConf.set(RestOptions.BIND_PORT, "0");
        MiniCluster cluster =
                new MiniCluster(
                        new MiniClusterConfiguration.Builder()
                                .setNumTaskManagers(1)
                                // The two trainer ranks take two slots at any parallelism.
                                .setNumSlotsPerTaskManager(MigrationScenario.PARALLELISM_VALUE)
                                .setConfiguration(clusterConf)
                                .build());
        cluster.start();
        try {
            TestStreamEnvironment.setAsContext(cluster, parallelism);
            StreamExecutionEnvironment env =
                    StreamExecutionEnvironment.getExecutionEnvironment(conf);
            env.setParallelism(parallelism);
            JobID[] job = new JobID[1];
            String[] savepoint = new String[1];
            String savepoints = work.resolve("savepoints").toAbsolutePath().toUri().toString();
            new TrainingRunner(
                            conf,
                            new PrintStream(System.out, true, StandardCharsets.UTF_8),
                            work.resolve("metrics.jsonl"))
                    .onSubmit(id -> job[0] = id)
                    .run(
                            env,
                            Duration.ofMinutes(5),
                            line -> {
                                if (line.path("final").asBoolean(false)) {
                                    throw new IllegalStateException(
                                            "training ended before the savepoint");
                                }
                                if (!(line.path("batches_per_s").asDouble() > 0)) {
                                    return false;
                                }
                                p.putIfAbsent(
                                        MigrationScenario.FIRST_LINE_LOSS,
                                        line.path("loss").asText());
                                if (line.path("step").asLong()
                                        < MigrationScenario.SAVEPOINT_AFTER_STEP) {
                                    return false;
                                }
                                p.setProperty(
                                        MigrationScenario.LAST_LINE_STEP,
                                        line.path("step").asText());
                                p.setProperty(
                                        MigrationScenario.LAST_LINE_LOSS,
                                        line.path("loss").asText());
                                savepoint[0] = trigger(cluster, job[0], savepoints);
                                System.out.println("Savepoint " + savepoint[0]);
                                return true;
                            });
            return savepoint[0];
        } finally {
            TestStreamEnvironment.unsetAsContext();
            cluster.close();
        }
    }

    private static String trigger(MiniCluster cluster, JobID job, String dir) {
        try {
            return cluster.triggerSavepoint(job, dir, false, SavepointFormatType.CANONICAL)
                    .get(3, TimeUnit.MINUTES);
        } catch (Exception e) {
            throw new IllegalStateException("savepoint failed: " + e, e);
        }
    }

    static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            files.forEach(
                    f -> {
                        try {
                            Path dest = to.resolve(from.relativize(f).toString());
                            if (Files.isDirectory(f)) {
                                Files.createDirectories(dest);
                            } else {
                                Files.copy(f, dest, StandardCopyOption.COPY_ATTRIBUTES);
                            }
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    });
        }
    }
}

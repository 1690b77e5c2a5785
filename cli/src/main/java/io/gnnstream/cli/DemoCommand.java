package io.gnnstream.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.gnnstream.connectors.KafkaTopics;
import io.gnnstream.jobs.DensityDefaults;
import io.gnnstream.jobs.GraphOptions;
import io.gnnstream.jobs.KafkaOptions;
import io.gnnstream.jobs.LocalFlink;
import io.gnnstream.jobs.MemoryDefaults;
import io.gnnstream.jobs.ModelOptions;
import io.gnnstream.jobs.ProgressFormat;
import io.gnnstream.jobs.RunOptions;
import io.gnnstream.jobs.SamplingOptions;
import io.gnnstream.jobs.TrainingJob;
import io.gnnstream.jobs.TrainingRunner;
import io.gnnstream.state.records.Split;
import io.gnnstream.tools.DatasetInfo;
import io.gnnstream.tools.DatasetLoader;
import io.gnnstream.tools.Directories;
import io.gnnstream.tools.LocalKafkaBroker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.Callable;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The whole pipeline on one machine: a real local Kafka broker, the bundled dataset produced into
 * it, and the training job on a local MiniCluster with RocksDB state and checkpoints.
 */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        modelTransformer = DemoCommand.JobFlags.class,
        description =
                "Start a local Kafka broker, load a dataset into it and train on a local Flink"
                        + " MiniCluster.")
final class DemoCommand implements Callable<Integer> {

    /** System property set by {@code bin/gnnstream}: the project's root directory. */
    static final String HOME_PROPERTY = "gnnstream.home";

    @Option(
            names = "--dataset",
            description = "Dataset folder, in any --format (default: <gnnstream home>/data/cora).")
    Path dataset;

    @Mixin DatasetFormatOptions format = new DatasetFormatOptions();

    @Option(
            names = "--work-dir",
            defaultValue = "work/demo",
            description =
                    "Scratch directory, wiped at start: broker data, checkpoints (default:"
                            + " ${DEFAULT-VALUE}).")
    Path workDir;

    /** Training steps of a demo unless {@code --max-steps} says otherwise. */
    static final long DEFAULT_MAX_STEPS = 300;

    @Option(
            names = "--web-port",
            defaultValue = "0",
            description =
                    "Flink Web UI port; 0 = 8081 if free, else any (default: ${DEFAULT-VALUE}).")
    int webPort;

    @Option(
            names = "--timeout",
            defaultValue = "0s",
            converter = DurationConverter.class,
            description =
                    "Fail if training has not finished after this long; 0s = no limit: a job that"
                            + " stalls fails its checkpoints and ends after --max-restarts restarts"
                            + " (default: ${DEFAULT-VALUE}).")
    Duration timeout;

    @Mixin TrainingFlags flags;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        long started = System.nanoTime();
        Path data =
                dataset != null
                        ? dataset
                        : Path.of(System.getProperty(HOME_PROPERTY, "."), "data", "cora");
        DatasetInfo info = DatasetInfo.scan(data, format.toOptions());
        System.out.println("Dataset " + info);
        Configuration conf = flags.toConfiguration(spec, workDir.resolve("checkpoints"));
        conf.set(GraphOptions.NUM_FEATURES, info.featureDim());
        conf.set(GraphOptions.NUM_CLASSES, info.numClasses());
        if (!conf.contains(SamplingOptions.MAX_STEPS)) {
            conf.set(SamplingOptions.MAX_STEPS, DEFAULT_MAX_STEPS);
        }
        if (!conf.contains(SamplingOptions.MIN_VERTICES)) {
            conf.set(SamplingOptions.MIN_VERTICES, info.nodes());
        }
        if (!conf.contains(SamplingOptions.MIN_EDGES)) {
            conf.set(SamplingOptions.MIN_EDGES, info.edges());
        }
        if (!conf.contains(SamplingOptions.MIN_TRAIN_SEEDS)) {
            conf.set(SamplingOptions.MIN_TRAIN_SEEDS, (int) info.splitCount(Split.TRAIN));
        }
        DensityDefaults.apply(conf, info.meanNonZeroFeatures(), info.signedRows() > 0);
        String memory =
                MemoryDefaults.apply(
                        conf, MemoryDefaults.Heap.local(conf), OptionalLong.of(info.nodes()));
        if (memory != null) {
            System.out.println(memory);
        }
        System.out.println(
                String.format(
                        Locale.ROOT,
                        "Model %s, lr %.4g, weight decay %.3g (%.1f non-zero features "
                                + "per vertex)",
                        conf.get(ModelOptions.MODEL).name().toLowerCase(Locale.ROOT),
                        conf.get(ModelOptions.LEARNING_RATE),
                        conf.get(ModelOptions.WEIGHT_DECAY),
                        info.meanNonZeroFeatures()));
        TrainingJob.validate(conf);
        wipe(workDir);
        try (LocalKafkaBroker broker =
                LocalKafkaBroker.builder().workDir(workDir.resolve("kafka")).port(0).start()) {
            System.out.println(
                    "Kafka broker on " + broker.bootstrapServers() + " (pid " + broker.pid() + ")");
            conf.set(KafkaOptions.BOOTSTRAP_SERVERS, broker.bootstrapServers());
            String edges = KafkaOptions.edgesTopic(conf);
            String nodes = KafkaOptions.nodesTopic(conf);
            KafkaTopics.ensure(
                    broker.bootstrapServers(),
                    Math.max(2, conf.get(RunOptions.PARALLELISM)),
                    edges,
                    nodes);
            TrainingJob.ensureOutputTopics(conf);
            DatasetLoader.Result loaded =
                    new DatasetLoader(broker.bootstrapServers())
                            .load(data, format.toOptions(), edges, nodes);
            System.out.println("Produced " + loaded);

            StreamExecutionEnvironment env =
                    LocalFlink.environment(conf, conf.get(RunOptions.PARALLELISM), webPort);
            JsonNode result =
                    new TrainingRunner(conf, System.out, flags.metricsOut)
                            .predictionsOut(flags.predictionsOut)
                            .run(env, timeout)
                            .finalLine();
            System.out.println(
                    String.format(
                            Locale.ROOT,
                            "gnnstream demo: %s test accuracy %.4f after %d steps (best val %.4f at"
                                    + " step %d, its test accuracy %.4f), %d vertices, %d edges;"
                                    + " training %.1f s, of it evaluation %.1f s; %.0f s wall",
                            data.getFileName(),
                            result.path("test_acc").asDouble(),
                            result.path("step").asLong(),
                            result.path("best_val_acc").asDouble(),
                            result.path("best_val_step").asLong(),
                            result.path("best_val_test_acc").asDouble(),
                            info.nodes(),
                            info.edges(),
                            ProgressFormat.trainingSeconds(result),
                            result.path("eval_s").asDouble(),
                            (System.nanoTime() - started) / 1e9));
            if (result.has("select")) {
                System.out.printf(
                        Locale.ROOT,
                        "--select %s: the export and the report keep the parameters of step %d"
                                + " (test accuracy %.4f)%n",
                        result.path("select").asText(),
                        result.path("selected_step").asLong(),
                        result.path("selected_test_acc").asDouble());
            }
        }
        return 0;
    }

    /**
     * Adds the job's flags except those the demo sets itself (the local broker's topics, the
     * dataset's feature dimension and classes).
     */
    static final class JobFlags implements CommandLine.IModelTransformer {
        @Override
        public CommandLine.Model.CommandSpec transform(CommandLine.Model.CommandSpec spec) {
            TrainingFlags.addJobFlags(
                    spec,
                    Set.of(
                            "--bootstrap-servers",
                            "--edges-topic",
                            "--nodes-topic",
                            "--group-id",
                            "--num-features",
                            "--num-classes"),
                    Map.of(
                            "--max-steps",
                            String.valueOf(DEFAULT_MAX_STEPS),
                            "--min-train-seeds",
                            "all training vertices of the dataset",
                            "--min-vertices",
                            "the dataset's vertices",
                            "--min-edges",
                            "the dataset's edges",
                            "--lr",
                            "from the dataset's feature density (see README)",
                            "--weight-decay",
                            "from the dataset's feature density (see README)"));
            return spec;
        }
    }

    private static void wipe(Path dir) throws IOException {
        Directories.deleteRecursively(dir);
        Files.createDirectories(dir);
    }
}

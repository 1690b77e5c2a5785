package io.gnnstream.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.gnnstream.jobs.GraphOptions;
import io.gnnstream.jobs.JobOptions;
import io.gnnstream.jobs.KafkaOptions;
import io.gnnstream.jobs.LocalFlink;
import io.gnnstream.jobs.MemoryDefaults;
import io.gnnstream.jobs.RunOptions;
import io.gnnstream.jobs.TrainingJob;
import io.gnnstream.jobs.TrainingRunner;
import java.nio.file.Path;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.LocalStreamEnvironment;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Runs the streaming training job against existing topics: on a local MiniCluster when started from
 * {@code bin/gnnstream}, or on the cluster when this main class is submitted by {@code flink run}.
 */
@Command(
        name = "train",
        mixinStandardHelpOptions = true,
        modelTransformer = TrainingFlags.AllJobFlags.class,
        description = "Run the streaming training job against existing Kafka topics.")
final class TrainCommand implements Callable<Integer> {

    @Option(
            names = "--work-dir",
            defaultValue = "work/train",
            description =
                    "Directory for checkpoints unless --checkpoint-dir is given (default:"
                            + " ${DEFAULT-VALUE}).")
    Path workDir;

    @Option(
            names = "--web-port",
            defaultValue = "0",
            description =
                    "Flink Web UI port of the local cluster; 0 = 8081 if free, else any (default:"
                            + " ${DEFAULT-VALUE}).")
    int webPort;

    @Option(
            names = "--timeout",
            defaultValue = "0s",
            converter = DurationConverter.class,
            description =
                    "Give up when no final result arrived after this long; 0s = never (default:"
                            + " ${DEFAULT-VALUE}).")
    Duration timeout;

    @Mixin TrainingFlags flags;

    @Spec CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        Configuration conf = flags.toConfiguration(spec, workDir.resolve("checkpoints"));
        JobOptions.require(
                conf,
                KafkaOptions.BOOTSTRAP_SERVERS,
                GraphOptions.NUM_FEATURES,
                GraphOptions.NUM_CLASSES);
        TrainingJob.validate(conf);
        String bootstrapServers = conf.get(KafkaOptions.BOOTSTRAP_SERVERS);
        TrainingJob.ensureOutputTopics(conf);

        int parallelism = conf.get(RunOptions.PARALLELISM);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        if (env instanceof LocalStreamEnvironment) {
            String memory =
                    MemoryDefaults.apply(
                            conf, MemoryDefaults.Heap.local(conf), OptionalLong.empty());
            if (memory != null) {
                System.out.println(memory);
            }
            env = LocalFlink.environment(conf, parallelism, webPort);
        } else {
            env.configure(conf);
            env.setParallelism(parallelism);
        }
        JsonNode result =
                new TrainingRunner(conf, System.out, flags.metricsOut)
                        .predictionsOut(flags.predictionsOut)
                        .run(env, timeout)
                        .finalLine();
        System.out.println("final test accuracy " + result.path("test_acc").asDouble());
        return 0;
    }
}

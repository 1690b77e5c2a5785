package io.gnnstream.jobs.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.gnnstream.connectors.KafkaTopics;
import io.gnnstream.jobs.GraphOptions;
import io.gnnstream.jobs.KafkaOptions;
import io.gnnstream.jobs.TrainingJob;
import io.gnnstream.jobs.TrainingRunner;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.LocalStreamEnvironment;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Runs the streaming training job against existing topics: on a local MiniCluster when started
 * from {@code bin/gnnstream}, or on the cluster when this main class is submitted by {@code flink run}.
 */
@Command(name = "train", mixinStandardHelpOptions = true,
        description = "Run the streaming training job against existing Kafka topics.")
final class TrainCommand implements Callable<Integer> {

    @Option(names = "--bootstrap-servers", required = true, description = "Kafka bootstrap servers.")
    String bootstrapServers;

    @Option(names = "--edges-topic", description = "Edges topic (default: <prefix>.edges).")
    String edgesTopic;

    @Option(names = "--nodes-topic", description = "Nodes topic (default: <prefix>.nodes).")
    String nodesTopic;

    @Option(names = "--topic-prefix", description = "Prefix of <prefix>.rejects and <prefix>.metrics (default: ${DEFAULT-VALUE}).")
    String topicPrefix;

    @Option(names = "--group-id", description = "Kafka consumer group id (default: ${DEFAULT-VALUE}).")
    String groupId;

    @Option(names = "--num-features", required = true, description = "Feature dimension of node records.")
    int numFeatures;

    @Option(names = "--num-classes", required = true, description = "Number of classes.")
    int numClasses;

    @Option(names = "--max-steps", defaultValue = "0", description = "Training steps, then a final evaluation and stop; 0 = train for ever (default: ${DEFAULT-VALUE}).")
    long maxSteps;

    @Option(names = "--work-dir", defaultValue = "work/train", description = "Directory for checkpoints unless --checkpoint-dir is given (default: ${DEFAULT-VALUE}).")
    Path workDir;

    @Option(names = "--web-port", defaultValue = "0", description = "Flink Web UI port of the local cluster; 0 = 8081 if free, else any (default: ${DEFAULT-VALUE}).")
    int webPort;

    @Option(names = "--timeout", defaultValue = "0s", converter = DurationConverter.class,
            description = "Give up when no final result arrived after this long; 0s = never (default: ${DEFAULT-VALUE}).")
    Duration timeout;

    @Mixin
    TrainingFlags flags;

    @Override
    public Integer call() throws Exception {
        Configuration conf = flags.toConfiguration(workDir.resolve("checkpoints"), maxSteps);
        conf.set(KafkaOptions.BOOTSTRAP_SERVERS, bootstrapServers);
        conf.set(KafkaOptions.TOPIC_PREFIX, topicPrefix);
        conf.set(KafkaOptions.GROUP_ID, groupId);
        if (edgesTopic != null) {
            conf.set(KafkaOptions.EDGES_TOPIC, edgesTopic);
        }
        if (nodesTopic != null) {
            conf.set(KafkaOptions.NODES_TOPIC, nodesTopic);
        }
        conf.set(GraphOptions.NUM_FEATURES, numFeatures);
        conf.set(GraphOptions.NUM_CLASSES, numClasses);
        TrainingJob.validate(conf);
        KafkaTopics.ensure(bootstrapServers, 1, KafkaOptions.rejectsTopic(conf), KafkaOptions.metricsTopic(conf));

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        if (env instanceof LocalStreamEnvironment) {
            env = LocalFlink.environment(conf, flags.parallelism, webPort);
        } else {
            env.configure(conf);
            env.setParallelism(flags.parallelism);
        }
        JsonNode result = new TrainingRunner(conf, System.out, flags.metricsOut).run(env, timeout).finalLine();
        System.out.println("final test accuracy " + result.path("test_acc").asDouble());
        return 0;
    }
}

package io.gnnstream.cli;

import io.gnnstream.connectors.KafkaClientConfig;
import io.gnnstream.connectors.KafkaTopics;
import io.gnnstream.jobs.JobOptions;
import io.gnnstream.jobs.KafkaOptions;
import io.gnnstream.tools.DatasetInfo;
import io.gnnstream.tools.DatasetLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.flink.configuration.Configuration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Produces a dataset folder into an edges topic and a nodes topic. */
@Command(
        name = "load",
        mixinStandardHelpOptions = true,
        description =
                "Produce a dataset folder (nodes.jsonl + edges.csv, or a --format layout"
                        + " streamed as those lines) into Kafka topics, with a progress bar.")
final class LoadCommand implements Callable<Integer> {

    @Option(names = "--dataset", required = true, description = "Dataset folder, in any --format.")
    Path dataset;

    @Mixin DatasetFormatOptions format = new DatasetFormatOptions();

    @Option(
            names = "--bootstrap-servers",
            required = true,
            description = "Kafka bootstrap servers.")
    String bootstrapServers;

    @Option(
            names = "--topic-prefix",
            description =
                    "Topics default to <prefix>.edges and <prefix>.nodes (default:"
                            + " ${DEFAULT-VALUE}).")
    String topicPrefix;

    @Option(names = "--edges-topic", description = "Edges topic (default: <prefix>.edges).")
    String edgesTopic;

    @Option(names = "--nodes-topic", description = "Nodes topic (default: <prefix>.nodes).")
    String nodesTopic;

    @Option(
            names = "--topic-partitions",
            defaultValue = "2",
            description =
                    "Partitions of topics created by this command (default: ${DEFAULT-VALUE}).")
    int topicPartitions;

    @Option(
            names = "--kafka-property",
            paramLabel = "KEY=VALUE",
            description =
                    "A Kafka client setting (e.g. security.protocol=SASL_SSL) for the producer and"
                            + " admin client; repeatable. Not for secrets (settings of the"
                            + " password type are refused): put those in --kafka-config.")
    List<String> kafkaProperties = new ArrayList<>();

    @Option(
            names = "--kafka-config",
            paramLabel = "FILE",
            description =
                    "A Java properties file of Kafka client settings, secrets included (SSL key"
                            + " stores, sasl.jaas.config), the job's --kafka-config.")
    String kafkaConfig;

    @Override
    public Integer call() throws Exception {
        DatasetInfo info = DatasetInfo.scan(dataset, format.toOptions());
        String edges = edgesTopic != null ? edgesTopic : topicPrefix + ".edges";
        String nodes = nodesTopic != null ? nodesTopic : topicPrefix + ".nodes";
        Configuration conf = new Configuration();
        conf.set(KafkaOptions.BOOTSTRAP_SERVERS, bootstrapServers);
        if (!kafkaProperties.isEmpty()) {
            conf.set(KafkaOptions.KAFKA_PROPERTIES, kafkaProperties);
        }
        if (kafkaConfig != null) {
            conf.set(KafkaOptions.KAFKA_CONFIG, kafkaConfig);
        }
        JobOptions.byFlag("--kafka-property").orElseThrow().validate(conf);
        KafkaClientConfig clients = KafkaOptions.clients(conf);
        KafkaTopics.ensure(clients, topicPartitions, edges, nodes);
        DatasetLoader.Result result =
                new DatasetLoader(clients).load(dataset, format.toOptions(), edges, nodes);
        System.out.println("Loaded " + info + " into " + edges + ", " + nodes + ": " + result);
        System.out.println(
                "Feature rows: "
                        + (info.signedRows() > 0
                                ? info.signedRows()
                                        + " have a negative feature, --normalize-features auto"
                                        + " keeps every row (the scan's decision: false)"
                                : "none has a negative feature, --normalize-features auto divides"
                                        + " every row by its sum (the scan's decision: true)")
                        + "; a job on these topics decides from its first"
                        + " --normalize-decide-after rows unless told true or false");
        return 0;
    }
}

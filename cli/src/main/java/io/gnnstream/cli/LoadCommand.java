package io.gnnstream.cli;

import io.gnnstream.connectors.KafkaTopics;
import io.gnnstream.tools.DatasetInfo;
import io.gnnstream.tools.DatasetLoader;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** Produces a dataset folder into an edges topic and a nodes topic. */
@Command(
        name = "load",
        mixinStandardHelpOptions = true,
        description =
                "Produce a dataset folder (nodes.jsonl + edges.csv) into Kafka topics, with a"
                        + " progress bar.")
final class LoadCommand implements Callable<Integer> {

    @Option(
            names = "--dataset",
            required = true,
            description = "Dataset folder with nodes.jsonl and edges.csv.")
    Path dataset;

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

    @Override
    public Integer call() throws Exception {
        DatasetInfo info = DatasetInfo.scan(dataset);
        String edges = edgesTopic != null ? edgesTopic : topicPrefix + ".edges";
        String nodes = nodesTopic != null ? nodesTopic : topicPrefix + ".nodes";
        KafkaTopics.ensure(bootstrapServers, topicPartitions, edges, nodes);
        DatasetLoader.Result result =
                new DatasetLoader(bootstrapServers).load(dataset, edges, nodes);
        System.out.println("Loaded " + info + " into " + edges + ", " + nodes + ": " + result);
        return 0;
    }
}

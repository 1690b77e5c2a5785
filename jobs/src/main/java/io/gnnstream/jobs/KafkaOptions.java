package io.gnnstream.jobs;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.ReadableConfig;

/** Options of the Kafka inputs and outputs. */
public final class KafkaOptions {

    private KafkaOptions() {}

    public static final ConfigOption<String> BOOTSTRAP_SERVERS = ConfigOptions.key("gnnstream.kafka.bootstrap-servers")
            .stringType()
            .noDefaultValue()
            .withDescription("Kafka bootstrap servers, host:port[,host:port...].");

    public static final ConfigOption<String> EDGES_TOPIC = ConfigOptions.key("gnnstream.kafka.edges-topic")
            .stringType()
            .noDefaultValue()
            .withDescription("Topic of edge records (text src,dst[,op[,ts]] or JSON). Default: <prefix>.edges");

    public static final ConfigOption<String> NODES_TOPIC = ConfigOptions.key("gnnstream.kafka.nodes-topic")
            .stringType()
            .noDefaultValue()
            .withDescription("Topic of node records (JSON). Default: <prefix>.nodes");

    public static final ConfigOption<String> TOPIC_PREFIX = ConfigOptions.key("gnnstream.kafka.topic-prefix")
            .stringType()
            .defaultValue("gnnstream")
            .withDescription("Prefix of the job's own topics: <prefix>.rejects (dead letters), <prefix>.metrics.");

    public static final ConfigOption<String> GROUP_ID = ConfigOptions.key("gnnstream.kafka.group-id")
            .stringType()
            .defaultValue("gnnstream")
            .withDescription("Consumer group id used for committed offsets (Flink tracks offsets in checkpoints).");

    public static String edgesTopic(ReadableConfig c) {
        return c.getOptional(EDGES_TOPIC).orElse(c.get(TOPIC_PREFIX) + ".edges");
    }

    public static String nodesTopic(ReadableConfig c) {
        return c.getOptional(NODES_TOPIC).orElse(c.get(TOPIC_PREFIX) + ".nodes");
    }

    public static String rejectsTopic(ReadableConfig c) {
        return c.get(TOPIC_PREFIX) + ".rejects";
    }

    public static String metricsTopic(ReadableConfig c) {
        return c.get(TOPIC_PREFIX) + ".metrics";
    }
}

package io.gnnstream.jobs;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.ReadableConfig;

/** Options of the Kafka inputs and outputs. */
public final class KafkaOptions {

    private KafkaOptions() {}

    static final OptionGroup GROUP = new OptionGroup("Kafka");

    /**
     * Required by the Kafka-wired job ({@link TrainingJob#buildWithKafka}); tests inject their own
     * sources.
     */
    public static final ConfigOption<String> BOOTSTRAP_SERVERS =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.kafka.bootstrap-servers")
                            .stringType()
                            .noDefaultValue()
                            .withDescription("Kafka bootstrap servers, host:port[,host:port...]."),
                    OptionCheck.that(s -> !s.isBlank(), "must name at least one host:port"));

    public static final ConfigOption<String> EDGES_TOPIC =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.kafka.edges-topic")
                            .stringType()
                            .noDefaultValue()
                            .withDescription(
                                    "Topic of edge records (text src,dst[,op[,ts]] or JSON);"
                                            + " default <prefix>.edges."),
                    OptionCheck.any());

    public static final ConfigOption<String> NODES_TOPIC =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.kafka.nodes-topic")
                            .stringType()
                            .noDefaultValue()
                            .withDescription(
                                    "Topic of node records (JSON); default <prefix>.nodes."),
                    OptionCheck.any());

    public static final ConfigOption<String> TOPIC_PREFIX =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.kafka.topic-prefix")
                            .stringType()
                            .defaultValue("gnnstream")
                            .withDescription(
                                    "Prefix of the job's own topics: <prefix>.rejects (dead"
                                            + " letters), <prefix>.metrics."),
                    OptionCheck.that(s -> !s.isBlank(), "must not be empty"));

    public static final ConfigOption<String> GROUP_ID =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.kafka.group-id")
                            .stringType()
                            .defaultValue("gnnstream")
                            .withDescription(
                                    "Consumer group id used for committed offsets (Flink tracks"
                                            + " offsets in checkpoints)."),
                    OptionCheck.that(s -> !s.isBlank(), "must not be empty"));

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

    /** Topic of the inference rounds' layer outputs, from the trainer ranks to the GraphStore. */
    public static String layerOutputsTopic(ReadableConfig c) {
        return c.get(TOPIC_PREFIX) + ".layer-outputs";
    }

    /** Compacted topic of the latest prediction per vertex (key: vertex id). */
    public static String predictionsTopic(ReadableConfig c) {
        return c.get(TOPIC_PREFIX) + ".predictions";
    }
}

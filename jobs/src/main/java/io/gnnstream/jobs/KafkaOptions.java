package io.gnnstream.jobs;

import io.gnnstream.connectors.KafkaClientConfig;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;

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

    public static final ConfigOption<List<String>> KAFKA_PROPERTIES =
            GROUP.declareRepeatable(
                    ConfigOptions.key("gnnstream.kafka.properties")
                            .stringType()
                            .asList()
                            .noDefaultValue()
                            .withDescription(
                                    "A Kafka client setting (e.g. security.protocol=SASL_SSL) for"
                                        + " every source, sink and admin client of the job;"
                                        + " repeatable. Not for secrets: the values are kept with"
                                        + " the job's options (Web UI, savepoints); settings of the"
                                        + " password type are refused, put them in"
                                        + " --kafka-config."),
                    "--kafka-property",
                    "KEY=VALUE",
                    KafkaOptions::plainSettings);

    public static final ConfigOption<String> KAFKA_CONFIG =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.kafka.config-file")
                            .stringType()
                            .noDefaultValue()
                            .withDescription(
                                    "A Java properties file of Kafka client settings, secrets"
                                        + " included (SSL key stores, sasl.jaas.config), for every"
                                        + " Kafka client of the job and of load. Only its path"
                                        + " travels with the job: each process that creates a"
                                        + " client (this one, the JobManager, the TaskManagers)"
                                        + " reads the file at that path."),
                    "--kafka-config",
                    OptionCheck.that(s -> !s.isBlank(), "must name a file"));

    /** The Kafka client settings of the job: bootstrap servers, properties and settings file. */
    public static KafkaClientConfig clients(ReadableConfig c) {
        Map<String, String> settings = new TreeMap<>();
        for (String setting : c.getOptional(KAFKA_PROPERTIES).orElse(List.of())) {
            int eq = setting.indexOf('=');
            settings.put(setting.substring(0, eq).trim(), setting.substring(eq + 1));
        }
        return KafkaClientConfig.of(c.get(BOOTSTRAP_SERVERS))
                .with(settings, c.getOptional(KAFKA_CONFIG).orElse(null));
    }

    /**
     * Null when every setting is {@code KEY=VALUE} and none of Kafka's password type; the problem
     * names the key only, never a value.
     */
    private static String plainSettings(List<String> settings) {
        for (String setting : settings) {
            String problem = plainSetting(setting);
            if (problem != null) {
                return problem;
            }
        }
        return null;
    }

    /** Null for a {@code KEY=VALUE} setting that is not of Kafka's password type. */
    private static String plainSetting(String setting) {
        int eq = setting.indexOf('=');
        if (eq <= 0 || setting.substring(0, eq).isBlank()) {
            return "must be KEY=VALUE (one setting per flag)";
        }
        String key = setting.substring(0, eq).trim();
        for (ConfigDef def :
                List.of(
                        ProducerConfig.configDef(),
                        ConsumerConfig.configDef(),
                        AdminClientConfig.configDef())) {
            ConfigDef.ConfigKey known = def.configKeys().get(key);
            if (known != null && known.type == ConfigDef.Type.PASSWORD) {
                return "must not set the secret " + key + " (put it in the --kafka-config file)";
            }
        }
        return null;
    }

    /** How the predictions and their tombstones reach their topic. */
    public enum Delivery {
        /** Flink's transactional Kafka sink: visible to read_committed consumers at checkpoints. */
        EXACTLY_ONCE(DeliveryGuarantee.EXACTLY_ONCE),
        /** Written at once; a restore may write a round's predictions again. */
        AT_LEAST_ONCE(DeliveryGuarantee.AT_LEAST_ONCE);

        private final DeliveryGuarantee guarantee;

        Delivery(DeliveryGuarantee guarantee) {
            this.guarantee = guarantee;
        }

        public DeliveryGuarantee guarantee() {
            return guarantee;
        }

        /** The flag's spelling ({@code exactly-once}), which Flink's enum conversion accepts. */
        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    public static final ConfigOption<Delivery> PREDICTIONS_DELIVERY =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.kafka.predictions-delivery")
                            .enumType(Delivery.class)
                            .defaultValue(Delivery.EXACTLY_ONCE)
                            .withDescription(
                                    "exactly-once: the predictions and tombstones are written in"
                                            + " Kafka transactions that commit when a checkpoint"
                                            + " completes, so a read_committed consumer sees each"
                                            + " round's prediction of a vertex once, also across"
                                            + " failures, one checkpoint interval late."
                                            + " at-least-once: visible at once; a restore may write"
                                            + " some again."),
                    OptionCheck.any());

    /**
     * The broker's default {@code transaction.max.timeout.ms}; the connector's default (1 h) is
     * refused by brokers with default settings.
     */
    public static final Duration DEFAULT_TRANSACTION_TIMEOUT = Duration.ofMinutes(15);

    public static final ConfigOption<Duration> TRANSACTION_TIMEOUT =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.kafka.transaction-timeout")
                            .durationType()
                            .defaultValue(DEFAULT_TRANSACTION_TIMEOUT)
                            .withDescription(
                                    "transaction.timeout.ms of the exactly-once predictions"
                                            + " sink: longer than a checkpoint interval plus a"
                                            + " checkpoint, and at most the broker's"
                                            + " transaction.max.timeout.ms (checked at start)."),
                    OptionCheck.that(
                            d ->
                                    !d.isNegative()
                                            && !d.isZero()
                                            && d.toMillis() <= Integer.MAX_VALUE,
                            "must be positive and below 24 days"));

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

    /**
     * The transactional id prefix of the exactly-once predictions sink: the predictions topic's
     * name, so that it is the job's own (two jobs never share a topic prefix), stable across
     * restores, and covered by a prefixed ACL on {@code <prefix>.}.
     */
    public static String predictionsTransactionalIdPrefix(ReadableConfig c) {
        return predictionsTopic(c);
    }

    /** Compacted topic of the latest prediction per vertex (key: vertex id). */
    public static String predictionsTopic(ReadableConfig c) {
        return c.get(TOPIC_PREFIX) + ".predictions";
    }
}

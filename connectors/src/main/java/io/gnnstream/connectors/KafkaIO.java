package io.gnnstream.connectors;

import io.gnnstream.connectors.internal.RejectSchemas;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.sink.KafkaSinkBuilder;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.KafkaSourceBuilder;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Factories for the Kafka sources and sinks of the jobs, with the settings they need in one place.
 * Inputs are read as {@link RawRecord}s and parsed by a {@link ParseFunction}, so that bad values
 * are dead-lettered instead of failing the source.
 */
public final class KafkaIO {

    /**
     * How often sources look for new partitions. The connector's default (5 min) would leave
     * partitions added to a running job's topic unread for minutes.
     */
    public static final long PARTITION_DISCOVERY_INTERVAL_MS = 30_000;

    /**
     * Transaction timeout of exactly-once sinks: the broker default maximum ({@code
     * transaction.max.timeout.ms}, 15 min). The connector's default (1 h) is refused by brokers
     * with default settings.
     */
    public static final long TRANSACTION_TIMEOUT_MS = 15 * 60 * 1000;

    /**
     * Records a consumer poll returns from an edges topic. An edge is a line of a few bytes: at the
     * consumer's default of 500, the fetcher thread would hand Flink's source thread a batch
     * thousands of times a second and each would keep waiting for the other. Node records,
     * kilobytes each, keep the default.
     */
    public static final int EDGE_MAX_POLL_RECORDS = 10_000;

    private KafkaIO() {}

    /**
     * A builder of the raw source, for callers that need more (e.g. {@code setBounded} in tests or
     * batch replays, or security properties for a production cluster).
     */
    public static KafkaSourceBuilder<RawRecord> rawSourceBuilder(
            String bootstrapServers, String topic, String groupId, OffsetsInitializer start) {
        return rawSourceBuilder(KafkaClientConfig.of(bootstrapServers), topic, groupId, start);
    }

    /** {@link #rawSourceBuilder(String, String, String, OffsetsInitializer)} with settings. */
    public static KafkaSourceBuilder<RawRecord> rawSourceBuilder(
            KafkaClientConfig clients, String topic, String groupId, OffsetsInitializer start) {
        return KafkaSource.<RawRecord>builder()
                .setProperties(clients.properties())
                .setBootstrapServers(clients.bootstrapServers())
                .setTopics(topic)
                .setGroupId(groupId)
                .setClientIdPrefix(groupId + "-" + topic)
                .setStartingOffsets(start)
                .setDeserializer(new RawRecordDeserializationSchema())
                .setProperty(
                        "partition.discovery.interval.ms",
                        Long.toString(PARTITION_DISCOVERY_INTERVAL_MS));
    }

    /**
     * {@link #rawSourceBuilder} for an edges topic, polling {@link #EDGE_MAX_POLL_RECORDS} at a
     * time.
     */
    public static KafkaSourceBuilder<RawRecord> edgeSourceBuilder(
            String bootstrapServers, String topic, String groupId, OffsetsInitializer start) {
        return edgeSourceBuilder(KafkaClientConfig.of(bootstrapServers), topic, groupId, start);
    }

    /** {@link #edgeSourceBuilder(String, String, String, OffsetsInitializer)} with settings. */
    public static KafkaSourceBuilder<RawRecord> edgeSourceBuilder(
            KafkaClientConfig clients, String topic, String groupId, OffsetsInitializer start) {
        return rawSourceBuilder(clients, topic, groupId, start)
                .setProperty(
                        ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                        Integer.toString(EDGE_MAX_POLL_RECORDS));
    }

    /** An unbounded source of the topic's records as {@link RawRecord}s. */
    public static KafkaSource<RawRecord> rawSource(
            String bootstrapServers, String topic, String groupId, OffsetsInitializer start) {
        return rawSourceBuilder(bootstrapServers, topic, groupId, start).build();
    }

    /** {@link #rawSource(String, String, String, OffsetsInitializer)} with settings. */
    public static KafkaSource<RawRecord> rawSource(
            KafkaClientConfig clients, String topic, String groupId, OffsetsInitializer start) {
        return rawSourceBuilder(clients, topic, groupId, start).build();
    }

    /**
     * A sink builder for {@code clients}: bootstrap servers and every client setting ({@link
     * KafkaClientConfig#properties}).
     */
    public static <T> KafkaSinkBuilder<T> sinkBuilder(KafkaClientConfig clients) {
        KafkaSinkBuilder<T> builder = KafkaSink.<T>builder();
        clients.properties()
                .forEach((k, v) -> builder.setProperty(String.valueOf(k), String.valueOf(v)));
        return builder.setBootstrapServers(clients.bootstrapServers());
    }

    /**
     * A sink writing strings as record values (no key), e.g. metrics as JSON lines. With {@link
     * DeliveryGuarantee#EXACTLY_ONCE} records become visible to {@code read_committed} consumers
     * when a checkpoint completes, and {@code transactionalIdPrefix} is required (unique per sink
     * and job); it is ignored otherwise and may be null.
     */
    public static KafkaSink<String> stringSink(
            String bootstrapServers,
            String topic,
            DeliveryGuarantee guarantee,
            String transactionalIdPrefix) {
        return stringSink(
                KafkaClientConfig.of(bootstrapServers), topic, guarantee, transactionalIdPrefix);
    }

    /** {@link #stringSink(String, String, DeliveryGuarantee, String)} with settings. */
    public static KafkaSink<String> stringSink(
            KafkaClientConfig clients,
            String topic,
            DeliveryGuarantee guarantee,
            String transactionalIdPrefix) {
        KafkaSinkBuilder<String> builder =
                KafkaIO.<String>sinkBuilder(clients)
                        .setDeliveryGuarantee(guarantee)
                        .setRecordSerializer(
                                KafkaRecordSerializationSchema.<String>builder()
                                        .setTopic(topic)
                                        .setValueSerializationSchema(new SimpleStringSchema())
                                        .build());
        if (guarantee == DeliveryGuarantee.EXACTLY_ONCE) {
            if (transactionalIdPrefix == null || transactionalIdPrefix.isBlank()) {
                throw new IllegalArgumentException(
                        "an EXACTLY_ONCE sink to topic '"
                                + topic
                                + "' needs a transactional id prefix");
            }
            builder.setTransactionalIdPrefix(transactionalIdPrefix)
                    .setProperty("transaction.timeout.ms", Long.toString(TRANSACTION_TIMEOUT_MS));
        }
        return builder.build();
    }

    /**
     * The dead-letter sink: value = {@link Reject#toJson()}, key = source topic. At-least-once,
     * because a duplicate reject after a restore is harmless and needs no transactions.
     */
    public static KafkaSink<Reject> deadLetterSink(String bootstrapServers, String topic) {
        return deadLetterSink(KafkaClientConfig.of(bootstrapServers), topic);
    }

    /** {@link #deadLetterSink(String, String)} with settings. */
    public static KafkaSink<Reject> deadLetterSink(KafkaClientConfig clients, String topic) {
        return KafkaIO.<Reject>sinkBuilder(clients)
                .setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)
                .setRecordSerializer(
                        KafkaRecordSerializationSchema.<Reject>builder()
                                .setTopic(topic)
                                .setKeySerializationSchema(new RejectSchemas.SourceTopicKey())
                                .setValueSerializationSchema(new RejectSchemas.JsonValue())
                                .build())
                .build();
    }

    /**
     * A plain consumer of string keys and values without a group (callers assign partitions) and
     * without offset commits: for tools that read a topic directly, such as the metrics follower.
     * It reads committed records only ({@code isolation.level=read_committed}): the predictions of
     * an exactly-once sink once their checkpoint completed, and everything else at once.
     */
    public static KafkaConsumer<String, String> stringConsumer(
            String bootstrapServers, int maxPollRecords) {
        return stringConsumer(KafkaClientConfig.of(bootstrapServers), maxPollRecords);
    }

    /** {@link #stringConsumer(String, int)} with settings. */
    public static KafkaConsumer<String, String> stringConsumer(
            KafkaClientConfig clients, int maxPollRecords) {
        Properties p = clients.properties();
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, Integer.toString(maxPollRecords));
        return new KafkaConsumer<>(p);
    }

    /**
     * Assigns {@code consumer} every partition of {@code topic} (waiting up to 30 s for them), each
     * from its beginning; returns them.
     */
    public static List<TopicPartition> assignFromBeginning(Consumer<?, ?> consumer, String topic) {
        List<TopicPartition> partitions = new ArrayList<>();
        for (PartitionInfo p : consumer.partitionsFor(topic, Duration.ofSeconds(30))) {
            partitions.add(new TopicPartition(p.topic(), p.partition()));
        }
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        return partitions;
    }
}

package io.gnnstream.connectors;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Creates the job's topics before anything writes to them: brokers for this project run with {@code
 * auto.create.topics.enable=false}, so that a mistyped topic name fails loudly instead of creating
 * an empty topic that a job would wait on forever.
 */
public final class KafkaTopics {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private KafkaTopics() {}

    /** {@link #ensure(String, int, short, Collection)} with replication factor 1. */
    public static Map<String, Integer> ensure(
            String bootstrapServers, int partitions, String... topics) throws BrokerException {
        return ensure(bootstrapServers, partitions, (short) 1, List.of(topics));
    }

    /**
     * {@link #ensure(KafkaClientConfig, int, short, Collection, Map)}, replication 1, no configs.
     */
    public static Map<String, Integer> ensure(
            KafkaClientConfig clients, int partitions, String... topics) throws BrokerException {
        return ensure(clients, partitions, (short) 1, List.of(topics), Map.of());
    }

    /**
     * Creates the topics that do not exist yet and waits until every topic has a leader for each
     * partition. Existing topics are left as they are, even with another partition count.
     *
     * @return the partition count of each topic, in the given order
     */
    public static Map<String, Integer> ensure(
            String bootstrapServers, int partitions, short replication, Collection<String> topics)
            throws BrokerException {
        return ensure(bootstrapServers, partitions, replication, topics, Map.of());
    }

    /**
     * As {@link #ensure(String, int, short, Collection)}, creating missing topics with the given
     * topic configs (e.g. {@code cleanup.policy=compact} for a topic keyed by entity).
     */
    public static Map<String, Integer> ensure(
            String bootstrapServers,
            int partitions,
            short replication,
            Collection<String> topics,
            Map<String, String> topicConfigs)
            throws BrokerException {
        return ensure(
                KafkaClientConfig.of(bootstrapServers),
                partitions,
                replication,
                topics,
                topicConfigs);
    }

    /** As {@link #ensure(String, int, short, Collection, Map)}, with a client's settings. */
    public static Map<String, Integer> ensure(
            KafkaClientConfig clients,
            int partitions,
            short replication,
            Collection<String> topics,
            Map<String, String> configs)
            throws BrokerException {
        if (partitions <= 0) {
            throw new IllegalArgumentException("partitions must be positive, got " + partitions);
        }
        return onAdmin(
                clients,
                "create topics " + topics + " on",
                "creating topics " + topics,
                admin -> {
                    Set<String> existing =
                            admin.listTopics()
                                    .names()
                                    .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                    List<NewTopic> missing = new ArrayList<>();
                    for (String topic : topics) {
                        if (!existing.contains(topic)) {
                            missing.add(
                                    new NewTopic(topic, partitions, replication).configs(configs));
                        }
                    }
                    if (!missing.isEmpty()) {
                        for (Map.Entry<String, KafkaFuture<Void>> created :
                                admin.createTopics(missing).values().entrySet()) {
                            try {
                                created.getValue().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                            } catch (ExecutionException e) {
                                if (!(e.getCause() instanceof TopicExistsException)) {
                                    throw e;
                                }
                            }
                        }
                    }
                    return awaitLeaders(admin, topics);
                });
    }

    /** The topic's partition count, or empty if the topic does not exist. */
    public static OptionalInt partitionCount(String bootstrapServers, String topic)
            throws BrokerException {
        return partitionCount(KafkaClientConfig.of(bootstrapServers), topic);
    }

    /** The topic's partition count, or empty if the topic does not exist. */
    public static OptionalInt partitionCount(KafkaClientConfig clients, String topic)
            throws BrokerException {
        String bootstrapServers = clients.bootstrapServers();
        try (Admin admin = admin(clients)) {
            TopicDescription description =
                    admin.describeTopics(List.of(topic))
                            .allTopicNames()
                            .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                            .get(topic);
            return OptionalInt.of(description.partitions().size());
        } catch (ExecutionException e) {
            refusedCredentials(e.getCause(), bootstrapServers);
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return OptionalInt.empty();
            }
            throw new BrokerException(
                    "cannot describe topic '"
                            + topic
                            + "' on "
                            + bootstrapServers
                            + ": "
                            + e.getCause().getMessage(),
                    e.getCause());
        } catch (TimeoutException e) {
            throw new BrokerException(
                    "Kafka at "
                            + bootstrapServers
                            + " did not answer within "
                            + TIMEOUT.toSeconds()
                            + " s while describing topic '"
                            + topic
                            + "'",
                    e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BrokerException("interrupted while describing topic '" + topic + "'", e);
        }
    }

    /**
     * A setting of one of the cluster's brokers ({@code describeConfigs}), or empty when the broker
     * does not report it.
     */
    public static Optional<String> brokerConfig(KafkaClientConfig clients, String key)
            throws BrokerException {
        return onAdmin(
                clients,
                "read the broker setting " + key + " from",
                "reading the broker setting " + key,
                admin -> {
                    Collection<Node> nodes =
                            admin.describeCluster()
                                    .nodes()
                                    .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                    if (nodes.isEmpty()) {
                        return Optional.empty();
                    }
                    ConfigResource broker =
                            new ConfigResource(
                                    ConfigResource.Type.BROKER, nodes.iterator().next().idString());
                    Config config =
                            admin.describeConfigs(List.of(broker))
                                    .all()
                                    .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                                    .get(broker);
                    ConfigEntry entry = config == null ? null : config.get(key);
                    return entry == null ? Optional.empty() : Optional.ofNullable(entry.value());
                });
    }

    /**
     * The end offset of each partition of {@code topic} as a consumer of {@code isolation} sees it:
     * the high watermark for {@code READ_UNCOMMITTED}, the last stable offset (before the first
     * open transaction) for {@code READ_COMMITTED}.
     */
    public static Map<Integer, Long> endOffsets(
            KafkaClientConfig clients, String topic, IsolationLevel isolation)
            throws BrokerException {
        return onAdmin(
                clients,
                "read the end offsets of topic '" + topic + "' on",
                "reading the end offsets of topic '" + topic + "'",
                admin -> {
                    TopicDescription description =
                            admin.describeTopics(List.of(topic))
                                    .allTopicNames()
                                    .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                                    .get(topic);
                    Map<TopicPartition, OffsetSpec> latest = new LinkedHashMap<>();
                    for (TopicPartitionInfo p : description.partitions()) {
                        latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest());
                    }
                    Map<Integer, Long> ends = new LinkedHashMap<>();
                    admin.listOffsets(latest, new ListOffsetsOptions(isolation))
                            .all()
                            .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                            .forEach((tp, info) -> ends.put(tp.partition(), info.offset()));
                    return ends;
                });
    }

    /** What {@link #onAdmin} runs with the admin client. */
    @FunctionalInterface
    private interface AdminCall<T> {
        T call(Admin admin) throws ExecutionException, TimeoutException, InterruptedException;
    }

    /**
     * Runs {@code call} on an admin client of {@code clients}, turning its failures into {@link
     * BrokerException}s: "cannot {@code cannot} <servers>: ..." (refused credentials named as
     * such), a timeout or an interruption "while {@code doing}".
     */
    private static <T> T onAdmin(
            KafkaClientConfig clients, String cannot, String doing, AdminCall<T> call)
            throws BrokerException {
        String bootstrapServers = clients.bootstrapServers();
        try (Admin admin = admin(clients)) {
            return call.call(admin);
        } catch (ExecutionException e) {
            refusedCredentials(e.getCause(), bootstrapServers);
            throw new BrokerException(
                    "cannot " + cannot + " " + bootstrapServers + ": " + e.getCause().getMessage(),
                    e.getCause());
        } catch (TimeoutException e) {
            throw new BrokerException(
                    "Kafka at "
                            + bootstrapServers
                            + " did not answer within "
                            + TIMEOUT.toSeconds()
                            + " s while "
                            + doing,
                    e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BrokerException("interrupted while " + doing, e);
        }
    }

    private static Map<String, Integer> awaitLeaders(Admin admin, Collection<String> topics)
            throws InterruptedException, TimeoutException, ExecutionException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (true) {
            try {
                Map<String, TopicDescription> described =
                        admin.describeTopics(topics)
                                .allTopicNames()
                                .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                Map<String, Integer> counts = new LinkedHashMap<>();
                boolean ready = true;
                for (String topic : topics) {
                    List<TopicPartitionInfo> parts = described.get(topic).partitions();
                    ready &=
                            parts.stream()
                                    .allMatch(p -> p.leader() != null && !p.leader().isEmpty());
                    counts.put(topic, parts.size());
                }
                if (ready) {
                    return counts;
                }
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                    throw e;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("topics " + topics + " have no leader yet");
            }
            Thread.sleep(100);
        }
    }

    /**
     * Throws a {@link BrokerException} saying that the cluster refused the client's credentials
     * when {@code cause} is an authentication failure (a wrong password, an untrusted certificate):
     * no retry would succeed.
     */
    private static void refusedCredentials(Throwable cause, String bootstrapServers)
            throws BrokerException {
        if (cause instanceof AuthenticationException) {
            throw new BrokerException(
                    "Kafka at "
                            + bootstrapServers
                            + " refused the client's credentials: "
                            + cause.getMessage()
                            + " (check --kafka-config)",
                    cause);
        }
    }

    private static Admin admin(KafkaClientConfig clients) {
        Properties props = clients.properties();
        props.setProperty(
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(TIMEOUT.toMillis()));
        return Admin.create(props);
    }
}

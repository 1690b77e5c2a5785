package io.gnnstream.cli.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gnnstream.connectors.KafkaIO;
import io.gnnstream.connectors.KafkaTopics;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/** The metrics topic of one topic prefix, read from its beginning, for the cluster tests. */
public final class MetricsTopic implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final KafkaConsumer<String, String> consumer;
    private final List<JsonNode> seen = new ArrayList<>();
    private int next;

    public MetricsTopic(String bootstrapServers, String prefix) throws Exception {
        String topic = prefix + ".metrics";
        KafkaTopics.ensure(bootstrapServers, 1, topic);
        consumer = KafkaIO.stringConsumer(bootstrapServers, 500);
        List<TopicPartition> partitions =
                consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                        .map(p -> new TopicPartition(p.topic(), p.partition()))
                        .collect(Collectors.toList());
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
    }

    /** The first line not returned before that {@code condition} accepts. */
    public JsonNode await(Predicate<JsonNode> condition, Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            while (next < seen.size()) {
                JsonNode line = seen.get(next++);
                if (condition.test(line)) {
                    return line;
                }
            }
            assertTrue(
                    System.nanoTime() < deadline,
                    "no such metrics line within "
                            + timeout
                            + "; last lines: "
                            + seen.subList(Math.max(0, seen.size() - 3), seen.size()));
            poll(Duration.ofMillis(500));
        }
    }

    /**
     * Every line until none has arrived for two seconds; they are not returned by {@link #await}.
     */
    public List<JsonNode> drain() throws IOException {
        int from = seen.size();
        while (poll(Duration.ofSeconds(2)) > 0) {
            // keep reading
        }
        next = seen.size();
        return new ArrayList<>(seen.subList(Math.max(0, from - 1), seen.size()));
    }

    public List<JsonNode> seen() {
        return seen;
    }

    private int poll(Duration timeout) throws IOException {
        int n = 0;
        for (ConsumerRecord<String, String> r : consumer.poll(timeout)) {
            seen.add(JSON.readTree(r.value()));
            n++;
        }
        return n;
    }

    @Override
    public void close() {
        consumer.close();
    }
}

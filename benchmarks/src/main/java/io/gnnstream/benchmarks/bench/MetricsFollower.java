package io.gnnstream.benchmarks.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gnnstream.connectors.KafkaIO;
import io.gnnstream.connectors.KafkaTopics;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * A job's metrics topic read from its beginning by a benchmark: waits for lines, notes when the
 * first training line came and prints every hundredth step's.
 */
final class MetricsFollower implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final KafkaConsumer<String, String> consumer;
    private final List<JsonNode> pending = new ArrayList<>();
    long firstTraining;

    MetricsFollower(String bootstrap, String topic) throws Exception {
        KafkaTopics.ensure(bootstrap, 1, topic);
        consumer = KafkaIO.stringConsumer(bootstrap, 500);
        KafkaIO.assignFromBeginning(consumer, topic);
    }

    JsonNode await(Predicate<JsonNode> condition, Duration timeout, PrintStream log)
            throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            while (!pending.isEmpty()) {
                JsonNode line = pending.remove(0);
                if (condition.test(line)) {
                    return line;
                }
            }
            read(Duration.ofMillis(500), log);
        }
        throw new IllegalStateException("no such metrics line within " + timeout);
    }

    private void read(Duration wait, PrintStream log) throws Exception {
        for (ConsumerRecord<String, String> r : consumer.poll(wait)) {
            JsonNode line = JSON.readTree(r.value());
            if (firstTraining == 0 && ClusterScaleBenchmark.isTraining(line)) {
                firstTraining = System.nanoTime();
            }
            if (log != null
                    && line.path("step").asLong() % 100 == 0
                    && ClusterScaleBenchmark.isTraining(line)) {
                log.println("  " + line);
            }
            pending.add(line);
        }
    }

    /** Whether a line after the round of step {@code steps} has arrived (reads what is there). */
    boolean roundEnded(int steps) throws Exception {
        read(Duration.ofMillis(100), null);
        return pending.stream().anyMatch(l -> l.path("step").asLong() >= steps);
    }

    @Override
    public void close() {
        consumer.close();
    }
}

package io.gnnstream.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.connectors.BrokerException;
import io.gnnstream.connectors.KafkaTopics;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(300)
class LocalKafkaBrokerTest {

    @Test
    void producesConsumesStopsAndRestartsWithItsData() throws Exception {
        Path dir = TestDirs.fresh("broker-basic");
        long pid;
        Process child;
        try (LocalKafkaBroker broker = LocalKafkaBroker.start(dir)) {
            pid = broker.pid();
            child = broker.process();
            assertTrue(broker.bootstrapServers().startsWith("127.0.0.1:"));
            assertEquals(Map.of("t", 2), KafkaTopics.ensure(broker.bootstrapServers(), 2, "t"));
            assertEquals(
                    Map.of("t", 2),
                    KafkaTopics.ensure(broker.bootstrapServers(), 5, "t"),
                    "existing topic kept");
            produce(broker.bootstrapServers(), "t", 100);
            assertEquals(100, consume(broker.bootstrapServers(), "t", 100).size());
            assertTrue(KafkaTopics.partitionCount(broker.bootstrapServers(), "absent").isEmpty());
        }
        assertFalse(child.isAlive(), "broker process " + pid + " still alive after close");
        assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
        assertTrue(Files.size(dir.resolve("broker.log")) > 0);

        try (LocalKafkaBroker again = LocalKafkaBroker.start(dir)) {
            assertEquals(
                    100,
                    consume(again.bootstrapServers(), "t", 100).size(),
                    "records kept across restarts");
        }
    }

    @Test
    void childExitsWhenParentStdinCloses() throws Exception {
        try (LocalKafkaBroker broker = LocalKafkaBroker.start(TestDirs.fresh("broker-orphan"))) {
            Process child = broker.process();
            child.getOutputStream().close();
            assertTrue(
                    child.waitFor(30, TimeUnit.SECONDS),
                    "broker did not exit when its stdin closed");
            assertFalse(broker.isAlive());
        }
    }

    @Test
    void missingLibraryIsAClearError() throws Exception {
        Path missing = Path.of("target", "no-such-kafka-lib").toAbsolutePath();
        BrokerException e =
                assertThrows(
                        BrokerException.class,
                        () ->
                                LocalKafkaBroker.builder()
                                        .workDir(TestDirs.fresh("broker-nolib"))
                                        .libDir(missing)
                                        .start());
        assertTrue(e.getMessage().contains(missing.toString()), e.getMessage());
        assertTrue(e.getMessage().contains("kafka-broker"), e.getMessage());

        Path empty = TestDirs.fresh("empty-lib");
        e =
                assertThrows(
                        BrokerException.class,
                        () ->
                                LocalKafkaBroker.builder()
                                        .workDir(TestDirs.fresh("broker-emptylib"))
                                        .libDir(empty)
                                        .start());
        assertTrue(e.getMessage().contains("lacks gnnstream-kafka-broker-*.jar"), e.getMessage());
    }

    @Test
    void brokerThatCannotStartReportsItsLog() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            BrokerException e =
                    assertThrows(
                            BrokerException.class,
                            () ->
                                    LocalKafkaBroker.builder()
                                            .workDir(TestDirs.fresh("broker-portclash"))
                                            .controllerPort(taken.getLocalPort())
                                            .startTimeout(Duration.ofSeconds(60))
                                            .start());
            assertTrue(e.getMessage().contains("exited with code"), e.getMessage());
            assertTrue(e.getMessage().contains("broker.log"), e.getMessage());
        }
    }

    static void produce(String bootstrap, String topic, int n) {
        Properties props = new Properties();
        props.setProperty(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.setProperty(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(props, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < n; i++) {
                producer.send(new ProducerRecord<>(topic, Integer.toString(i), "value-" + i));
            }
            producer.flush();
        }
    }

    /**
     * Reads the topic from the beginning until {@code expected} records arrived (or 30 s passed).
     */
    static List<ConsumerRecord<String, String>> consume(
            String bootstrap, String topic, int expected) {
        Properties props = new Properties();
        props.setProperty(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.setProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(
                    consumer.partitionsFor(topic).stream()
                            .map(p -> new TopicPartition(topic, p.partition()))
                            .toList());
            consumer.seekToBeginning(consumer.assignment());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (records.size() < expected && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
            consumer.poll(Duration.ofMillis(200)).forEach(records::add);
        }
        return records;
    }
}

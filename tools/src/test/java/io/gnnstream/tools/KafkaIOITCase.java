package io.gnnstream.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.connectors.EdgeFormat;
import io.gnnstream.connectors.KafkaIO;
import io.gnnstream.connectors.KafkaTopics;
import io.gnnstream.connectors.ParseFunction;
import io.gnnstream.connectors.Reject;
import io.gnnstream.state.records.EdgeUpdate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The factories of {@link KafkaIO} in a real Flink job against a real broker. */
@Timeout(300)
class KafkaIOITCase {

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    private static LocalKafkaBroker broker;

    @BeforeAll
    @Timeout(120)
    static void startBroker() throws Exception {
        broker = LocalKafkaBroker.start(TestDirs.fresh("broker-kafkaio"));
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void parsesDeadLettersAndWritesExactlyOnce() throws Exception {
        String bootstrap = broker.bootstrapServers();
        KafkaTopics.ensure(bootstrap, 2, "in", "out", "dead");
        List<String> good = new ArrayList<>();
        List<String> bad = new ArrayList<>();
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(producerProps(bootstrap))) {
            for (int i = 0; i < 200; i++) {
                String line =
                        i % 10 == 3
                                ? i + ",oops"
                                : i % 10 == 7
                                        ? "{\"src\":-" + i + ",\"dst\":1}"
                                        : i + "," + (i + 1);
                (line.contains("oops") || line.contains("-") ? bad : good).add(line);
                producer.send(new ProducerRecord<>("in", Integer.toString(i), line));
            }
        }

        Configuration config = new Configuration();
        config.setString("restart-strategy.type", "none");
        config.setString("pipeline.generic-types", "false");
        config.setString("execution.checkpointing.interval", "500ms");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(2);
        SingleOutputStreamOperator<EdgeUpdate> parsed =
                env.fromSource(
                                KafkaIO.edgeSourceBuilder(
                                                bootstrap,
                                                "in",
                                                "it",
                                                OffsetsInitializer.earliest())
                                        .setBounded(OffsetsInitializer.latest())
                                        .build(),
                                WatermarkStrategy.noWatermarks(),
                                "edges")
                        .process(new ParseFunction<>(new EdgeFormat()));
        parsed.map(EdgeUpdate::toString)
                .returns(Types.STRING)
                .sinkTo(
                        KafkaIO.stringSink(
                                bootstrap, "out", DeliveryGuarantee.EXACTLY_ONCE, "kafkaio-it"));
        parsed.getSideOutput(ParseFunction.REJECTS)
                .sinkTo(KafkaIO.deadLetterSink(bootstrap, "dead"));
        env.execute("kafka-io-it");

        Set<String> expected = new HashSet<>();
        for (String line : good) {
            String[] f = line.split(",");
            expected.add(EdgeUpdate.add(Long.parseLong(f[0]), Long.parseLong(f[1])).toString());
        }
        List<ConsumerRecord<String, String>> out =
                LocalKafkaBrokerTest.consume(bootstrap, "out", good.size());
        assertEquals(good.size(), out.size(), "committed output records");
        assertEquals(expected, new HashSet<>(out.stream().map(ConsumerRecord::value).toList()));

        List<ConsumerRecord<String, String>> dead =
                LocalKafkaBrokerTest.consume(bootstrap, "dead", bad.size());
        assertEquals(bad.size(), dead.size(), "dead letters");
        Set<String> deadValues = new HashSet<>();
        for (ConsumerRecord<String, String> r : dead) {
            assertEquals("in", r.key());
            Reject reject = Reject.fromJson(r.value());
            assertEquals("in", reject.topic);
            assertTrue(
                    reject.reason.contains("dst is not a 64-bit integer")
                            || reject.reason.contains("src must be non-negative"),
                    reject.reason);
            deadValues.add(reject.value);
        }
        assertEquals(new HashSet<>(bad), deadValues);
    }

    private static Properties producerProps(String bootstrap) {
        Properties props = new Properties();
        props.setProperty(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.setProperty(
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.setProperty(
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        return props;
    }
}

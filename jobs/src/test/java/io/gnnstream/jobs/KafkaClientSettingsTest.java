package io.gnnstream.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.connectors.KafkaClientConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/** {@code --kafka-property} and {@code --kafka-config}: what travels and what stays in the file. */
class KafkaClientSettingsTest {

    private static Configuration parse(String... args) {
        CommandSpec spec = CommandSpec.create();
        JobFlags.addTo(spec);
        return JobFlags.configuration(new CommandLine(spec).parseArgs(args));
    }

    @Test
    void theFlagRepeatsAndItsValuesMayHoldCommas() {
        Configuration conf =
                parse(
                        "--kafka-property",
                        "security.protocol=SSL",
                        "--kafka-property",
                        "ssl.enabled.protocols=TLSv1.2,TLSv1.3");
        List<String> settings = conf.get(KafkaOptions.KAFKA_PROPERTIES);
        assertEquals(
                List.of("security.protocol=SSL", "ssl.enabled.protocols=TLSv1.2,TLSv1.3"),
                settings);
        conf.set(KafkaOptions.BOOTSTRAP_SERVERS, "h:9092");
        Map<String, String> recorded = JobOptions.recorded(conf);
        assertEquals(
                settings,
                JobOptions.fromRecorded(recorded).get(KafkaOptions.KAFKA_PROPERTIES),
                recorded.toString());
        Properties p = KafkaOptions.clients(conf).properties();
        assertEquals("TLSv1.2,TLSv1.3", p.getProperty("ssl.enabled.protocols"));
        assertEquals("h:9092", p.getProperty("bootstrap.servers"));
    }

    @Test
    void secretsAreRefusedAsProperties() {
        IllegalArgumentException e =
                assertThrows(
                        IllegalArgumentException.class,
                        () -> parse("--kafka-property", "ssl.truststore.password=secret"));
        assertTrue(e.getMessage().contains("--kafka-config"), e.getMessage());
        assertFalse(e.getMessage().contains("=secret"), e.getMessage());
        assertThrows(
                IllegalArgumentException.class, () -> parse("--kafka-property", "no-equals-sign"));
    }

    @Test
    void theFilesValuesStayInTheFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("client.properties");
        Files.writeString(
                file,
                "security.protocol=SASL_SSL\nsasl.jaas.config=x required password=\"s3cret\";\n",
                StandardCharsets.UTF_8);
        KafkaClientConfig clients =
                KafkaClientConfig.of("h:9093").with(Map.of("acks", "all"), file.toString());
        Properties p = clients.properties();
        assertEquals("all", p.getProperty("acks"));
        assertEquals(
                "${gnnstreamfile:" + file.toAbsolutePath() + ":sasl.jaas.config}",
                p.getProperty("sasl.jaas.config"));
        assertFalse(p.toString().contains("s3cret"), p.toString());
        assertFalse(
                new String(
                                org.apache.flink.util.InstantiationUtil.serializeObject(clients),
                                StandardCharsets.ISO_8859_1)
                        .contains("s3cret"));
        assertThrows(
                IllegalArgumentException.class,
                () -> KafkaClientConfig.of("h:1").with(Map.of(), dir.resolve("absent").toString()));
    }
}

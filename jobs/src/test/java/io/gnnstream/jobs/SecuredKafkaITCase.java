package io.gnnstream.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gnnstream.connectors.BrokerException;
import io.gnnstream.connectors.KafkaClientConfig;
import io.gnnstream.connectors.KafkaIO;
import io.gnnstream.connectors.KafkaTopics;
import io.gnnstream.tools.DatasetInfo;
import io.gnnstream.tools.DatasetLoader;
import io.gnnstream.tools.Directories;
import io.gnnstream.tools.LocalKafkaBroker;
import java.io.PrintStream;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.InstantiationUtil;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.WriterAppender;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.layout.PatternLayout;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The job on a Kafka that requires TLS and SCRAM-SHA-512 (SASL_SSL): the local broker gets a
 * SASL_SSL listener with a key pair made here with {@code keytool}; Cora is loaded, the job trains
 * and predicts through that listener with its settings in a {@code --kafka-config} file. The
 * password appears in no log line (all of Flink's and Kafka's at INFO, captured), in the job's
 * configuration (REST) and in the job graph; a wrong password ends the run at once with Kafka's
 * authentication error, before a job is submitted.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class SecuredKafkaITCase {

    private static final Path WORK = Path.of("target", "it-secured-kafka").toAbsolutePath();
    private static final Path CORA = Path.of("..", "data", "cora");
    private static final String USER = "gnnstream-job";
    private static final String PASSWORD = "scram-Pw-" + Long.toHexString(System.nanoTime());
    private static final String STORE_PASSWORD = "store-Pw-" + Long.toHexString(System.nanoTime());
    private static final int STEPS = 20;
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    private static LocalKafkaBroker broker;
    private static DatasetInfo cora;
    private static Path truststore;

    @BeforeAll
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    static void startASecuredBroker() throws Exception {
        Directories.deleteRecursively(WORK);
        Files.createDirectories(WORK);
        Path keystore = WORK.resolve("broker.p12");
        Path certificate = WORK.resolve("broker.crt");
        truststore = WORK.resolve("truststore.p12");
        keytool(
                "-genkeypair",
                "-alias",
                "broker",
                "-keyalg",
                "RSA",
                "-keysize",
                "2048",
                "-validity",
                "2",
                "-dname",
                "CN=localhost",
                "-ext",
                "SAN=ip:127.0.0.1,dns:localhost",
                "-storetype",
                "PKCS12",
                "-keystore",
                keystore.toString(),
                "-storepass",
                STORE_PASSWORD,
                "-keypass",
                STORE_PASSWORD);
        keytool(
                "-exportcert",
                "-alias",
                "broker",
                "-keystore",
                keystore.toString(),
                "-storepass",
                STORE_PASSWORD,
                "-file",
                certificate.toString());
        keytool(
                "-importcert",
                "-noprompt",
                "-alias",
                "broker",
                "-file",
                certificate.toString(),
                "-storetype",
                "PKCS12",
                "-keystore",
                truststore.toString(),
                "-storepass",
                STORE_PASSWORD);
        String listener = "listener.name.secured.";
        broker =
                LocalKafkaBroker.builder()
                        .workDir(WORK.resolve("kafka"))
                        .port(0)
                        .listener("SECURED", "SASL_SSL")
                        .serverProperty("sasl.enabled.mechanisms", "SCRAM-SHA-512")
                        .serverProperty(listener + "ssl.keystore.type", "PKCS12")
                        .serverProperty(listener + "ssl.keystore.location", keystore.toString())
                        .serverProperty(listener + "ssl.keystore.password", STORE_PASSWORD)
                        .serverProperty(listener + "ssl.key.password", STORE_PASSWORD)
                        .serverProperty(
                                listener + "scram-sha-512.sasl.jaas.config",
                                "org.apache.kafka.common.security.scram.ScramLoginModule"
                                        + " required;")
                        .start();
        // The user's SCRAM credential, through the broker's plaintext listener (KRaft keeps it in
        // its metadata log).
        Properties admin = new Properties();
        admin.setProperty(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        try (Admin a = Admin.create(admin)) {
            a.alterUserScramCredentials(
                            List.of(
                                    new UserScramCredentialUpsertion(
                                            USER,
                                            new ScramCredentialInfo(
                                                    ScramMechanism.SCRAM_SHA_512, 4096),
                                            PASSWORD)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
        cora = DatasetInfo.scan(CORA);
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void theJobTrainsAndPredictsThroughSaslSslAndThePasswordStaysInItsFile(
            @InjectClusterClient ClusterClient<?> client) throws Exception {
        Path settings = settingsFile("client.properties", PASSWORD);
        Configuration conf = configuration("secured", settings);
        KafkaClientConfig clients = KafkaOptions.clients(conf);
        String edges = KafkaOptions.edgesTopic(conf);
        String nodes = KafkaOptions.nodesTopic(conf);

        StringWriter logs = new StringWriter();
        Runnable stopCapture = captureLogs(logs);
        JobID job;
        JsonNode last;
        byte[] jobGraph;
        try {
            KafkaTopics.ensure(clients, 2, edges, nodes);
            new DatasetLoader(clients).progress(false).load(CORA, edges, nodes);
            TrainingJob.ensureOutputTopics(conf);

            StreamExecutionEnvironment graphOnly =
                    StreamExecutionEnvironment.getExecutionEnvironment(conf);
            graphOnly.setParallelism(2);
            new TrainingJob(conf).buildWithKafka(graphOnly);
            JobGraph graph = TrainingJob.streamGraph(graphOnly).getJobGraph();
            jobGraph = InstantiationUtil.serializeObject(graph);

            StreamExecutionEnvironment env =
                    StreamExecutionEnvironment.getExecutionEnvironment(conf);
            env.setParallelism(2);
            JobID[] submitted = new JobID[1];
            List<String> restConfig = new ArrayList<>();
            last =
                    new TrainingRunner(
                                    conf,
                                    new PrintStream(System.out, true, StandardCharsets.UTF_8),
                                    null)
                            .onSubmit(
                                    id -> {
                                        submitted[0] = id;
                                        restConfig.addAll(restConfig(client, id));
                                    })
                            .run(env, Duration.ofMinutes(3))
                            .finalLine();
            job = submitted[0];
            restConfig.addAll(restConfig(client, job));

            assertEquals(STEPS, last.path("step").asLong());
            assertTrue(last.path("test_acc").asDouble() > 0.3, last.toString());
            assertEquals(
                    cora.nodes(),
                    finalRoundPredictions(clients, KafkaOptions.predictionsTopic(conf)),
                    "final-round predictions read through SASL_SSL");

            String rest = String.join("\n", restConfig);
            assertTrue(rest.contains(settings.toString()), "the REST config names the file");
            assertFalse(rest.contains(PASSWORD), "the password in the job's configuration");
            assertFalse(rest.contains(STORE_PASSWORD), "a store password in the configuration");
        } finally {
            stopCapture.run();
        }
        String graphBytes = new String(jobGraph, StandardCharsets.ISO_8859_1);
        assertTrue(graphBytes.contains(settings.toString()), "the job graph refers to the file");
        assertFalse(graphBytes.contains(PASSWORD), "the password in the job graph");
        assertFalse(graphBytes.contains(STORE_PASSWORD), "a store password in the job graph");
        String captured = logs.toString();
        assertTrue(
                captured.contains("sasl.jaas.config = [hidden]"),
                "Kafka's client configurations were captured");
        assertFalse(captured.contains(PASSWORD), "the password in a log line");
        assertFalse(captured.contains(STORE_PASSWORD), "a store password in a log line");
        assertFalse(
                Files.readString(broker.logFile()).contains(PASSWORD),
                "the password in the broker's log");
        System.out.println(
                "SecuredKafkaITCase: job "
                        + job
                        + " trained "
                        + STEPS
                        + " steps through SASL_SSL; "
                        + captured.length()
                        + " characters of logs without the password");
    }

    @Test
    void aWrongPasswordEndsTheRunAtOnceWithoutSubmittingAJob(
            @InjectClusterClient ClusterClient<?> client) throws Exception {
        String wrong = "wrong-" + PASSWORD;
        Configuration conf = configuration("wrong", settingsFile("wrong.properties", wrong));
        int jobsBefore = client.listJobs().get(30, TimeUnit.SECONDS).size();
        long started = System.nanoTime();
        BrokerException e =
                assertThrows(BrokerException.class, () -> TrainingJob.ensureOutputTopics(conf));
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
        System.out.println("SecuredKafkaITCase: a wrong password: " + e.getMessage());
        assertTrue(e.getMessage().contains("refused the client's credentials"), e.getMessage());
        assertTrue(e.getMessage().contains("Authentication failed"), e.getMessage());
        assertFalse(e.getMessage().contains(wrong), "the password in the message");
        assertTrue(seconds < 30, "took " + seconds + " s");

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        Exception run =
                assertThrows(
                        Exception.class,
                        () ->
                                new TrainingRunner(
                                                conf,
                                                new PrintStream(
                                                        System.out, true, StandardCharsets.UTF_8),
                                                null)
                                        .run(env, Duration.ofMinutes(1)));
        System.out.println("SecuredKafkaITCase: the runner with a wrong password: " + run);
        assertTrue(
                String.valueOf(run.getMessage()).contains("Authentication failed")
                        || String.valueOf(run.getCause()).contains("Authentication failed"),
                String.valueOf(run));
        assertEquals(
                jobsBefore,
                client.listJobs().get(30, TimeUnit.SECONDS).size(),
                "no job was submitted");
    }

    /** The settings file of the job's Kafka clients, with {@code password}. */
    private static Path settingsFile(String name, String password) throws Exception {
        Path file = WORK.resolve(name);
        Properties p = new Properties();
        p.setProperty("security.protocol", "SASL_SSL");
        p.setProperty("sasl.mechanism", "SCRAM-SHA-512");
        p.setProperty(
                "sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
                        + USER
                        + "\" password=\""
                        + password
                        + "\";");
        p.setProperty("ssl.truststore.type", "PKCS12");
        p.setProperty("ssl.truststore.location", truststore.toString());
        p.setProperty("ssl.truststore.password", STORE_PASSWORD);
        try (var out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            p.store(out, null);
        }
        return file;
    }

    private static Configuration configuration(String name, Path settings) {
        Configuration conf = new Configuration();
        conf.set(KafkaOptions.BOOTSTRAP_SERVERS, broker.listenerAddress("SECURED"));
        conf.set(KafkaOptions.KAFKA_CONFIG, settings.toString());
        conf.set(KafkaOptions.KAFKA_PROPERTIES, List.of("client.dns.lookup=use_all_dns_ips"));
        conf.set(KafkaOptions.TOPIC_PREFIX, name);
        conf.set(KafkaOptions.GROUP_ID, name);
        conf.set(GraphOptions.NUM_FEATURES, cora.featureDim());
        conf.set(GraphOptions.NUM_CLASSES, cora.numClasses());
        conf.set(GraphOptions.PARTITIONS, 16);
        conf.set(GraphOptions.RECORD_CACHE, MemorySize.parse("16mb"));
        conf.set(GraphOptions.ADJACENCY_CACHE, MemorySize.parse("16mb"));
        conf.set(ModelOptions.FEATURE_CACHE, MemorySize.parse("64mb"));
        conf.set(SamplingOptions.BATCH_SIZE, 32);
        conf.set(SamplingOptions.MAX_STEPS, (long) STEPS);
        conf.set(SamplingOptions.EVAL_EVERY, STEPS);
        conf.set(SamplingOptions.MIN_VERTICES, cora.nodes());
        conf.set(SamplingOptions.MIN_EDGES, cora.edges());
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        JobDefaults.apply(conf, WORK.resolve("checkpoints-" + name), Duration.ofSeconds(1));
        return conf;
    }

    /** The distinct vertices of the final round's predictions, read with the job's settings. */
    private static int finalRoundPredictions(KafkaClientConfig clients, String topic)
            throws Exception {
        Set<String> vertices = new HashSet<>();
        try (KafkaConsumer<String, String> consumer = KafkaIO.stringConsumer(clients, 10_000)) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long end = consumer.endOffsets(List.of(partition)).get(partition);
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
            while (consumer.position(partition) < end) {
                assertTrue(System.nanoTime() < deadline, "predictions not read in time");
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    if (r.value() != null
                            && JSON.readTree(r.value()).path("step").asLong() == STEPS) {
                        vertices.add(r.key());
                    }
                }
            }
        }
        return vertices.size();
    }

    /** The job's configuration and the cluster's as the Web UI's REST API serves them. */
    private static List<String> restConfig(ClusterClient<?> client, JobID job) {
        List<String> bodies = new ArrayList<>();
        HttpClient http = HttpClient.newHttpClient();
        String base = client.getWebInterfaceURL();
        for (String path :
                new String[] {
                    "/jobs/" + job + "/config",
                    "/jobs/" + job + "/jobmanager/config",
                    "/jobmanager/config"
                }) {
            try {
                HttpResponse<String> response =
                        http.send(
                                HttpRequest.newBuilder(URI.create(base + path))
                                        .timeout(Duration.ofSeconds(10))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString());
                bodies.add(response.body());
            } catch (Exception e) {
                throw new IllegalStateException("GET " + path + ": " + e, e);
            }
        }
        return bodies;
    }

    /**
     * Sends every log event of Flink, Kafka and the job at INFO and above to {@code into} (Flink's
     * and Kafka's only there, not to the console); returns what undoes it.
     */
    private static Runnable captureLogs(StringWriter into) {
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        org.apache.logging.log4j.core.config.Configuration config = context.getConfiguration();
        WriterAppender appender =
                WriterAppender.newBuilder()
                        .setName("captured")
                        .setTarget(into)
                        .setLayout(
                                PatternLayout.newBuilder()
                                        .withPattern("%d %p %c - %m%n%throwable")
                                        .build())
                        .build();
        appender.start();
        config.addAppender(appender);
        java.util.Map<String, LoggerConfig> replaced = new java.util.HashMap<>();
        for (String name : List.of("org.apache", "org.apache.kafka", "kafka")) {
            LoggerConfig logger = new LoggerConfig(name, Level.INFO, false);
            logger.addAppender(appender, Level.INFO, null);
            LoggerConfig old = config.getLoggers().get(name);
            if (old != null) {
                replaced.put(name, old);
                config.removeLogger(name);
            }
            config.addLogger(name, logger);
        }
        LoggerConfig gnnstream = config.getLoggerConfig("io.gnnstream");
        gnnstream.addAppender(appender, Level.INFO, null);
        context.updateLoggers();
        return () -> {
            for (String name : List.of("org.apache", "org.apache.kafka", "kafka")) {
                config.removeLogger(name);
                if (replaced.containsKey(name)) {
                    config.addLogger(name, replaced.get(name));
                }
            }
            gnnstream.removeAppender(appender.getName());
            context.updateLoggers();
            appender.stop();
        };
    }

    private static void keytool(String... args) throws Exception {
        Path bin = Path.of(System.getProperty("java.home"), "bin", "keytool");
        List<String> command = new ArrayList<>();
        command.add(bin.toString());
        command.addAll(List.of(args));
        Process process =
                new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(WORK.resolve("keytool.log").toFile())
                        .start();
        try {
            assertTrue(process.waitFor(60, TimeUnit.SECONDS), "keytool did not finish");
            assertEquals(
                    0,
                    process.exitValue(),
                    "keytool " + args[0] + ": " + Files.readString(WORK.resolve("keytool.log")));
        } finally {
            if (process.isAlive()) {
                process.destroyForcibly();
            }
        }
    }
}

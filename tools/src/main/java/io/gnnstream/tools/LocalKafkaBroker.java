package io.gnnstream.tools;

import io.gnnstream.connectors.BrokerException;
import io.gnnstream.tools.internal.Processes;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.Uuid;

/**
 * A real single-node Kafka broker (KRaft, broker and controller in one process) for laptops and
 * tests, run as a child {@code java} process from the jars of the {@code kafka-broker} module. It
 * is a separate process because the broker's kafka-clients differs from the Flink connector's.
 * Bound to one address (loopback unless {@link Builder#host} names the host's own), with a
 * PLAINTEXT listener and any further ones (SSL, SASL_SSL) of {@link Builder#listener}. The child
 * exits by itself when this JVM dies (it watches its stdin), and a shutdown hook stops it on a
 * normal exit or Ctrl-C, so no orphan broker is left behind.
 *
 * <p>Data lives in {@code <workDir>/data}; a work directory that already holds a formatted broker
 * is reused with its topics and records. The child's output goes to {@code <workDir>/broker.log}.
 */
public final class LocalKafkaBroker implements AutoCloseable {

    /**
     * System property naming the directory with the broker's jars ({@code
     * kafka-broker/target/lib}).
     */
    public static final String LIB_PROPERTY = "gnnstream.kafka.lib";

    private static final String BROKER_MAIN = "io.gnnstream.broker.KafkaBrokerMain";
    private static final String STORAGE_TOOL = "kafka.tools.StorageTool";
    private static final long STOP_GRACE_MS = 10_000;

    private final Process process;
    private final Path workDir;
    private final Path logFile;
    private final String host;
    private final int port;
    private final Map<String, Integer> listenerPorts;
    private final Thread shutdownHook;
    private final AtomicBoolean closed = new AtomicBoolean();

    private LocalKafkaBroker(
            Process process,
            Path workDir,
            Path logFile,
            String host,
            int port,
            Map<String, Integer> listenerPorts) {
        this.process = process;
        this.listenerPorts = listenerPorts;
        this.host = host;
        this.workDir = workDir;
        this.logFile = logFile;
        this.port = port;
        this.shutdownHook =
                new Thread(() -> Processes.stop(process, STOP_GRACE_MS), "kafka-broker-shutdown");
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts a broker in {@code workDir} on free ports with the library from {@value
     * #LIB_PROPERTY}.
     */
    public static LocalKafkaBroker start(Path workDir) throws BrokerException {
        return builder().workDir(workDir).start();
    }

    /** {@code <host>:<port>}, for clients' {@code bootstrap.servers}. */
    public String bootstrapServers() {
        return host + ":" + port;
    }

    public int port() {
        return port;
    }

    /**
     * {@code <host>:<port>} of a listener added with {@link Builder#listener}; the PLAINTEXT one is
     * {@link #bootstrapServers()}.
     */
    public String listenerAddress(String name) {
        Integer listenerPort = listenerPorts.get(name.toUpperCase(java.util.Locale.ROOT));
        if (listenerPort == null) {
            throw new IllegalArgumentException("no listener " + name);
        }
        return host + ":" + listenerPort;
    }

    public Path workDir() {
        return workDir;
    }

    public Path logFile() {
        return logFile;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** The child process; tests use it to simulate the death of this JVM by closing its stdin. */
    Process process() {
        return process;
    }

    /** Stops the broker: SIGTERM (clean shutdown), SIGKILL after 10 s. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // The JVM is already shutting down and the hook is stopping the broker.
            return;
        }
        Processes.stop(process, STOP_GRACE_MS);
        try {
            process.getOutputStream().close();
        } catch (IOException e) {
            // The child is gone; nothing is left to release.
        }
    }

    /** Options of a local broker; only the work directory is required. */
    public static final class Builder {
        private Path workDir;
        private Path libDir;
        private String host = "127.0.0.1";
        private int port;
        private int controllerPort;
        private int partitions = 1;
        private String maxHeap = "256m";
        private Duration startTimeout = Duration.ofSeconds(60);
        private final Map<String, String> listeners = new LinkedHashMap<>();
        private final Map<String, String> serverProperties = new LinkedHashMap<>();

        private Builder() {}

        /**
         * Adds a listener {@code name} (e.g. {@code SECURED}) of {@code securityProtocol} ({@code
         * SSL}, {@code SASL_SSL}, ...) on a free port of the same address, besides PLAINTEXT; its
         * settings ({@code listener.name.<name>.ssl.keystore.location}, SASL mechanisms and JAAS
         * configuration) come with {@link #serverProperty}.
         */
        public Builder listener(String name, String securityProtocol) {
            String upper = name.toUpperCase(java.util.Locale.ROOT);
            if (upper.equals("PLAINTEXT") || upper.equals("CONTROLLER")) {
                throw new IllegalArgumentException("listener name " + name + " is taken");
            }
            listeners.put(upper, securityProtocol);
            return this;
        }

        /** A further line of {@code server.properties}; a later one of the same key wins. */
        public Builder serverProperty(String key, String value) {
            serverProperties.put(key, value);
            return this;
        }

        /** Directory for {@code server.properties}, the log and the data; created if absent. */
        public Builder workDir(Path dir) {
            this.workDir = dir;
            return this;
        }

        /**
         * Directory with the broker's jars; default: the {@value LocalKafkaBroker#LIB_PROPERTY}
         * system property.
         */
        public Builder libDir(Path dir) {
            this.libDir = dir;
            return this;
        }

        /** The address the broker binds to and advertises (default {@code 127.0.0.1}). */
        public Builder host(String address) {
            this.host = address;
            return this;
        }

        /** Client port; 0 (default) picks a free one. */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /** KRaft controller port; 0 (default) picks a free one. */
        public Builder controllerPort(int port) {
            this.controllerPort = port;
            return this;
        }

        /** {@code num.partitions}, the default partition count of new topics (default 1). */
        public Builder partitions(int partitions) {
            this.partitions = partitions;
            return this;
        }

        /** Maximum heap of the child JVM, e.g. {@code 256m} (default) or {@code 1g}. */
        public Builder maxHeap(String maxHeap) {
            this.maxHeap = maxHeap;
            return this;
        }

        /** How long to wait for the broker to answer (default 60 s). */
        public Builder startTimeout(Duration timeout) {
            this.startTimeout = timeout;
            return this;
        }

        /** Formats storage if needed, starts the child and waits until the broker answers. */
        public LocalKafkaBroker start() throws BrokerException {
            if (workDir == null) {
                throw new IllegalArgumentException("a work directory is required");
            }
            Path lib = resolveLibDir(libDir);
            Map<String, Integer> listenerPorts = new LinkedHashMap<>();
            Path dir = workDir.toAbsolutePath();
            Path dataDir = dir.resolve("data");
            Path config = dir.resolve("server.properties");
            Path log = dir.resolve("broker.log");
            int[] ports;
            try {
                Files.createDirectories(dataDir);
                int[] free = Processes.freePorts(host, 2 + listeners.size());
                ports =
                        new int[] {
                            port > 0 ? port : free[0], controllerPort > 0 ? controllerPort : free[1]
                        };
                int next = 2;
                for (String name : listeners.keySet()) {
                    listenerPorts.put(name, free[next++]);
                }
                StringBuilder properties =
                        new StringBuilder(
                                serverProperties(
                                        dataDir,
                                        host,
                                        ports[0],
                                        ports[1],
                                        partitions,
                                        listeners,
                                        listenerPorts));
                serverProperties.forEach(
                        (k, v) -> properties.append(k).append('=').append(v).append('\n'));
                Files.writeString(config, properties);
                Files.writeString(dir.resolve("log4j.properties"), LOG4J_PROPERTIES);
                if (!Files.exists(dataDir.resolve("meta.properties"))) {
                    format(lib, dir, config);
                }
            } catch (IOException e) {
                throw new BrokerException(
                        "cannot prepare the Kafka broker in " + dir + ": " + e.getMessage(), e);
            }
            List<String> command = javaCommand(lib, dir, maxHeap);
            command.add(BROKER_MAIN);
            command.add(config.toString());
            Process child;
            try {
                child =
                        new ProcessBuilder(command)
                                .directory(dir.toFile())
                                .redirectErrorStream(true)
                                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                                .start();
            } catch (IOException e) {
                throw new BrokerException(
                        "cannot start the Kafka broker process: " + e.getMessage(), e);
            }
            LocalKafkaBroker broker =
                    new LocalKafkaBroker(child, dir, log, host, ports[0], listenerPorts);
            Runtime.getRuntime().addShutdownHook(broker.shutdownHook);
            try {
                broker.awaitReady(startTimeout);
            } catch (BrokerException | RuntimeException e) {
                broker.close();
                throw e;
            }
            return broker;
        }
    }

    private void awaitReady(Duration timeout) throws BrokerException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!Processes.isListening(host, port)) {
            checkAlive();
            checkDeadline(deadline, timeout);
            sleep(100);
        }
        Properties props = new Properties();
        props.setProperty(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        props.setProperty(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        props.setProperty(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "5000");
        try (Admin admin = Admin.create(props)) {
            while (true) {
                checkAlive();
                try {
                    if (!admin.describeCluster(new DescribeClusterOptions().timeoutMs(5000))
                            .nodes()
                            .get(5, TimeUnit.SECONDS)
                            .isEmpty()) {
                        return;
                    }
                } catch (ExecutionException | TimeoutException e) {
                    // Not ready yet: the broker accepts connections before it has joined the
                    // quorum.
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new BrokerException("interrupted while waiting for the Kafka broker", e);
                }
                checkDeadline(deadline, timeout);
                sleep(200);
            }
        }
    }

    private void checkAlive() throws BrokerException {
        if (!process.isAlive()) {
            throw new BrokerException(
                    "the Kafka broker exited with code "
                            + process.exitValue()
                            + " during startup; end of "
                            + logFile
                            + ":\n"
                            + Processes.tail(logFile));
        }
    }

    private void checkDeadline(long deadline, Duration timeout) throws BrokerException {
        if (System.nanoTime() > deadline) {
            throw new BrokerException(
                    "the Kafka broker did not become ready on "
                            + bootstrapServers()
                            + " within "
                            + timeout.toSeconds()
                            + " s; end of "
                            + logFile
                            + ":\n"
                            + Processes.tail(logFile));
        }
    }

    private static void sleep(long millis) throws BrokerException {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BrokerException("interrupted while waiting for the Kafka broker", e);
        }
    }

    private static Path resolveLibDir(Path explicit) throws BrokerException {
        Path lib = explicit;
        if (lib == null) {
            String property = System.getProperty(LIB_PROPERTY);
            if (property == null || property.isBlank()) {
                throw new BrokerException(
                        "no Kafka broker library: set -D"
                                + LIB_PROPERTY
                                + "=<dir> (built by `mvn -pl kafka-broker package` into"
                                + " kafka-broker/target/lib) or pass libDir(...)");
            }
            lib = Path.of(property);
        }
        lib = lib.toAbsolutePath();
        if (!Files.isDirectory(lib)) {
            throw new BrokerException(
                    "Kafka broker library directory "
                            + lib
                            + " does not exist; build it with `mvn -pl kafka-broker package`");
        }
        boolean hasBroker = false;
        boolean hasKafka = false;
        try (DirectoryStream<Path> jars = Files.newDirectoryStream(lib, "*.jar")) {
            for (Path jar : jars) {
                String name = jar.getFileName().toString();
                hasBroker |= name.startsWith("gnnstream-kafka-broker-");
                hasKafka |= name.startsWith("kafka_2.13-");
            }
        } catch (IOException e) {
            throw new BrokerException("cannot list " + lib + ": " + e.getMessage(), e);
        }
        if (!hasBroker || !hasKafka) {
            throw new BrokerException(
                    "Kafka broker library directory "
                            + lib
                            + " lacks gnnstream-kafka-broker-*.jar or kafka_2.13-*.jar; build it"
                            + " with `mvn -pl kafka-broker package`");
        }
        return lib;
    }

    private static void format(Path lib, Path dir, Path config) throws IOException {
        List<String> command = javaCommand(lib, dir, "128m");
        command.addAll(
                List.of(
                        STORAGE_TOOL,
                        "format",
                        "-t",
                        Uuid.randomUuid().toString(),
                        "-c",
                        config.toString()));
        Path out = dir.resolve("format.log");
        Process tool =
                new ProcessBuilder(command)
                        .directory(dir.toFile())
                        .redirectErrorStream(true)
                        .redirectOutput(out.toFile())
                        .start();
        tool.getOutputStream().close();
        try {
            if (!tool.waitFor(60, TimeUnit.SECONDS)) {
                tool.destroyForcibly();
                throw new BrokerException("formatting Kafka storage timed out; see " + out);
            }
        } catch (InterruptedException e) {
            tool.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new BrokerException("interrupted while formatting Kafka storage", e);
        }
        if (tool.exitValue() != 0) {
            throw new BrokerException(
                    "formatting Kafka storage failed with exit code "
                            + tool.exitValue()
                            + ":\n"
                            + Processes.tail(out));
        }
    }

    private static List<String> javaCommand(Path lib, Path dir, String maxHeap) {
        List<String> command = new ArrayList<>();
        command.add(Processes.javaBinary());
        command.add("-Xmx" + maxHeap);
        command.add("-XX:+UseSerialGC");
        command.add("-Djava.awt.headless=true");
        command.add("-Dlog4j.configuration=" + dir.resolve("log4j.properties").toUri());
        command.add("-Dkafka.logs.dir=" + dir);
        command.add("-cp");
        command.add(lib.resolve("*").toString());
        return command;
    }

    private static String serverProperties(
            Path dataDir,
            String host,
            int port,
            int controllerPort,
            int partitions,
            Map<String, String> listeners,
            Map<String, Integer> listenerPorts) {
        String data = dataDir.toString().replace("\\", "\\\\");
        StringBuilder extra = new StringBuilder();
        StringBuilder extraProtocols = new StringBuilder();
        listeners.forEach(
                (name, protocol) -> {
                    extra.append(',')
                            .append(name)
                            .append("://")
                            .append(host)
                            .append(':')
                            .append(listenerPorts.get(name));
                    extraProtocols.append(',').append(name).append(':').append(protocol);
                });
        return String.join(
                        "\n",
                        "# Written by gnnstream LocalKafkaBroker; rewritten on every start.",
                        "process.roles=broker,controller",
                        "node.id=1",
                        "controller.quorum.voters=1@" + host + ":" + controllerPort,
                        "listeners=PLAINTEXT://"
                                + host
                                + ":"
                                + port
                                + ",CONTROLLER://"
                                + host
                                + ":"
                                + controllerPort
                                + extra,
                        "advertised.listeners=PLAINTEXT://" + host + ":" + port + extra,
                        "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"
                                + extraProtocols,
                        "controller.listener.names=CONTROLLER",
                        "inter.broker.listener.name=PLAINTEXT",
                        "log.dirs=" + data,
                        "num.partitions=" + partitions,
                        "auto.create.topics.enable=false",
                        "offsets.topic.replication.factor=1",
                        "offsets.topic.num.partitions=8",
                        "transaction.state.log.replication.factor=1",
                        "transaction.state.log.min.isr=1",
                        "transaction.state.log.num.partitions=8",
                        "transaction.max.timeout.ms=3600000",
                        "group.initial.rebalance.delay.ms=0",
                        // Dataset topics are the source of truth of the graph: never age them out.
                        "log.retention.ms=-1",
                        "num.network.threads=2",
                        "num.io.threads=4")
                + "\n";
    }

    /**
     * Warnings and errors only, plus the "started" line; Kafka's INFO output is ~500 lines per
     * start.
     */
    private static final String LOG4J_PROPERTIES =
            String.join(
                            "\n",
                            "log4j.rootLogger=WARN, stdout",
                            "log4j.appender.stdout=org.apache.log4j.ConsoleAppender",
                            "log4j.appender.stdout.layout=org.apache.log4j.PatternLayout",
                            "log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n",
                            "log4j.logger.kafka.server.KafkaRaftServer=INFO")
                    + "\n";
}

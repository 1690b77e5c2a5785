package io.gnnstream.tools;

import io.gnnstream.connectors.BrokerException;
import io.gnnstream.connectors.EdgeFormat;
import io.gnnstream.connectors.InvalidRecordException;
import io.gnnstream.connectors.KafkaClientConfig;
import io.gnnstream.connectors.KafkaTopics;
import io.gnnstream.connectors.NodeFormat;
import io.gnnstream.tools.formats.DatasetFormat;
import io.gnnstream.tools.formats.DatasetReader;
import io.gnnstream.tools.formats.DatasetReaders;
import io.gnnstream.tools.formats.FormatOptions;
import io.gnnstream.tools.formats.LineSink;
import io.gnnstream.tools.internal.CountingInputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Produces a dataset folder ({@link DatasetInfo#NODES_FILE}, {@link DatasetInfo#EDGES_FILE}, or
 * another {@link DatasetFormat} streamed as those lines by its reader) into a nodes topic and an
 * edges topic, one record per non-blank line, values verbatim. Edges are keyed by destination id,
 * so that all updates of one destination's in-adjacency stay in one partition in file order
 * (sampling determinism depends on it); nodes are keyed by node id. A line whose key cannot be read
 * is still sent, without a key, so that the job dead-letters it with its reason.
 */
public final class DatasetLoader {

    private static final int PROGRESS_EVERY_LINES = 1024;

    /** Bounds the producer's close, which would otherwise wait forever for a vanished broker. */
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);

    private final KafkaClientConfig clients;
    private final Properties overrides = new Properties();
    private boolean progress = true;

    public DatasetLoader(String bootstrapServers) {
        this(KafkaClientConfig.of(bootstrapServers));
    }

    /** A loader whose producer and admin client get {@code clients}' settings (security). */
    public DatasetLoader(KafkaClientConfig clients) {
        this.clients = clients;
    }

    /** Whether to draw a progress bar on stderr (default true; tests turn it off). */
    public DatasetLoader progress(boolean show) {
        this.progress = show;
        return this;
    }

    /** Overrides a Kafka producer setting, e.g. security settings for a remote cluster. */
    public DatasetLoader producerProperty(String key, String value) {
        overrides.setProperty(key, value);
        return this;
    }

    /** Counts of records written. */
    public static final class Result {
        private final long nodes;
        private final long edges;
        private final long unkeyed;

        Result(long nodes, long edges, long unkeyed) {
            this.nodes = nodes;
            this.edges = edges;
            this.unkeyed = unkeyed;
        }

        public long nodes() {
            return nodes;
        }

        public long edges() {
            return edges;
        }

        /**
         * Lines sent without a key because no id could be read from them (the job rejects them).
         */
        public long unkeyed() {
            return unkeyed;
        }

        @Override
        public String toString() {
            return nodes
                    + " nodes, "
                    + edges
                    + " edges"
                    + (unkeyed > 0 ? ", " + unkeyed + " unkeyed lines" : "");
        }
    }

    /**
     * Writes the nodes, then the edges, and returns once the broker has acknowledged every record.
     * Both topics must exist ({@link KafkaTopics#ensure}). The folder's format is detected.
     */
    public Result load(Path datasetDir, String edgesTopic, String nodesTopic) throws IOException {
        return load(datasetDir, FormatOptions.defaults(), edgesTopic, nodesTopic);
    }

    /**
     * Writes the nodes, then the edges, of a folder in the format of {@code options} (streamed from
     * its reader), and returns once the broker has acknowledged every record.
     */
    public Result load(Path datasetDir, FormatOptions options, String edgesTopic, String nodesTopic)
            throws IOException {
        DatasetReader reader = DatasetReaders.open(datasetDir, options);
        requireTopic(nodesTopic);
        requireTopic(edgesTopic);
        EdgeFormat edgeFormat = new EdgeFormat();
        Producer<String, String> producer = null;
        try {
            producer = new KafkaProducer<>(producerConfig());
            Sender nodes =
                    new Sender(
                            producer,
                            nodesTopic,
                            line -> {
                                long id = NodeFormat.idOf(line);
                                return id < 0 ? null : Long.toString(id);
                            });
            Sender edges =
                    new Sender(
                            producer,
                            edgesTopic,
                            line -> {
                                try {
                                    return Long.toString(edgeFormat.parse(line).dst);
                                } catch (InvalidRecordException e) {
                                    return null;
                                }
                            });
            if (reader.format() == DatasetFormat.GNNSTREAM) {
                sendFile(datasetDir.resolve(DatasetInfo.NODES_FILE), nodes);
                sendFile(datasetDir.resolve(DatasetInfo.EDGES_FILE), edges);
            } else {
                sendLines(reader, true, nodes);
                sendLines(reader, false, edges);
            }
            return new Result(nodes.lines, edges.lines, nodes.unkeyed + edges.unkeyed);
        } catch (KafkaException e) {
            throw new BrokerException(
                    "cannot write the dataset to "
                            + clients.bootstrapServers()
                            + ": "
                            + e.getMessage(),
                    e);
        } finally {
            if (producer != null) {
                producer.close(CLOSE_TIMEOUT);
            }
        }
    }

    /** Sends the lines of one topic, keyed, and counts them. */
    private static final class Sender {
        final Producer<String, String> producer;
        final String topic;
        final Function<String, String> key;
        final AtomicReference<Exception> failure = new AtomicReference<>();
        long lines;
        long unkeyed;

        Sender(Producer<String, String> producer, String topic, Function<String, String> key) {
            this.producer = producer;
            this.topic = topic;
            this.key = key;
        }

        /** Sends one line unless blank; true every {@link #PROGRESS_EVERY_LINES} lines. */
        boolean send(String line) throws BrokerException {
            if (line.isBlank()) {
                return false;
            }
            String k = key.apply(line);
            if (k == null) {
                unkeyed++;
            }
            producer.send(
                    new ProducerRecord<>(topic, k, line),
                    (metadata, e) -> {
                        if (e != null) {
                            failure.compareAndSet(null, e);
                        }
                    });
            lines++;
            if (lines % PROGRESS_EVERY_LINES == 0) {
                checkFailure(failure, topic, lines);
                return true;
            }
            return false;
        }

        void finish() throws BrokerException {
            producer.flush();
            checkFailure(failure, topic, lines);
        }
    }

    /** A file's lines, with a progress bar over its bytes. */
    private void sendFile(Path file, Sender sender) throws IOException {
        try (CountingInputStream in = new CountingInputStream(Files.newInputStream(file));
                BufferedReader reader =
                        new BufferedReader(
                                new InputStreamReader(in, StandardCharsets.UTF_8), 1 << 16);
                ProgressBar bar = progress ? progressBar(file) : null) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                if (sender.send(line) && bar != null) {
                    bar.stepTo(in.count());
                }
            }
            sender.finish();
            if (bar != null) {
                bar.stepTo(in.count());
            }
        }
    }

    /** A reader's node or edge lines, with a progress bar over the records sent. */
    private void sendLines(DatasetReader reader, boolean nodes, Sender sender) throws IOException {
        try (ProgressBar bar =
                progress
                        ? new ProgressBarBuilder()
                                .setTaskName(nodes ? "nodes" : "edges")
                                .setInitialMax(-1)
                                .setStyle(ProgressBarStyle.ASCII)
                                .setUpdateIntervalMillis(250)
                                .showSpeed()
                                .build()
                        : null) {
            LineSink sink =
                    line -> {
                        if (sender.send(line) && bar != null) {
                            bar.stepTo(sender.lines);
                        }
                    };
            if (nodes) {
                reader.nodes(sink);
            } else {
                reader.edges(sink);
            }
            sender.finish();
            if (bar != null) {
                bar.stepTo(sender.lines);
            }
        }
    }

    private static void checkFailure(AtomicReference<Exception> failure, String topic, long lines)
            throws BrokerException {
        Exception e = failure.get();
        if (e != null) {
            throw new BrokerException(
                    "writing to topic '"
                            + topic
                            + "' failed after "
                            + lines
                            + " lines: "
                            + e.getMessage(),
                    e);
        }
    }

    private void requireTopic(String topic) throws BrokerException {
        if (KafkaTopics.partitionCount(clients, topic).isEmpty()) {
            throw new BrokerException(
                    "topic '"
                            + topic
                            + "' does not exist on "
                            + clients.bootstrapServers()
                            + "; create it first (KafkaTopics.ensure)");
        }
    }

    private Properties producerConfig() {
        Properties props = new Properties();
        props.setProperty(ProducerConfig.CLIENT_ID_CONFIG, "gnnstream-dataset-loader");
        props.setProperty(ProducerConfig.ACKS_CONFIG, "all");
        props.setProperty(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.setProperty(ProducerConfig.LINGER_MS_CONFIG, "20");
        props.setProperty(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
        props.setProperty(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        props.setProperty(
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.setProperty(
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.putAll(clients.properties());
        props.putAll(overrides);
        return props;
    }

    private static ProgressBar progressBar(Path file) throws IOException {
        long size = Files.size(file);
        boolean small = size < 16L << 20;
        return new ProgressBarBuilder()
                .setTaskName(file.getFileName().toString())
                .setInitialMax(size)
                .setUnit(small ? " KiB" : " MiB", small ? 1 << 10 : 1 << 20)
                .setStyle(ProgressBarStyle.ASCII)
                .setUpdateIntervalMillis(250)
                .showSpeed()
                .build();
    }
}

package io.gnnstream.benchmarks.bench;

import io.gnnstream.connectors.NodeFormat;
import io.gnnstream.state.records.NodeUpdate;
import java.io.BufferedReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Graph changes sent to a job's input topics at a steady rate on a thread of its own, drawn by
 * {@link GraphChanges} (90 % edge additions and removals, 9 % node records, 1 % deletions, the
 * graph kept a subset of the dataset's). Each record is keyed as the loader keys it (edges by
 * destination), and its Kafka timestamp is its send time.
 */
final class ChangeStream implements AutoCloseable {

    /** Dataset edges the changes take and put back at most. */
    private static final int MAX_EDGES = 4_000_000;

    private final String bootstrap;
    private final String edgesTopic;
    private final String nodesTopic;
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong additions = new AtomicLong();
    private final AtomicLong removals = new AtomicLong();
    private volatile double addShare = 0.5;
    private Thread thread;

    // The sending thread's, kept from one start to the next (start and join order the accesses).
    private final GraphChanges changes;

    ChangeStream(BenchData data) throws Exception {
        this.bootstrap = data.broker.bootstrapServers();
        this.edgesTopic = data.edgesTopic;
        this.nodesTopic = data.nodesTopic;
        long vertices = data.info.nodes();
        if (vertices > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(
                    "the change stream takes at most " + Integer.MAX_VALUE + " vertices");
        }
        int n = (int) Math.min(MAX_EDGES, data.info.edges());
        long[] s = new long[n];
        long[] d = new long[n];
        int k = 0;
        try (BufferedReader in =
                Files.newBufferedReader(data.dir.resolve("edges.csv"), StandardCharsets.UTF_8)) {
            String line;
            while (k < n && (line = in.readLine()) != null) {
                int comma = line.indexOf(',');
                if (comma > 0) {
                    s[k] = Long.parseLong(line.substring(0, comma).trim());
                    int end = line.indexOf(',', comma + 1);
                    d[k] =
                            Long.parseLong(
                                    line.substring(comma + 1, end < 0 ? line.length() : end)
                                            .trim());
                    if (s[k] < 0 || s[k] >= vertices || d[k] < 0 || d[k] >= vertices) {
                        throw new IllegalArgumentException(
                                "the change stream needs vertex ids in [0, "
                                        + vertices
                                        + "), edges.csv has "
                                        + line);
                    }
                    k++;
                }
            }
        }
        int[] labels = new int[(int) vertices];
        String[] splits = new String[(int) vertices];
        java.util.Arrays.fill(labels, -1);
        java.util.Arrays.fill(splits, "none");
        NodeFormat format = new NodeFormat(data.info.featureDim(), data.info.numClasses(), false);
        try (BufferedReader in =
                Files.newBufferedReader(data.dir.resolve("nodes.jsonl"), StandardCharsets.UTF_8)) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.isBlank()) {
                    continue;
                }
                NodeUpdate node = format.parse(line);
                if (node.id >= 0 && node.id < vertices) {
                    labels[(int) node.id] = node.label;
                    splits[(int) node.id] = node.split.name();
                }
            }
        }
        this.changes =
                new GraphChanges(
                        java.util.Arrays.copyOf(s, k),
                        java.util.Arrays.copyOf(d, k),
                        labels,
                        splits,
                        data.info.featureDim(),
                        (int) Math.min(100, Math.max(1, vertices / 1_000)),
                        17);
    }

    /** Starts sending {@code rate} changes per second (again after {@link #stop}). */
    void start(int rate) {
        running.set(true);
        sent.set(0);
        thread = new Thread(() -> send(rate), "change-stream");
        thread.setDaemon(true);
        thread.start();
    }

    /** Stops sending; the changes sent are flushed. */
    void stop() throws InterruptedException {
        running.set(false);
        if (thread != null) {
            thread.join(10_000);
            thread = null;
        }
    }

    /**
     * The share of the edge changes that are additions from now on (0.5 at first), in [0, 1]; the
     * rest are removals.
     */
    void addShare(double share) {
        addShare = GraphChanges.checkShare(share);
    }

    /** Edge additions sent in all. */
    long additions() {
        return additions.get();
    }

    /** Edge removals sent in all. */
    long removals() {
        return removals.get();
    }

    /** Changes sent since the last {@link #start}. */
    long sent() {
        return sent.get();
    }

    private void send(int rate) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        // Batches of up to 5 ms, as Kafka 4 producers by default: a record per request costs the
        // broker more than the job.
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        long start = System.nanoTime();
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            while (running.get()) {
                long due = start + sent.get() * 1_000_000_000L / rate;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    java.util.concurrent.locks.LockSupport.parkNanos(wait);
                    continue;
                }
                changes.addShare(addShare);
                GraphChanges.Change c = changes.next();
                producer.send(
                        new ProducerRecord<>(
                                c.edge() ? edgesTopic : nodesTopic, c.key(), c.value()));
                additions.set(changes.additions());
                removals.set(changes.removals());
                sent.incrementAndGet();
            }
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }
}

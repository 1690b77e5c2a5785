package io.gnnstream.benchmarks.bench;

import java.io.BufferedReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Graph changes sent to a job's input topics at a steady rate on a thread of its own: 90 % edge
 * additions and removals (half each unless {@link #addShare} says otherwise; a removal takes an
 * edge of the dataset or one added before), 9 % node records of known vertices (new non-negative
 * features), 1 % deletions (which also end the vertex's edges, so a caller that keeps the live
 * edges level raises the additions' share). Each record is keyed as the loader keys it (edges by
 * destination), and its Kafka timestamp is its send time.
 */
final class ChangeStream implements AutoCloseable {

    /** Dataset edges kept as removal candidates at most. */
    private static final int MAX_EDGES = 4_000_000;

    private final String bootstrap;
    private final String edgesTopic;
    private final String nodesTopic;
    private final long vertices;
    private final int features;
    private final int classes;
    private final long[] src;
    private final long[] dst;
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong additions = new AtomicLong();
    private final AtomicLong removals = new AtomicLong();
    private volatile double addShare = 0.5;
    private Thread thread;

    // The sending thread's, kept from one start to the next (start and join order the accesses).
    private final SplittableRandom random = new SplittableRandom(17);
    private final long[] addedSrc = new long[1 << 16];
    private final long[] addedDst = new long[1 << 16];
    private int added;
    private int datasetCursor;

    ChangeStream(BenchData data) throws Exception {
        this.bootstrap = data.broker.bootstrapServers();
        this.edgesTopic = data.edgesTopic;
        this.nodesTopic = data.nodesTopic;
        this.vertices = data.info.nodes();
        this.features = data.info.featureDim();
        this.classes = data.info.numClasses();
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
                    d[k++] =
                            Long.parseLong(
                                    line.substring(comma + 1, end < 0 ? line.length() : end)
                                            .trim());
                }
            }
        }
        this.src = java.util.Arrays.copyOf(s, k);
        this.dst = java.util.Arrays.copyOf(d, k);
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
        if (!(share >= 0 && share <= 1)) {
            throw new IllegalArgumentException(
                    "the additions' share must be in [0, 1], got " + share);
        }
        addShare = share;
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
        // broker
        // more than the job.
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        SplittableRandom r = random;
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
                double kind = r.nextDouble();
                if (kind < 0.9 * addShare) {
                    additions.incrementAndGet();
                    long s = r.nextLong(vertices);
                    long d = r.nextLong(vertices);
                    if (added < addedSrc.length) {
                        addedSrc[added] = s;
                        addedDst[added++] = d;
                    }
                    producer.send(new ProducerRecord<>(edgesTopic, "" + d, s + "," + d));
                } else if (kind < 0.9) {
                    removals.incrementAndGet();
                    long s;
                    long d;
                    if (added > 0 && r.nextBoolean()) {
                        int i = r.nextInt(added);
                        s = addedSrc[i];
                        d = addedDst[i];
                        addedSrc[i] = addedSrc[--added];
                        addedDst[i] = addedDst[added];
                    } else {
                        int i = datasetCursor++ % src.length;
                        s = src[i];
                        d = dst[i];
                    }
                    producer.send(new ProducerRecord<>(edgesTopic, "" + d, s + "," + d + ",-"));
                } else if (kind < 0.99) {
                    long v = r.nextLong(vertices);
                    producer.send(new ProducerRecord<>(nodesTopic, "" + v, node(v, r)));
                } else {
                    long v = r.nextLong(vertices);
                    producer.send(
                            new ProducerRecord<>(
                                    nodesTopic, "" + v, "{\"id\":" + v + ",\"op\":\"delete\"}"));
                }
                sent.incrementAndGet();
            }
        }
    }

    private String node(long v, SplittableRandom r) {
        StringBuilder b = new StringBuilder(16 + 6 * features);
        b.append("{\"id\":").append(v).append(",\"label\":").append(r.nextInt(classes));
        b.append(",\"split\":\"none\",\"features\":[");
        for (int f = 0; f < features; f++) {
            b.append(f == 0 ? "" : ",").append(r.nextInt(4) == 0 ? r.nextInt(1, 100) / 100.0 : 0);
        }
        return b.append("]}").toString();
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }
}

package io.gnnstream.benchmarks.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The peak resident set size of some processes over a run: a daemon thread reads {@code VmRSS} from
 * {@code /proc/<pid>/status} every {@link #PERIOD_MS} ms and keeps each maximum. RSS counts what
 * the heap, RocksDB and network buffers really occupy, which no JVM memory bean reports; a spike
 * shorter than the period can be missed. Linux only.
 */
final class RssSampler implements AutoCloseable {

    static final long PERIOD_MS = 50;

    private final Path[] status;
    private final AtomicLongArray peaks;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile IOException failure;

    private RssSampler(Path[] status) throws IOException {
        this.status = status;
        this.peaks = new AtomicLongArray(status.length);
        sample();
        thread = new Thread(this::loop, "rss-sampler");
        thread.setDaemon(true);
        thread.start();
    }

    /** Whether this system has {@code /proc/self/status} to sample. */
    static boolean available() {
        return Files.isReadable(Path.of("/proc/self/status"));
    }

    /** Starts sampling the processes {@code pids}. */
    static RssSampler start(long... pids) throws IOException {
        Path[] status = new Path[pids.length];
        for (int i = 0; i < pids.length; i++) {
            status[i] = statusFile(pids[i]);
        }
        return new RssSampler(status);
    }

    /** The current RSS of process {@code pid} in bytes. */
    static long current(long pid) throws IOException {
        return vmRssBytes(Files.readString(statusFile(pid)));
    }

    /** The largest RSS of the {@code i}-th process seen so far, in bytes. */
    long peakBytes(int i) {
        return peaks.get(i);
    }

    /**
     * Stops sampling (within one period: the thread is not interrupted, as an interrupt would abort
     * a read) after a last read; the peaks stay available.
     *
     * @throws IOException if a read failed (e.g. a process is gone), so no peak is reported for it
     */
    @Override
    public void close() throws IOException {
        running = false;
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (failure != null) {
            throw failure;
        }
        sample();
    }

    private void loop() {
        while (running) {
            try {
                sample();
                Thread.sleep(PERIOD_MS);
            } catch (InterruptedException e) {
                return;
            } catch (IOException e) {
                failure = e;
                return;
            }
        }
    }

    private void sample() throws IOException {
        for (int i = 0; i < status.length; i++) {
            long rss = vmRssBytes(Files.readString(status[i]));
            peaks.accumulateAndGet(i, rss, Math::max);
        }
    }

    private static Path statusFile(long pid) {
        return Path.of("/proc", Long.toString(pid), "status");
    }

    /**
     * The {@code VmRSS} line of a {@code /proc/<pid>/status} text, in bytes.
     *
     * @throws IllegalArgumentException if there is no well-formed {@code VmRSS: <n> kB} line
     */
    static long vmRssBytes(String procStatus) {
        for (String line : procStatus.split("\n")) {
            if (line.startsWith("VmRSS:")) {
                String[] parts = line.substring("VmRSS:".length()).trim().split("\\s+");
                if (parts.length == 2 && parts[1].equals("kB") && parts[0].matches("[0-9]{1,15}")) {
                    return Long.parseLong(parts[0]) * 1024L;
                }
                break;
            }
        }
        throw new IllegalArgumentException("no 'VmRSS: <n> kB' line in process status");
    }
}

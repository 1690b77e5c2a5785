package io.gnnstream.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;
import org.apache.flink.configuration.MemorySize;

/**
 * The process size of a host's TaskManagers when {@code --taskmanager-memory auto}: three quarters
 * of the host's memory (the smaller of its physical memory and this process's cgroup limit), less
 * the JobManagers' and a ZooKeeper server's on the host, shared by its TaskManagers; at least
 * {@value #MIN_TEXT} (1 GiB of it is managed memory for RocksDB) and at most {@value #MAX_TEXT}.
 * The quarter left is the operating system's and the page cache's, which RocksDB reads through.
 */
public final class TaskManagerMemory {

    /** What {@code --taskmanager-memory} takes to size TaskManagers from the host's memory. */
    public static final String AUTO = "auto";

    /** The size where the host's memory cannot be read. */
    static final String FALLBACK = "3g";

    static final String MIN_TEXT = "2g";
    static final String MAX_TEXT = "64g";
    static final long ZOOKEEPER = MemorySize.parse("256m").getBytes();

    private TaskManagerMemory() {}

    /**
     * The process size of each of {@code taskManagers} TaskManagers on a host of {@code hostBytes}
     * that also runs {@code jobManagers} JobManagers of {@code jobManagerBytes} each, and a
     * ZooKeeper server when {@code zooKeeper}.
     */
    public static MemorySize auto(
            long hostBytes,
            int taskManagers,
            int jobManagers,
            long jobManagerBytes,
            boolean zooKeeper) {
        long usable =
                hostBytes / 4 * 3 - jobManagers * jobManagerBytes - (zooKeeper ? ZOOKEEPER : 0);
        long each = usable / Math.max(1, taskManagers);
        long min = MemorySize.parse(MIN_TEXT).getBytes();
        long max = MemorySize.parse(MAX_TEXT).getBytes();
        long mb = Math.max(min, Math.min(max, each)) >> 20;
        return MemorySize.ofMebiBytes(mb);
    }

    /** This host's memory: the smaller of MemTotal and the cgroup (v2 or v1) limit, if readable. */
    public static OptionalLong hostBytes() {
        long total = Long.MAX_VALUE;
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    total = Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | NumberFormatException | SecurityException e) {
            // not Linux, or not readable: the cgroup may still say
        }
        for (String f :
                new String[] {
                    "/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"
                }) {
            try {
                String v = Files.readString(Path.of(f), StandardCharsets.US_ASCII).trim();
                if (v.matches("\\d+")) {
                    total = Math.min(total, Long.parseLong(v));
                }
            } catch (IOException | NumberFormatException | SecurityException e) {
                // no such limit
            }
        }
        return total == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(total);
    }
}

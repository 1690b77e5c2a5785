package io.gnnstream.cluster;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Collectors;

/**
 * What {@code cluster start} records in the cluster directory ({@value #FILE}): the REST endpoint
 * of its first JobManager (none on a host of TaskManagers only), the PIDs of its ZooKeeper server,
 * JobManagers and TaskManagers, and the ZooKeeper quorum and cluster id of a highly available
 * cluster, so that {@code cluster status}, {@code cluster stop}, {@code submit} and {@code stop}
 * find them from another process.
 */
public final class ClusterState {

    public static final String FILE = "cluster.properties";

    private final String restHost;
    private final int restPort;
    private final long zooKeeperPid;
    private final List<Long> jobManagerPids;
    private final List<Long> taskManagerPids;
    private final String zooKeeperQuorum;
    private final String haClusterId;

    /** A cluster without high availability: one JobManager (or none: {@code -1}). */
    public ClusterState(
            String restHost, int restPort, long jobManagerPid, List<Long> taskManagerPids) {
        this(
                restHost,
                restPort,
                -1,
                jobManagerPid > 0 ? List.of(jobManagerPid) : List.of(),
                taskManagerPids,
                null,
                null);
    }

    public ClusterState(
            String restHost,
            int restPort,
            long zooKeeperPid,
            List<Long> jobManagerPids,
            List<Long> taskManagerPids,
            String zooKeeperQuorum,
            String haClusterId) {
        this.restHost = restHost == null ? "" : restHost;
        this.restPort = restPort;
        this.zooKeeperPid = zooKeeperPid;
        this.jobManagerPids = List.copyOf(jobManagerPids);
        this.taskManagerPids = List.copyOf(taskManagerPids);
        this.zooKeeperQuorum = zooKeeperQuorum;
        this.haClusterId = haClusterId;
    }

    /** Whether this directory runs a JobManager whose REST endpoint is recorded. */
    public boolean hasRestEndpoint() {
        return !restHost.isEmpty() && restPort > 0;
    }

    public String restHost() {
        return restHost;
    }

    public int restPort() {
        return restPort;
    }

    /** {@code host:port} of the REST endpoint (and the Web UI). */
    public String restAddress() {
        return restHost + ":" + restPort;
    }

    /** The first JobManager's PID, {@code -1} when this directory runs none. */
    public long jobManagerPid() {
        return jobManagerPids.isEmpty() ? -1 : jobManagerPids.get(0);
    }

    public List<Long> jobManagerPids() {
        return jobManagerPids;
    }

    public List<Long> taskManagerPids() {
        return taskManagerPids;
    }

    /** The PID of the ZooKeeper server this directory started, {@code -1} when none. */
    public long zooKeeperPid() {
        return zooKeeperPid;
    }

    /** The ZooKeeper quorum of a highly available cluster. */
    public Optional<String> zooKeeperQuorum() {
        return Optional.ofNullable(zooKeeperQuorum);
    }

    /** {@code high-availability.cluster-id} of a highly available cluster. */
    public Optional<String> haClusterId() {
        return Optional.ofNullable(haClusterId);
    }

    /** Every process of the cluster: ZooKeeper, the JobManagers, then the TaskManagers. */
    public List<Long> pids() {
        List<Long> all = new ArrayList<>();
        if (zooKeeperPid > 0) {
            all.add(zooKeeperPid);
        }
        all.addAll(jobManagerPids);
        all.addAll(taskManagerPids);
        return all;
    }

    ClusterState withZooKeeper(long pid) {
        return new ClusterState(
                restHost,
                restPort,
                pid,
                jobManagerPids,
                taskManagerPids,
                zooKeeperQuorum,
                haClusterId);
    }

    ClusterState withJobManager(long pid) {
        return new ClusterState(
                restHost,
                restPort,
                zooKeeperPid,
                appended(jobManagerPids, pid),
                taskManagerPids,
                zooKeeperQuorum,
                haClusterId);
    }

    ClusterState withTaskManager(long pid) {
        return new ClusterState(
                restHost,
                restPort,
                zooKeeperPid,
                jobManagerPids,
                appended(taskManagerPids, pid),
                zooKeeperQuorum,
                haClusterId);
    }

    private static List<Long> appended(List<Long> pids, long pid) {
        List<Long> all = new ArrayList<>(pids);
        all.add(pid);
        return all;
    }

    /** Writes the state atomically (a reader never sees half a file). */
    public void write(Path dir) throws IOException {
        Properties p = new Properties();
        p.setProperty("rest.host", restHost);
        p.setProperty("rest.port", Integer.toString(restPort));
        p.setProperty("zookeeper.pid", Long.toString(zooKeeperPid));
        p.setProperty("jobmanager.pids", join(jobManagerPids));
        p.setProperty("taskmanager.pids", join(taskManagerPids));
        if (zooKeeperQuorum != null) {
            p.setProperty("high-availability.zookeeper.quorum", zooKeeperQuorum);
            p.setProperty("high-availability.cluster-id", haClusterId);
        }
        Path tmp = dir.resolve(FILE + ".tmp");
        try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
            p.store(w, "gnnstream standalone cluster");
        }
        Files.move(
                tmp,
                dir.resolve(FILE),
                StandardCopyOption.REPLACE_EXISTING,
                StandardCopyOption.ATOMIC_MOVE);
    }

    /** The state recorded in {@code dir}, if a cluster was started there and not stopped. */
    public static Optional<ClusterState> read(Path dir) throws IOException {
        Path file = dir.resolve(FILE);
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        }
        try {
            // Files written before the cluster knew several JobManagers name one as
            // jobmanager.pid.
            String jms = p.getProperty("jobmanager.pids", p.getProperty("jobmanager.pid", ""));
            return Optional.of(
                    new ClusterState(
                            p.getProperty("rest.host", ""),
                            Integer.parseInt(p.getProperty("rest.port", "-1")),
                            Long.parseLong(p.getProperty("zookeeper.pid", "-1")),
                            split(jms),
                            split(p.getProperty("taskmanager.pids", "")),
                            p.getProperty("high-availability.zookeeper.quorum"),
                            p.getProperty("high-availability.cluster-id")));
        } catch (RuntimeException e) {
            throw new IOException("unreadable cluster state " + file + ": " + e.getMessage(), e);
        }
    }

    public static void delete(Path dir) throws IOException {
        Files.deleteIfExists(dir.resolve(FILE));
    }

    private static String join(List<Long> pids) {
        return pids.stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    private static List<Long> split(String pids) {
        return pids.isBlank()
                ? List.of()
                : Arrays.stream(pids.split(","))
                        .map(String::trim)
                        .map(Long::parseLong)
                        .filter(pid -> pid > 0)
                        .collect(Collectors.toList());
    }
}

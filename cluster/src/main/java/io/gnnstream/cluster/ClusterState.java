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
 * and the PIDs of the JobManager and TaskManager processes, so that {@code cluster status}, {@code
 * cluster stop} and {@code submit} find them from another process.
 */
public final class ClusterState {

    public static final String FILE = "cluster.properties";

    private final String restHost;
    private final int restPort;
    private final long jobManagerPid;
    private final List<Long> taskManagerPids;

    public ClusterState(
            String restHost, int restPort, long jobManagerPid, List<Long> taskManagerPids) {
        this.restHost = restHost;
        this.restPort = restPort;
        this.jobManagerPid = jobManagerPid;
        this.taskManagerPids = List.copyOf(taskManagerPids);
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

    public long jobManagerPid() {
        return jobManagerPid;
    }

    public List<Long> taskManagerPids() {
        return taskManagerPids;
    }

    /** Every process of the cluster: the JobManager first. */
    public List<Long> pids() {
        List<Long> all = new ArrayList<>();
        all.add(jobManagerPid);
        all.addAll(taskManagerPids);
        return all;
    }

    /** Writes the state atomically (a reader never sees half a file). */
    public void write(Path dir) throws IOException {
        Properties p = new Properties();
        p.setProperty("rest.host", restHost);
        p.setProperty("rest.port", Integer.toString(restPort));
        p.setProperty("jobmanager.pid", Long.toString(jobManagerPid));
        p.setProperty(
                "taskmanager.pids",
                taskManagerPids.stream().map(String::valueOf).collect(Collectors.joining(",")));
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
            String tms = p.getProperty("taskmanager.pids", "");
            List<Long> tmPids =
                    tms.isBlank()
                            ? List.of()
                            : Arrays.stream(tms.split(","))
                                    .map(Long::parseLong)
                                    .collect(Collectors.toList());
            return Optional.of(
                    new ClusterState(
                            p.getProperty("rest.host"),
                            Integer.parseInt(p.getProperty("rest.port")),
                            Long.parseLong(p.getProperty("jobmanager.pid")),
                            tmPids));
        } catch (RuntimeException e) {
            throw new IOException("unreadable cluster state " + file + ": " + e.getMessage(), e);
        }
    }

    public static void delete(Path dir) throws IOException {
        Files.deleteIfExists(dir.resolve(FILE));
    }
}

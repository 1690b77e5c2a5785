package io.gnnstream.cli;

import io.gnnstream.cluster.ClusterRest;
import io.gnnstream.cluster.ClusterState;
import io.gnnstream.cluster.StandaloneCluster;
import io.gnnstream.cluster.TaskManagerMemory;
import io.gnnstream.jobs.LocalFlink;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cluster start|status|stop}: a Flink standalone session cluster of separate processes, on
 * loopback or on the hosts' own addresses, optionally highly available through ZooKeeper.
 */
@Command(
        name = "cluster",
        mixinStandardHelpOptions = true,
        description =
                "Start, inspect or stop a Flink standalone cluster (JobManager, TaskManager and"
                        + " ZooKeeper processes) on this host.",
        subcommands = {
            ClusterCommand.Start.class,
            ClusterCommand.Status.class,
            ClusterCommand.Stop.class
        })
final class ClusterCommand implements Runnable {

    @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** The project's root ({@code bin/gnnstream} sets it). */
    static Path home() {
        return Path.of(System.getProperty(DemoCommand.HOME_PROPERTY, "."))
                .toAbsolutePath()
                .normalize();
    }

    /** The jars a cluster runs from: {@code cluster/target/flink/lib}, assembled by the build. */
    static Path flinkLib() {
        return home().resolve("cluster").resolve("target").resolve("flink").resolve("lib");
    }

    /** The base Flink configuration: {@code flink-conf/}. */
    static Path flinkConf() {
        String dir = System.getProperty(LocalFlink.CONF_DIR_PROPERTY);
        return dir != null ? Path.of(dir) : home().resolve("flink-conf");
    }

    @Command(
            name = "start",
            mixinStandardHelpOptions = true,
            description =
                    "Start a JobManager and N TaskManagers as separate JVM processes on this host's"
                        + " --bind address, configured from flink-conf/config.yaml; returns when"
                        + " all TaskManagers have registered. On several hosts: `--taskmanagers 0`"
                        + " on the JobManager's host, `--jobmanagers 0 --jobmanager HOST:PORT` on"
                        + " each TaskManager host; with --ha, a ZooKeeper server and a standby"
                        + " JobManager, and TaskManagers that find the leader through --zookeeper.")
    static final class Start implements Callable<Integer> {
        @Option(
                names = "--taskmanagers",
                defaultValue = "2",
                description = "TaskManager processes (default: ${DEFAULT-VALUE}).")
        int taskManagers;

        @Option(
                names = "--bind",
                defaultValue = "127.0.0.1",
                paramLabel = "ADDRESS",
                description =
                        "Address of this host that every process binds to and advertises; on"
                                + " several hosts, each host's own (default: ${DEFAULT-VALUE}).")
        String bind;

        @Option(
                names = "--jobmanagers",
                paramLabel = "N",
                description =
                        "JobManager processes: 1, or 2 (leader and standby) with --ha; 0 on a host"
                                + " of TaskManagers only.")
        Integer jobManagers;

        @Option(
                names = "--jobmanager",
                paramLabel = "HOST:PORT",
                description =
                        "With --jobmanagers 0 and no --ha: the RPC address of the JobManager the"
                                + " TaskManagers join (printed by its `cluster start`).")
        String joinJobManager;

        @Option(
                names = "--prometheus-ports",
                defaultValue = StandaloneCluster.DEFAULT_PROMETHEUS_PORTS,
                paramLabel = "FROM-TO",
                description =
                        "Ports of the processes' Prometheus endpoints (/metrics), one each: Flink's"
                                + " metrics and the job's training gauges (loss, accuracies, step,"
                                + " seeds/s, all-reduce time, replicas identical) (default:"
                                + " ${DEFAULT-VALUE}).")
        String prometheusPorts;

        @Option(
                names = "--ha",
                description =
                        "High availability through ZooKeeper: JobManagers elect a leader, a"
                                + " standby takes over a failed one and resumes the job from its"
                                + " last checkpoint. Starts a ZooKeeper server here unless"
                                + " --zookeeper names one.")
        boolean ha;

        @Option(
                names = "--zookeeper",
                paramLabel = "HOST:PORT[,...]",
                description = "With --ha: the ZooKeeper quorum to use instead of starting one.")
        String zooKeeper;

        @Option(
                names = "--ha-cluster-id",
                defaultValue = io.gnnstream.cluster.HighAvailability.DEFAULT_CLUSTER_ID,
                description =
                        "With --ha: the cluster's id in ZooKeeper, the same on all its hosts"
                                + " (default: ${DEFAULT-VALUE}).")
        String haClusterId;

        @Option(
                names = "--ha-storage-dir",
                paramLabel = "URI",
                description =
                        "With --ha: where JobManagers keep job graphs and checkpoint metadata; on"
                                + " several hosts a filesystem that all JobManager hosts share"
                                + " (default: <dir>/ha).")
        String haStorageDir;

        @Option(
                names = "--slots",
                defaultValue = "2",
                description = "Task slots per TaskManager (default: ${DEFAULT-VALUE}).")
        int slots;

        @Option(
                names = "--dir",
                defaultValue = ClusterTarget.DEFAULT_DIR,
                description =
                        "Cluster directory: configuration, logs, PIDs, default checkpoints and"
                                + " savepoints (default: ${DEFAULT-VALUE}).")
        Path dir;

        @Option(
                names = "--rest-port",
                defaultValue = "0",
                description =
                        "REST and Web UI port; 0 = 8081 if free, else any (default:"
                                + " ${DEFAULT-VALUE}).")
        int restPort;

        @Option(
                names = "--taskmanager-memory",
                defaultValue = TaskManagerMemory.AUTO,
                description =
                        "Process memory of each TaskManager, 1 GiB of it managed memory for"
                            + " RocksDB; auto: three quarters of the host's memory less the"
                            + " JobManagers', shared by the host's TaskManagers, 2g to 64g (hosts"
                            + " that share one machine's memory need sizes; default:"
                            + " ${DEFAULT-VALUE}).")
        String taskManagerMemory;

        @Override
        public Integer call() throws Exception {
            long started = System.nanoTime();
            Files.createDirectories(dir);
            if (zooKeeper != null && !ha) {
                throw new IllegalArgumentException("--zookeeper needs --ha");
            }
            StandaloneCluster.Builder builder =
                    StandaloneCluster.builder(dir, flinkLib())
                            .baseConfiguration(flinkConf())
                            .bind(bind)
                            .taskManagers(taskManagers)
                            .slots(slots)
                            .restPort(restPort)
                            .taskManagerMemory(taskManagerMemory)
                            .prometheusPorts(prometheusPorts);
            if (jobManagers != null) {
                builder.jobManagers(jobManagers);
            }
            if (joinJobManager != null) {
                builder.joinJobManager(joinJobManager);
            }
            if (ha) {
                builder.highAvailability(zooKeeper).haClusterId(haClusterId);
                if (haStorageDir != null) {
                    builder.haStorageDir(haStorageDir);
                }
            }
            ClusterState state = builder.build().start();
            System.out.printf(
                    "Up in %.1f s on %s: %d JobManager(s), %d TaskManager(s) x %d slots%s.%n",
                    (System.nanoTime() - started) / 1e9,
                    bind,
                    state.jobManagerPids().size(),
                    taskManagers,
                    slots,
                    state.zooKeeperPid() > 0 ? ", ZooKeeper" : "");
            if (state.hasRestEndpoint()) {
                System.out.println("Web UI: http://" + state.restAddress());
                if (!ha && !java.net.InetAddress.getByName(bind).isLoopbackAddress()) {
                    System.out.println(
                            "TaskManagers of other hosts join with: --jobmanagers 0 --jobmanager "
                                    + bind
                                    + ":"
                                    + jobManagerRpcPort(dir));
                }
            }
            state.zooKeeperQuorum()
                    .ifPresent(
                            q ->
                                    System.out.println(
                                            "High availability through ZooKeeper "
                                                    + q
                                                    + " (cluster id "
                                                    + state.haClusterId().orElse("")
                                                    + "); clients: --zookeeper "
                                                    + q));
            System.out.println("Stop it with: bin/gnnstream cluster stop --dir " + dir);
            return 0;
        }
    }

    /** The RPC port the cluster in {@code dir} gave its JobManager. */
    static int jobManagerRpcPort(Path dir) {
        return org.apache.flink.configuration.GlobalConfiguration.loadConfiguration(
                        dir.toAbsolutePath().resolve("conf").toString())
                .get(org.apache.flink.configuration.JobManagerOptions.PORT);
    }

    @Command(
            name = "status",
            mixinStandardHelpOptions = true,
            description = "Show the cluster's processes, TaskManagers, slots and jobs.")
    static final class Status implements Callable<Integer> {
        @Option(
                names = "--dir",
                defaultValue = ClusterTarget.DEFAULT_DIR,
                description = "Cluster directory (default: ${DEFAULT-VALUE}).")
        Path dir;

        @Override
        public Integer call() throws Exception {
            Path abs = dir.toAbsolutePath().normalize();
            Optional<ClusterState> state = ClusterState.read(abs);
            if (state.isEmpty()) {
                System.out.println("No cluster running in " + abs);
                return 3;
            }
            ClusterState s = state.get();
            int alive = 0;
            for (long pid : s.pids()) {
                boolean up = StandaloneCluster.process(pid, abs).isPresent();
                alive += up ? 1 : 0;
                System.out.println(
                        (pid == s.zooKeeperPid()
                                        ? "zookeeper   "
                                        : s.jobManagerPids().contains(pid)
                                                ? "jobmanager  "
                                                : "taskmanager ")
                                + "pid "
                                + pid
                                + (up ? " running" : " not running"));
            }
            if (!s.hasRestEndpoint() && s.zooKeeperQuorum().isEmpty()) {
                return alive == s.pids().size() ? 0 : 1;
            }
            ClusterRest rest;
            try {
                rest =
                        s.zooKeeperQuorum().isPresent()
                                ? io.gnnstream.cluster.HighAvailability.leaderRest(
                                        s.zooKeeperQuorum().get(),
                                        s.haClusterId().orElseThrow(),
                                        java.time.Duration.ofSeconds(10))
                                : new ClusterRest(s.restHost(), s.restPort());
            } catch (io.gnnstream.cluster.ClusterException noLeader) {
                System.out.println(noLeader.getMessage());
                return 1;
            }
            Optional<ClusterRest.Overview> overview = rest.overview();
            if (overview.isEmpty()) {
                System.out.println("REST endpoint " + rest.webUi() + " does not answer");
                return alive == 0 ? 3 : 1;
            }
            ClusterRest.Overview o = overview.get();
            System.out.printf(
                    "Flink %s, Web UI %s: %d TaskManagers, %d of %d slots free%n",
                    o.flinkVersion(),
                    rest.webUi(),
                    o.taskManagers(),
                    o.slotsAvailable(),
                    o.slotsTotal());
            for (ClusterRest.JobInfo job : rest.jobs()) {
                System.out.println("job " + job.id() + " " + job.status() + " " + job.name());
            }
            return alive == s.pids().size() ? 0 : 1;
        }
    }

    @Command(
            name = "stop",
            mixinStandardHelpOptions = true,
            description =
                    "Stop the cluster's processes by PID (SIGTERM, then SIGKILL after 15 s)."
                            + " Running jobs end with it: stop them with a savepoint first (`stop"
                            + " --job`).")
    static final class Stop implements Callable<Integer> {
        @Option(
                names = "--dir",
                defaultValue = ClusterTarget.DEFAULT_DIR,
                description = "Cluster directory (default: ${DEFAULT-VALUE}).")
        Path dir;

        @Override
        public Integer call() throws Exception {
            List<Long> stopped = StandaloneCluster.stop(dir);
            System.out.println(
                    stopped.isEmpty()
                            ? "No cluster running in " + dir.toAbsolutePath()
                            : "Stopped processes " + stopped);
            return 0;
        }
    }
}

package io.gnnstream.cli;

import io.gnnstream.cluster.ClusterRest;
import io.gnnstream.cluster.ClusterState;
import io.gnnstream.cluster.StandaloneCluster;
import io.gnnstream.jobs.LocalFlink;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cluster start|status|stop}: a Flink standalone session cluster of separate processes on
 * loopback.
 */
@Command(
        name = "cluster",
        mixinStandardHelpOptions = true,
        description =
                "Start, inspect or stop a local Flink standalone cluster (JobManager and"
                        + " TaskManager processes).",
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
                    "Start a JobManager and N TaskManagers as separate JVM processes on 127.0.0.1,"
                        + " configured from flink-conf/config.yaml; returns when all TaskManagers"
                        + " have registered.")
    static final class Start implements Callable<Integer> {
        @Option(
                names = "--taskmanagers",
                defaultValue = "2",
                description = "TaskManager processes (default: ${DEFAULT-VALUE}).")
        int taskManagers;

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
                defaultValue = "3g",
                description =
                        "Process memory of each TaskManager, 1 GiB of it managed memory for RocksDB"
                                + " (default: ${DEFAULT-VALUE}).")
        String taskManagerMemory;

        @Override
        public Integer call() throws Exception {
            long started = System.nanoTime();
            Files.createDirectories(dir);
            ClusterState state =
                    StandaloneCluster.builder(dir, flinkLib())
                            .baseConfiguration(flinkConf())
                            .taskManagers(taskManagers)
                            .slots(slots)
                            .restPort(restPort)
                            .taskManagerMemory(taskManagerMemory)
                            .build()
                            .start();
            System.out.printf(
                    "Cluster up in %.1f s: %d TaskManagers x %d slots. Web UI: http://%s%n",
                    (System.nanoTime() - started) / 1e9, taskManagers, slots, state.restAddress());
            System.out.println("Stop it with: bin/gnnstream cluster stop --dir " + dir);
            return 0;
        }
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
                        (pid == s.jobManagerPid() ? "jobmanager  " : "taskmanager ")
                                + "pid "
                                + pid
                                + (up ? " running" : " not running"));
            }
            ClusterRest rest = new ClusterRest(s.restHost(), s.restPort());
            Optional<ClusterRest.Overview> overview = rest.overview();
            if (overview.isEmpty()) {
                System.out.println("REST endpoint http://" + s.restAddress() + " does not answer");
                return alive == 0 ? 3 : 1;
            }
            ClusterRest.Overview o = overview.get();
            System.out.printf(
                    "Flink %s, Web UI http://%s: %d TaskManagers, %d of %d slots free%n",
                    o.flinkVersion(),
                    s.restAddress(),
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

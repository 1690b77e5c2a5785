package io.gnnstream.cluster;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.runtime.clusterframework.BootstrapTools;

/**
 * The processes of a Flink standalone session cluster on one host, run from the jars of {@code lib}
 * as Flink's own scripts run them: JobManagers ({@code StandaloneSessionClusterEntrypoint}),
 * TaskManagers ({@code TaskManagerRunner}) and, for high availability, a ZooKeeper server ({@code
 * FlinkZooKeeperQuorumPeer}). Every process binds to and advertises one address ({@link
 * Builder#bind}, loopback by default). A cluster of several hosts is one start per host: a
 * JobManager host, and TaskManager hosts that join its RPC address or, highly available, find the
 * leader through ZooKeeper. The cluster directory holds the generated {@code conf/} (the base
 * configuration with addresses, ports, slots, memory and directories set), {@code log/}, {@code
 * tmp/}, the default checkpoint and savepoint directories, and {@link ClusterState} with the
 * processes' PIDs.
 *
 * <p>Memory flags come from Flink's {@code BashJavaUtils}, as in the distribution's scripts. The
 * processes run in a session of their own ({@code setsid}), so a Ctrl-C in the terminal that
 * started them does not reach them once {@link #start} has returned; while it runs, a shutdown hook
 * stops whatever it started, so an interrupted start leaves no process behind. {@link #stop} ends
 * them by PID: SIGTERM, then SIGKILL after a grace period.
 */
public final class StandaloneCluster {

    private static final String ZOOKEEPER_MAIN =
            "org.apache.flink.runtime.zookeeper.FlinkZooKeeperQuorumPeer";
    private static final String JOB_MANAGER_MAIN =
            "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint";
    private static final String TASK_MANAGER_MAIN =
            "org.apache.flink.runtime.taskexecutor.TaskManagerRunner";
    private static final String BASH_JAVA_UTILS =
            "org.apache.flink.runtime.util.bash.BashJavaUtils";
    private static final String RESULT_PREFIX = "BASH_JAVA_UTILS_EXEC_RESULT:";
    private static final Duration STOP_GRACE = Duration.ofSeconds(15);

    /** Ports of the processes' Prometheus endpoints unless given. */
    public static final String DEFAULT_PROMETHEUS_PORTS = "9249-9268";

    private final Path dir;
    private final Path lib;
    private final Path baseConf;
    private final int taskManagers;
    private final int slots;
    private final int restPort;
    private final String taskManagerMemory;
    private final String jobManagerMemory;
    private final Map<String, String> settings;
    private final Duration startTimeout;
    private final PrintStream out;
    private final String bind;
    private final int jobManagers;
    private final String joinJobManager;
    private final boolean ha;
    private final String zooKeeperQuorum;
    private final String clusterId;
    private final String haStorageDir;
    private final String prometheusPorts;

    private StandaloneCluster(Builder b) {
        this.dir = b.dir.toAbsolutePath().normalize();
        this.lib = b.lib.toAbsolutePath().normalize();
        this.baseConf = b.baseConf == null ? null : b.baseConf.toAbsolutePath().normalize();
        this.taskManagers = b.taskManagers;
        this.slots = b.slots;
        this.restPort = b.restPort;
        this.jobManagerMemory = b.jobManagerMemory;
        this.jobManagers = b.jobManagers == null ? (b.ha ? 2 : 1) : b.jobManagers;
        this.taskManagerMemory = taskManagerMemory(b, jobManagers);
        this.settings = Map.copyOf(b.settings);
        this.startTimeout = b.startTimeout;
        this.out = b.out;
        this.bind = b.bind;
        this.joinJobManager = b.joinJobManager;
        this.ha = b.ha;
        this.zooKeeperQuorum = b.zooKeeperQuorum;
        this.clusterId = b.clusterId;
        this.haStorageDir = b.haStorageDir;
        this.prometheusPorts = b.prometheusPorts;
        if (jobManagers == 0 && taskManagers == 0 && !(ha && zooKeeperQuorum == null)) {
            throw new IllegalArgumentException(
                    "nothing to start: --jobmanagers and --taskmanagers are both 0 (with --ha and"
                            + " no --zookeeper, a ZooKeeper server alone)");
        }
        if (jobManagers == 0 && !ha && joinJobManager == null) {
            throw new IllegalArgumentException(
                    "TaskManagers without a JobManager of their own need the JobManager to join:"
                            + " --jobmanager HOST:PORT (its RPC port), or --ha with --zookeeper");
        }
        if (jobManagers > 1 && !ha) {
            throw new IllegalArgumentException(
                    "several JobManagers need high availability (--ha); got --jobmanagers "
                            + jobManagers);
        }
    }

    public static Builder builder(Path dir, Path lib) {
        return new Builder(dir, lib);
    }

    /**
     * Starts the processes and returns once every TaskManager has registered with the JobManager.
     * Throws {@link ClusterException} when a cluster of this directory is still running, the jars
     * are missing, or the cluster does not come up within the start timeout (its processes are
     * stopped then, and the log directory is named).
     */
    public ClusterState start() throws IOException, InterruptedException {
        Optional<ClusterState> existing = ClusterState.read(dir);
        if (existing.isPresent()
                && existing.get().pids().stream().anyMatch(pid -> process(pid, dir).isPresent())) {
            throw new ClusterException(
                    "a cluster started in "
                            + dir
                            + " is running"
                            + (existing.get().hasRestEndpoint()
                                    ? " (Web UI http://" + existing.get().restAddress() + ")"
                                    : "")
                            + "; stop it first with `cluster stop --dir "
                            + dir
                            + "`");
        }
        if (!Files.isDirectory(lib)
                || jars().stream()
                        .noneMatch(j -> j.getFileName().toString().startsWith("flink-runtime-"))) {
            throw new ClusterException(
                    "no Flink jars in " + lib + " (built by `mvn package` of the cluster module)");
        }
        Path conf = dir.resolve("conf");
        Ports ports = ports();
        Configuration clusterConf = writeConfiguration(ports);
        ClusterState state =
                new ClusterState(
                        jobManagers > 0 ? bind : "",
                        jobManagers > 0 ? ports.rest[0] : -1,
                        -1,
                        List.of(),
                        List.of(),
                        ha ? ports.zooKeeperQuorum : null,
                        ha ? clusterId : null);
        Launched launched = new Launched();
        Thread cleanup =
                new Thread(
                        () -> {
                            launched.abort();
                            try {
                                ClusterState.delete(dir);
                            } catch (IOException e) {
                                // the processes are gone; a stale file names only dead PIDs
                            }
                        },
                        "gnnstream-cluster-start-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanup);
        boolean up = false;
        try {
            if (ports.zooKeeper > 0) {
                Process zk = launched.start(zooKeeper(conf, ports.zooKeeper), out);
                state = state.withZooKeeper(zk.pid());
                state.write(dir);
                awaitListening(ports.zooKeeper, launched, "ZooKeeper");
            }
            for (int i = 0; i < jobManagers; i++) {
                Process jm =
                        launched.start(
                                launch(
                                        conf,
                                        clusterConf,
                                        "jobmanager",
                                        i,
                                        JOB_MANAGER_MAIN,
                                        "GET_JM_RESOURCE_PARAMS",
                                        "env.java.opts.jobmanager",
                                        List.of("-D", "rest.port=" + ports.rest[i]),
                                        launched),
                                out);
                state = state.withJobManager(jm.pid());
                state.write(dir);
            }
            if (taskManagers > 0) {
                out.println(
                        taskManagers
                                + " TaskManager(s) of "
                                + taskManagerMemory
                                + " process memory, "
                                + slots
                                + " slots each");
            }
            for (int i = 0; i < taskManagers; i++) {
                Process tm =
                        launched.start(
                                launch(
                                        conf,
                                        clusterConf,
                                        "taskmanager",
                                        i,
                                        TASK_MANAGER_MAIN,
                                        "GET_TM_RESOURCE_PARAMS",
                                        "env.java.opts.taskmanager",
                                        List.of(),
                                        launched),
                                out);
                state = state.withTaskManager(tm.pid());
                state.write(dir);
            }
            for (int i = 0; i < jobManagers; i++) {
                awaitListening(ports.rest[i], launched, "JobManager " + i + "'s REST endpoint");
            }
            if (jobManagers > 0) {
                awaitTaskManagers(state, launched);
            } else {
                awaitRegistrations(launched);
            }
            up = true;
            return state;
        } finally {
            if (!up) {
                launched.abort();
                ClusterState.delete(dir);
            }
            try {
                Runtime.getRuntime().removeShutdownHook(cleanup);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs
            }
        }
    }

    /**
     * Stops the processes of the cluster started in {@code dir} (SIGTERM, SIGKILL after a grace
     * period) and removes its state; returns the PIDs it stopped. A process whose PID now belongs
     * to another program (its command line does not name the directory) is left alone.
     */
    public static List<Long> stop(Path dir) throws IOException {
        Path abs = dir.toAbsolutePath().normalize();
        Optional<ClusterState> state = ClusterState.read(abs);
        if (state.isEmpty()) {
            return List.of();
        }
        // TaskManagers first, then the JobManagers, ZooKeeper last: each stops while what it
        // reports to is still there. A stopped (SIGSTOP) process ends with SIGKILL.
        List<Long> stopped = new ArrayList<>();
        for (List<Long> group :
                List.of(
                        state.get().taskManagerPids(),
                        state.get().jobManagerPids(),
                        state.get().zooKeeperPid() > 0
                                ? List.of(state.get().zooKeeperPid())
                                : List.<Long>of())) {
            List<ProcessHandle> running = new ArrayList<>();
            for (long pid : group) {
                process(pid, abs).ifPresent(running::add);
            }
            running.forEach(ProcessHandle::destroy);
            long deadline = System.nanoTime() + STOP_GRACE.toNanos();
            for (ProcessHandle h : running) {
                try {
                    h.onExit().get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (Exception slow) {
                    h.destroyForcibly();
                    h.onExit().join();
                }
                stopped.add(h.pid());
            }
        }
        ClusterState.delete(abs);
        return stopped;
    }

    /** The live process of a cluster in {@code dir} with this PID (a reused PID does not count). */
    public static Optional<ProcessHandle> process(long pid, Path dir) {
        if (pid <= 0) {
            return Optional.empty();
        }
        return ProcessHandle.of(pid)
                .filter(ProcessHandle::isAlive)
                .filter(
                        h ->
                                h.info()
                                        .commandLine()
                                        .map(
                                                cmd ->
                                                        cmd.contains(
                                                                dir.toAbsolutePath()
                                                                        .normalize()
                                                                        .toString()))
                                        .orElse(true));
    }

    private List<Path> jars() throws IOException {
        try (var files = Files.list(lib)) {
            return files.filter(p -> p.toString().endsWith(".jar"))
                    .sorted()
                    .collect(Collectors.toList());
        }
    }

    /** The ports this start binds on {@link #bind} (or joins), chosen before anything starts. */
    private Ports ports() throws IOException {
        Ports p = new Ports();
        p.rest = new int[jobManagers];
        for (int i = 0; i < jobManagers; i++) {
            p.rest[i] = restPort > 0 ? restPort + i : freePort(bind, 8081 + i);
        }
        p.rpc = jobManagers > 0 && !ha ? freePort(bind, 6123) : 0;
        if (ha && zooKeeperQuorum == null) {
            p.zooKeeper = freePort(bind, 2181);
            p.zooKeeperQuorum = bind + ":" + p.zooKeeper;
        } else {
            p.zooKeeperQuorum = zooKeeperQuorum;
        }
        return p;
    }

    /** The ports of one start. */
    private static final class Ports {
        int[] rest;
        int rpc;
        int zooKeeper;
        String zooKeeperQuorum;
    }

    /**
     * Writes {@code dir/conf}: the base configuration plus the cluster's own addresses, sizes and
     * directories; returns what it wrote.
     */
    private Configuration writeConfiguration(Ports ports) throws IOException {
        Path conf = dir.resolve("conf");
        Files.createDirectories(conf);
        Files.createDirectories(dir.resolve("log"));
        Files.createDirectories(dir.resolve("tmp"));
        Configuration c =
                baseConf != null && Files.isRegularFile(baseConf.resolve("config.yaml"))
                        ? GlobalConfiguration.loadConfiguration(baseConf.toString())
                        : new Configuration();
        // Every process binds to and advertises the one address of this host.
        if (jobManagers > 0) {
            c.setString("jobmanager.rpc.address", bind);
            c.setString("jobmanager.rpc.port", Integer.toString(ports.rpc > 0 ? ports.rpc : 6123));
        } else if (joinJobManager != null) {
            int colon = joinJobManager.lastIndexOf(':');
            c.setString("jobmanager.rpc.address", joinJobManager.substring(0, colon));
            c.setString("jobmanager.rpc.port", joinJobManager.substring(colon + 1));
        }
        // A JobManager on another address than loopback listens on all of its host's interfaces
        // (Flink's default): Flink's REST handler uploads a submitted job's jars to the blob server
        // through "localhost", so a blob server bound to the host's address alone refuses them.
        c.setString(
                "jobmanager.bind-host",
                InetAddress.getByName(bind).isLoopbackAddress() ? bind : "0.0.0.0");
        c.setString("rest.address", bind);
        c.setString("rest.bind-address", bind);
        c.setString("rest.port", Integer.toString(jobManagers > 0 ? ports.rest[0] : 8081));
        c.setString("taskmanager.host", bind);
        c.setString("taskmanager.bind-host", bind);
        c.setString("taskmanager.numberOfTaskSlots", Integer.toString(slots));
        c.setString("taskmanager.memory.process.size", taskManagerMemory);
        c.setString("jobmanager.memory.process.size", jobManagerMemory);
        c.setString("io.tmp.dirs", dir.resolve("tmp").toString());
        c.setString("web.tmpdir", dir.resolve("tmp").resolve("web").toString());
        c.setString("state.checkpoints.dir", dir.resolve("checkpoints").toUri().toString());
        c.setString("state.savepoints.dir", dir.resolve("savepoints").toUri().toString());
        // Every process reports its metrics (the job's training gauges included) on the first
        // free port of the range, at http://<bind>:<port>/metrics.
        c.setString(
                "metrics.reporter.prom.factory.class",
                "io.gnnstream.reporter.BoundPrometheusReporterFactory");
        c.setString("metrics.reporter.prom.host", bind);
        c.setString("metrics.reporter.prom.port", prometheusPorts);
        if (ha) {
            HighAvailability.configure(
                    c,
                    ports.zooKeeperQuorum,
                    clusterId,
                    haStorageDir != null ? haStorageDir : dir.resolve("ha").toUri().toString());
        }
        settings.forEach(c::setString);
        BootstrapTools.writeConfiguration(c, conf.resolve("config.yaml").toFile());
        Path log4j = baseConf == null ? null : baseConf.resolve("log4j2.properties");
        if (log4j != null && Files.isRegularFile(log4j)) {
            Files.copy(
                    log4j,
                    conf.resolve("log4j.properties"),
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        return c;
    }

    /**
     * The ZooKeeper server of a highly available cluster, run from Flink's jars as Flink's {@code
     * bin/zookeeper.sh} runs it ({@code FlinkZooKeeperQuorumPeer}, a standalone server of one
     * peer).
     */
    private ProcessBuilder zooKeeper(Path conf, int port) throws IOException {
        Path data = dir.resolve("zookeeper");
        Files.createDirectories(data);
        Path cfg = conf.resolve("zoo.cfg");
        Files.writeString(
                cfg,
                String.join(
                        "\n",
                        "# Written by gnnstream cluster start --ha; rewritten on every start.",
                        "tickTime=2000",
                        "initLimit=10",
                        "syncLimit=5",
                        "dataDir=" + data,
                        "clientPort=" + port,
                        "clientPortAddress=" + bind,
                        "maxClientCnxns=0",
                        ""));
        List<String> cmd = new ArrayList<>();
        if (new File("/usr/bin/setsid").canExecute()) {
            cmd.add("/usr/bin/setsid");
        }
        cmd.add(javaExecutable());
        cmd.add("-Xmx256m");
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-Dzookeeper.admin.enableServer=false");
        cmd.add("-Dlog.file=" + dir.resolve("log").resolve("zookeeper.log"));
        cmd.add("-Dlog4j.configurationFile=file:" + conf.resolve("log4j.properties"));
        cmd.add("-cp");
        cmd.add(lib + File.separator + "*");
        cmd.add(ZOOKEEPER_MAIN);
        cmd.add("--zkConfigFile");
        cmd.add(cfg.toString());
        cmd.add("--peerId");
        cmd.add("1");
        return new ProcessBuilder(cmd)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("log").resolve("zookeeper.out").toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    }

    /** The process of one role, ready to start. */
    private ProcessBuilder launch(
            Path conf,
            Configuration c,
            String role,
            int index,
            String mainClass,
            String memoryParams,
            String roleOptsKey,
            List<String> extraArgs,
            Launched launched)
            throws IOException, InterruptedException {
        List<String> memory = bashJavaUtils(conf, memoryParams, launched);
        String name = "flink-" + role + "-" + index;
        List<String> cmd = new ArrayList<>();
        if (new File("/usr/bin/setsid").canExecute()) {
            cmd.add("/usr/bin/setsid");
        }
        cmd.add(javaExecutable());
        cmd.addAll(split(memory.get(0)));
        cmd.addAll(split(c.getString("env.java.opts.all", "")));
        cmd.addAll(split(c.getString(roleOptsKey, "")));
        cmd.add("-Dlog.file=" + dir.resolve("log").resolve(name + ".log"));
        cmd.add("-Dlog4j.configuration=file:" + conf.resolve("log4j.properties"));
        cmd.add("-Dlog4j.configurationFile=file:" + conf.resolve("log4j.properties"));
        cmd.add("-Djava.io.tmpdir=" + dir.resolve("tmp"));
        cmd.add("-cp");
        cmd.add(lib + File.separator + "*");
        cmd.add(mainClass);
        cmd.add("--configDir");
        cmd.add(conf.toString());
        cmd.addAll(split(memory.get(1)));
        cmd.addAll(extraArgs);
        ProcessBuilder pb =
                new ProcessBuilder(cmd)
                        .directory(dir.toFile())
                        .redirectErrorStream(true)
                        .redirectOutput(dir.resolve("log").resolve(name + ".out").toFile())
                        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.environment().putIfAbsent("OMP_NUM_THREADS", "1");
        return pb;
    }

    /** The JVM flags (line 1) and dynamic memory properties (line 2) Flink's scripts compute. */
    private List<String> bashJavaUtils(Path conf, String command, Launched launched)
            throws IOException, InterruptedException {
        Path log = dir.resolve("log").resolve("bash-java-utils.out");
        Process p =
                launched.startHelper(
                        new ProcessBuilder(
                                        javaExecutable(),
                                        "-cp",
                                        lib + File.separator + "*",
                                        BASH_JAVA_UTILS,
                                        command,
                                        "--configDir",
                                        conf.toString())
                                .redirectErrorStream(true)
                                .redirectOutput(log.toFile()));
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                throw new ClusterException("BashJavaUtils did not finish (see " + log + ")");
            }
        } finally {
            p.destroyForcibly();
            launched.helperDone(p);
        }
        List<String> results =
                Files.readAllLines(log, StandardCharsets.UTF_8).stream()
                        .filter(l -> l.startsWith(RESULT_PREFIX))
                        .map(l -> l.substring(RESULT_PREFIX.length()))
                        .collect(Collectors.toList());
        if (p.exitValue() != 0 || results.size() < 2) {
            throw new ClusterException(
                    "cannot compute the processes' memory from " + conf + " (see " + log + ")");
        }
        return results.subList(results.size() - 2, results.size());
    }

    private void awaitTaskManagers(ClusterState state, Launched launched)
            throws IOException, InterruptedException {
        ClusterRest rest = new ClusterRest(state.restHost(), state.restPort());
        long deadline = System.nanoTime() + startTimeout.toNanos();
        int registered = -1;
        while (System.nanoTime() < deadline) {
            checkAlive(launched);
            registered = rest.overview().map(ClusterRest.Overview::taskManagers).orElse(-1);
            if (registered >= taskManagers) {
                return;
            }
            Thread.sleep(500);
        }
        throw new ClusterException(
                "the cluster did not come up within "
                        + startTimeout.toSeconds()
                        + " s ("
                        + Math.max(registered, 0)
                        + " of "
                        + taskManagers
                        + " TaskManagers registered); see "
                        + dir.resolve("log"));
    }

    /** Waits until a process of this start accepts connections on {@code port} of the host. */
    private void awaitListening(int port, Launched launched, String what)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + startTimeout.toNanos();
        while (System.nanoTime() < deadline) {
            checkAlive(launched);
            try (java.net.Socket s = new java.net.Socket()) {
                s.connect(new java.net.InetSocketAddress(bind, port), 1000);
                return;
            } catch (IOException notYet) {
                Thread.sleep(200);
            }
        }
        throw new ClusterException(
                what
                        + " did not listen on "
                        + bind
                        + ":"
                        + port
                        + " within "
                        + startTimeout.toSeconds()
                        + " s; see "
                        + dir.resolve("log"));
    }

    /**
     * On a host of TaskManagers only (no REST endpoint here to ask): waits until each TaskManager's
     * log says it registered with the resource manager.
     */
    private void awaitRegistrations(Launched launched) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + startTimeout.toNanos();
        int registered = 0;
        while (System.nanoTime() < deadline) {
            checkAlive(launched);
            registered = 0;
            for (int i = 0; i < taskManagers; i++) {
                Path log = dir.resolve("log").resolve("flink-taskmanager-" + i + ".log");
                if (Files.isRegularFile(log)
                        && Files.readString(log, StandardCharsets.ISO_8859_1)
                                .contains("Successful registration at resource manager")) {
                    registered++;
                }
            }
            if (registered >= taskManagers) {
                return;
            }
            Thread.sleep(500);
        }
        throw new ClusterException(
                "the TaskManagers did not register with the JobManager"
                        + (joinJobManager != null ? " at " + joinJobManager : "")
                        + (ha ? " (found through ZooKeeper " + zooKeeperQuorum + ")" : "")
                        + " within "
                        + startTimeout.toSeconds()
                        + " s ("
                        + registered
                        + " of "
                        + taskManagers
                        + "); see "
                        + dir.resolve("log"));
    }

    private void checkAlive(Launched launched) throws ClusterException {
        for (Process p : launched.processes()) {
            if (!p.isAlive()) {
                throw new ClusterException(
                        "a cluster process (pid "
                                + p.pid()
                                + ") exited with code "
                                + p.exitValue()
                                + " during start; see "
                                + dir.resolve("log"));
            }
        }
    }

    private static void terminate(Process p) {
        if (p.isAlive()) {
            p.destroy();
            try {
                if (!p.waitFor(STOP_GRACE.toSeconds(), TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    private static List<String> split(String opts) {
        String t = opts == null ? "" : opts.trim();
        return t.isEmpty() ? List.of() : Arrays.asList(t.split("\\s+"));
    }

    static String javaExecutable() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** The preferred port when it is free on {@code host}, else any free one. */
    static int freePort(String host, int preferred) throws IOException {
        InetAddress address = InetAddress.getByName(host);
        try (ServerSocket s = new ServerSocket(preferred, 1, address)) {
            return s.getLocalPort();
        } catch (IOException busy) {
            try (ServerSocket s = new ServerSocket(0, 1, address)) {
                return s.getLocalPort();
            }
        }
    }

    /**
     * The processes one {@link #start} has launched. Launching checks for an abort and starts the
     * process in one step under the lock that {@link #abort} takes, so an abort (the shutdown hook)
     * never misses a process, and nothing launches after it.
     */
    private static final class Launched {
        private final List<Process> processes = new ArrayList<>();
        private Process helper;
        private boolean aborted;

        synchronized Process start(ProcessBuilder pb, PrintStream out) throws IOException {
            Process p = launch(pb);
            processes.add(p);
            out.println(
                    "Started "
                            + pb.command().stream()
                                    .filter(a -> a.startsWith("-Dlog.file="))
                                    .findFirst()
                                    .map(a -> a.substring("-Dlog.file=".length()))
                                    .orElse("a process")
                            + " (pid "
                            + p.pid()
                            + ")");
            return p;
        }

        /** A short-lived helper ({@code BashJavaUtils}); one at a time. */
        synchronized Process startHelper(ProcessBuilder pb) throws IOException {
            helper = launch(pb);
            return helper;
        }

        synchronized void helperDone(Process p) {
            if (helper == p) {
                helper = null;
            }
        }

        synchronized List<Process> processes() {
            return new ArrayList<>(processes);
        }

        private Process launch(ProcessBuilder pb) throws IOException {
            if (aborted) {
                throw new ClusterException("the start was interrupted");
            }
            return pb.start();
        }

        /** Stops every launched process and waits for each to exit; later launches fail. */
        void abort() {
            List<Process> toStop;
            Process h;
            synchronized (this) {
                aborted = true;
                toStop = new ArrayList<>(processes);
                h = helper;
            }
            if (h != null) {
                h.destroyForcibly();
                try {
                    h.waitFor(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            toStop.forEach(StandaloneCluster::terminate);
        }
    }

    /** {@code b}'s TaskManager size, {@value TaskManagerMemory#AUTO} resolved on this host. */
    private static String taskManagerMemory(Builder b, int jobManagers) {
        if (!TaskManagerMemory.AUTO.equals(b.taskManagerMemory)) {
            return b.taskManagerMemory;
        }
        OptionalLong host = TaskManagerMemory.hostBytes();
        if (host.isEmpty()) {
            return TaskManagerMemory.FALLBACK;
        }
        MemorySize each =
                TaskManagerMemory.auto(
                        host.getAsLong(),
                        b.taskManagers,
                        jobManagers,
                        MemorySize.parse(b.jobManagerMemory).getBytes(),
                        b.ha && b.zooKeeperQuorum == null);
        return each.getMebiBytes() + "m";
    }

    /** Settings of a cluster to start. */
    public static final class Builder {
        private final Path dir;
        private final Path lib;
        private Path baseConf;
        private int taskManagers = 1;
        private int slots = 2;
        private int restPort;
        private String taskManagerMemory = "3g";
        private String jobManagerMemory = "1g";
        private final Map<String, String> settings = new java.util.LinkedHashMap<>();
        private Duration startTimeout = Duration.ofMinutes(2);
        private PrintStream out = System.out;
        private String bind = "127.0.0.1";
        private Integer jobManagers;
        private String joinJobManager;
        private boolean ha;
        private String zooKeeperQuorum;
        private String clusterId = HighAvailability.DEFAULT_CLUSTER_ID;
        private String haStorageDir;
        private String prometheusPorts = DEFAULT_PROMETHEUS_PORTS;

        private Builder(Path dir, Path lib) {
            this.dir = dir;
            this.lib = lib;
        }

        /**
         * The directory whose {@code config.yaml} and {@code log4j2.properties} the cluster starts
         * from.
         */
        public Builder baseConfiguration(Path confDir) {
            this.baseConf = confDir;
            return this;
        }

        public Builder taskManagers(int n) {
            if (n < 0) {
                throw new IllegalArgumentException("--taskmanagers must be at least 0, got " + n);
            }
            this.taskManagers = n;
            return this;
        }

        /**
         * The address every process of this host binds to and advertises (default {@code
         * 127.0.0.1}); on several hosts, each host's own address.
         */
        public Builder bind(String address) {
            try {
                InetAddress.getByName(address);
            } catch (java.net.UnknownHostException e) {
                throw new IllegalArgumentException("--bind " + address + " is no address here");
            }
            this.bind = address;
            return this;
        }

        /**
         * JobManager processes: 1 by default, 2 (a leader and a standby) with high availability, 0
         * on a host of TaskManagers only.
         */
        public Builder jobManagers(int n) {
            if (n < 0 || n > 3) {
                throw new IllegalArgumentException("--jobmanagers must be 0..3, got " + n);
            }
            this.jobManagers = n;
            return this;
        }

        /** {@code host:port} of the JobManager's RPC endpoint that TaskManagers join. */
        public Builder joinJobManager(String hostPort) {
            int colon = hostPort.lastIndexOf(':');
            if (colon <= 0 || !hostPort.substring(colon + 1).matches("\\d{1,5}")) {
                throw new IllegalArgumentException(
                        "--jobmanager must be host:port (the JobManager's RPC port), got "
                                + hostPort);
            }
            this.joinJobManager = hostPort;
            return this;
        }

        /**
         * High availability through ZooKeeper: {@code quorum} is the ensemble to use ({@code
         * host:port,...}), or null to start a ZooKeeper server of one peer on this host.
         */
        public Builder highAvailability(String quorum) {
            this.ha = true;
            this.zooKeeperQuorum = quorum;
            return this;
        }

        /**
         * {@code high-availability.cluster-id} (default {@value
         * HighAvailability#DEFAULT_CLUSTER_ID}).
         */
        public Builder haClusterId(String id) {
            this.clusterId = id;
            return this;
        }

        /**
         * Where JobManagers keep the job graphs and checkpoint metadata of a highly available
         * cluster: a URI that every JobManager host reaches (default {@code <dir>/ha}).
         */
        public Builder haStorageDir(String uri) {
            this.haStorageDir = uri;
            return this;
        }

        /**
         * The ports the processes' Prometheus endpoints take, one each, as {@code 9249} or {@code
         * 9249-9268} (default {@value StandaloneCluster#DEFAULT_PROMETHEUS_PORTS}).
         */
        public Builder prometheusPorts(String ports) {
            if (!ports.matches("\\d{1,5}(-\\d{1,5})?")) {
                throw new IllegalArgumentException(
                        "--prometheus-ports must be PORT or FROM-TO, got " + ports);
            }
            this.prometheusPorts = ports;
            return this;
        }

        public Builder slots(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("--slots must be at least 1, got " + n);
            }
            this.slots = n;
            return this;
        }

        /** REST and Web UI port; 0 = 8081 when free, else any free port. */
        public Builder restPort(int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("--rest-port must be 0..65535, got " + port);
            }
            this.restPort = port;
            return this;
        }

        /**
         * {@code taskmanager.memory.process.size} of each TaskManager, e.g. {@code 3g}, or {@value
         * TaskManagerMemory#AUTO} ({@link TaskManagerMemory}).
         */
        public Builder taskManagerMemory(String size) {
            this.taskManagerMemory =
                    TaskManagerMemory.AUTO.equals(size)
                            ? size
                            : MemorySize.parse(size).toString().replace(" ", "");
            return this;
        }

        /** Any further Flink setting of the cluster (overrides the base configuration). */
        public Builder set(String key, String value) {
            settings.put(key, value);
            return this;
        }

        public Builder startTimeout(Duration timeout) {
            this.startTimeout = timeout;
            return this;
        }

        public Builder out(PrintStream out) {
            this.out = out;
            return this;
        }

        public StandaloneCluster build() {
            return new StandaloneCluster(this);
        }
    }
}

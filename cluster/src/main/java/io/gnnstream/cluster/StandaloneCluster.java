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
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.runtime.clusterframework.BootstrapTools;

/**
 * A Flink standalone session cluster of separate JVM processes on loopback: one JobManager ({@code
 * StandaloneSessionClusterEntrypoint}) and N TaskManagers ({@code TaskManagerRunner}), run from the
 * jars of {@code lib} as Flink's own {@code start-cluster.sh} runs them. The cluster directory
 * holds the generated {@code conf/} (the base configuration with loopback addresses, ports, slots,
 * memory and directories set), {@code log/}, {@code tmp/}, the default checkpoint and savepoint
 * directories, and {@link ClusterState} with the processes' PIDs.
 *
 * <p>Memory flags come from Flink's {@code BashJavaUtils}, as in the distribution's scripts. The
 * processes run in a session of their own ({@code setsid}), so a Ctrl-C in the terminal that
 * started them does not reach them once {@link #start} has returned; while it runs, a shutdown hook
 * stops whatever it started, so an interrupted start leaves no process behind. {@link #stop} ends
 * them by PID: SIGTERM, then SIGKILL after a grace period.
 */
public final class StandaloneCluster {

    private static final String JOB_MANAGER_MAIN =
            "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint";
    private static final String TASK_MANAGER_MAIN =
            "org.apache.flink.runtime.taskexecutor.TaskManagerRunner";
    private static final String BASH_JAVA_UTILS =
            "org.apache.flink.runtime.util.bash.BashJavaUtils";
    private static final String RESULT_PREFIX = "BASH_JAVA_UTILS_EXEC_RESULT:";
    private static final Duration STOP_GRACE = Duration.ofSeconds(15);

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

    private StandaloneCluster(Builder b) {
        this.dir = b.dir.toAbsolutePath().normalize();
        this.lib = b.lib.toAbsolutePath().normalize();
        this.baseConf = b.baseConf == null ? null : b.baseConf.toAbsolutePath().normalize();
        this.taskManagers = b.taskManagers;
        this.slots = b.slots;
        this.restPort = b.restPort;
        this.taskManagerMemory = b.taskManagerMemory;
        this.jobManagerMemory = b.jobManagerMemory;
        this.settings = Map.copyOf(b.settings);
        this.startTimeout = b.startTimeout;
        this.out = b.out;
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
                            + " is running (Web UI http://"
                            + existing.get().restAddress()
                            + "); stop it first with `cluster stop --dir "
                            + dir
                            + "`");
        }
        if (!Files.isDirectory(lib)
                || jars().stream()
                        .noneMatch(j -> j.getFileName().toString().startsWith("flink-runtime-"))) {
            throw new ClusterException(
                    "no Flink jars in " + lib + " (built by `mvn package` of the cluster module)");
        }
        Configuration clusterConf = writeConfiguration();
        Path conf = dir.resolve("conf");
        ClusterState partial =
                new ClusterState("127.0.0.1", clusterConf.get(RestOptions.PORT), -1, List.of());
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
            Process jm =
                    launched.start(
                            launch(
                                    conf,
                                    clusterConf,
                                    "jobmanager",
                                    0,
                                    JOB_MANAGER_MAIN,
                                    "GET_JM_RESOURCE_PARAMS",
                                    "env.java.opts.jobmanager",
                                    launched),
                            out);
            partial = new ClusterState(partial.restHost(), partial.restPort(), jm.pid(), List.of());
            partial.write(dir);
            List<Long> tmPids = new ArrayList<>();
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
                                        launched),
                                out);
                tmPids.add(tm.pid());
                partial =
                        new ClusterState(partial.restHost(), partial.restPort(), jm.pid(), tmPids);
                partial.write(dir);
            }
            awaitTaskManagers(partial, launched);
            up = true;
            return partial;
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
        List<ProcessHandle> running = new ArrayList<>();
        List<Long> taskManagersFirst = new ArrayList<>(state.get().taskManagerPids());
        taskManagersFirst.add(state.get().jobManagerPid());
        for (long pid : taskManagersFirst) {
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
        }
        ClusterState.delete(abs);
        return running.stream().map(ProcessHandle::pid).collect(Collectors.toList());
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

    /**
     * Writes {@code dir/conf}: the base configuration plus the cluster's own addresses, sizes and
     * directories; returns what it wrote.
     */
    private Configuration writeConfiguration() throws IOException {
        Path conf = dir.resolve("conf");
        Files.createDirectories(conf);
        Files.createDirectories(dir.resolve("log"));
        Files.createDirectories(dir.resolve("tmp"));
        Configuration c =
                baseConf != null && Files.isRegularFile(baseConf.resolve("config.yaml"))
                        ? GlobalConfiguration.loadConfiguration(baseConf.toString())
                        : new Configuration();
        c.setString("jobmanager.rpc.address", "127.0.0.1");
        c.setString("jobmanager.bind-host", "127.0.0.1");
        c.setString("jobmanager.rpc.port", Integer.toString(freePort(6123)));
        c.setString("rest.address", "127.0.0.1");
        c.setString("rest.bind-address", "127.0.0.1");
        c.setString("rest.port", Integer.toString(restPort > 0 ? restPort : freePort(8081)));
        c.setString("taskmanager.host", "127.0.0.1");
        c.setString("taskmanager.bind-host", "127.0.0.1");
        c.setString("taskmanager.numberOfTaskSlots", Integer.toString(slots));
        c.setString("taskmanager.memory.process.size", taskManagerMemory);
        c.setString("jobmanager.memory.process.size", jobManagerMemory);
        c.setString("io.tmp.dirs", dir.resolve("tmp").toString());
        c.setString("web.tmpdir", dir.resolve("tmp").resolve("web").toString());
        c.setString("state.checkpoints.dir", dir.resolve("checkpoints").toUri().toString());
        c.setString("state.savepoints.dir", dir.resolve("savepoints").toUri().toString());
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

    /** The process of one role, ready to start. */
    private ProcessBuilder launch(
            Path conf,
            Configuration c,
            String role,
            int index,
            String mainClass,
            String memoryParams,
            String roleOptsKey,
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

    /** The preferred port when it is free on loopback, else any free one. */
    static int freePort(int preferred) throws IOException {
        try (ServerSocket s = new ServerSocket(preferred, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException busy) {
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
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
            if (n < 1) {
                throw new IllegalArgumentException("--taskmanagers must be at least 1, got " + n);
            }
            this.taskManagers = n;
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

        /** {@code taskmanager.memory.process.size} of each TaskManager, e.g. {@code 3g}. */
        public Builder taskManagerMemory(String size) {
            this.taskManagerMemory =
                    org.apache.flink.configuration.MemorySize.parse(size)
                            .toString()
                            .replace(" ", "");
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

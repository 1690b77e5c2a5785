package io.gnnstream.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gnnstream.cli.testing.MetricsTopic;
import io.gnnstream.cluster.ClusterRest;
import io.gnnstream.cluster.ClusterState;
import io.gnnstream.cluster.StandaloneCluster;
import io.gnnstream.connectors.KafkaTopics;
import io.gnnstream.tools.DatasetInfo;
import io.gnnstream.tools.DatasetLoader;
import io.gnnstream.tools.Directories;
import io.gnnstream.tools.LocalKafkaBroker;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * The cluster path as a user types it: {@code cluster start} (a JobManager and two TaskManager
 * processes from the build's jars), {@code submit}, {@code stop} with a savepoint, more edges
 * produced while the job is stopped, {@code resume} at other parallelisms and trainer counts, and a
 * TaskManager killed with SIGKILL mid-training; all against the real local broker. Every process
 * started is stopped by PID at the end, also when a test fails.
 */
@Timeout(value = 15, unit = TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterITCase {

    private static final Path WORK = Path.of("target", "it-cluster").toAbsolutePath();
    private static final Path CLUSTER = WORK.resolve("cluster");
    private static final Path CORA = Path.of("..", "data", "cora");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long MAX_STEPS = 400;
    private static final long KILL_MAX_STEPS = 1200;

    private static LocalKafkaBroker broker;
    private static DatasetInfo cora;
    private static ClusterState cluster;

    @BeforeAll
    static void startBrokerAndCluster() throws Exception {
        StandaloneCluster.stop(CLUSTER);
        Directories.deleteRecursively(WORK);
        Files.createDirectories(WORK);
        broker = LocalKafkaBroker.builder().workDir(WORK.resolve("kafka")).port(0).start();
        cora = DatasetInfo.scan(CORA);
        succeeds(
                cli(
                        "cluster",
                        "start",
                        "--dir",
                        CLUSTER.toString(),
                        "--taskmanagers",
                        "2",
                        "--slots",
                        "2",
                        // About 1.4 GiB of heap each: after the kill, one TaskManager runs the
                        // whole job (both ranks, the GraphStores, every Kafka client), which needs
                        // more than the ~600 MiB heap of 2500m.
                        "--taskmanager-memory",
                        "3500m"));
        cluster = ClusterState.read(CLUSTER).orElseThrow();
        assertEquals(3, cluster.pids().size());
        succeeds(cli("cluster", "status", "--dir", CLUSTER.toString()));
    }

    @AfterAll
    static void stopEverything() throws Exception {
        try {
            if (cluster != null) {
                cli("cluster", "stop", "--dir", CLUSTER.toString());
                for (long pid : cluster.pids()) {
                    assertFalse(
                            ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false),
                            "process " + pid + " left");
                }
            }
        } finally {
            StandaloneCluster.stop(CLUSTER);
            if (broker != null) {
                broker.close();
            }
        }
    }

    /**
     * {@code submit --follow} of a job whose trainer fails at its third step at every attempt,
     * under the default restart strategy (20 restarts with growing delays): the command cancels the
     * job at the third failure in a row with that cause and exits 1 with the cause in one line,
     * within 2 minutes.
     */
    @Test
    @Order(0)
    void submitFollowEndsAFailureThatRepeatsWithItsCause() throws Exception {
        String prefix = "repeating";
        createTopicsAndLoad(prefix, CORA);
        List<String> args =
                new ArrayList<>(Arrays.asList(submitArgs(prefix, "1", "1", cora.edges())));
        args.addAll(List.of("--follow", "--timeout", "5m", "--inject-fault", "trainer:0:3:always"));
        // A checkpoint completed between two failures is progress that keeps Flink's patience: on
        // a loaded machine a restore outlasts a 2 s interval before the trainer fails again.
        args.set(args.indexOf("--checkpoint-interval") + 1, "30s");
        long started = System.nanoTime();
        try {
            Run run = cli(args.toArray(new String[0]));
            long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
            System.out.println("ClusterITCase: submit --follow gave up after " + seconds + " s");
            assertEquals(1, run.code, run.err);
            assertTrue(
                    run.err.contains(
                            "error: training job FAILED 3 times in a row with the same cause"
                                    + " (cancelled): InjectedFailure: trainer subtask 0 fails at"
                                    + " event 3 (injected at every attempt)"),
                    run.err);
            assertTrue(seconds < 120, "took " + seconds + " s");
            // The REST endpoint's job overview is cached for a few seconds.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            while (!rest().jobs().stream().allMatch(j -> j.status() == JobStatus.CANCELED)
                    && System.nanoTime() < deadline) {
                Thread.sleep(500);
            }
            assertTrue(
                    rest().jobs().stream().allMatch(j -> j.status() == JobStatus.CANCELED),
                    "the job is cancelled: " + rest().jobs());
        } finally {
            cancelRunningJobs();
        }
    }

    /**
     * Submit at parallelism 2 / trainers 2, stop with a savepoint, produce the held-back edges,
     * resume at 1 / 1, stop again, resume at 3 / 2 and train to the end: the step and the loss
     * continue, the graph holds every produced vertex and edge exactly once, the replicas agree.
     */
    @Test
    @Order(1)
    void stopsWithASavepointAndResumesAtOtherParallelisms() throws Exception {
        String prefix = "rescale";
        Path first = WORK.resolve("cora-first");
        Path rest = WORK.resolve("cora-rest");
        long firstEdges = splitEdges(first, rest, 0.9);
        createTopicsAndLoad(prefix, first);

        try (MetricsTopic metrics = new MetricsTopic(broker.bootstrapServers(), prefix)) {
            succeeds(cli(submitArgs(prefix, "2", "2", firstEdges)));
            JsonNode before =
                    metrics.await(
                            l -> l.path("step").asLong() >= 120 && isTraining(l),
                            Duration.ofMinutes(4));
            assertTrue(before.path("replicas_identical").asBoolean(), before.toString());
            assertPrometheusReportsTraining();

            JobID firstJob = runningJob();
            Path savepoint1 = stop("rescale-1");
            assertFalse(failedOver(firstJob), "the job failed over before its savepoint");
            long stoppedAt =
                    metrics.drain().stream()
                            .mapToLong(l -> l.path("step").asLong())
                            .max()
                            .orElseThrow();
            new DatasetLoader(broker.bootstrapServers())
                    .progress(false)
                    .load(rest, prefix + ".edges", prefix + ".nodes");

            succeeds(
                    cli(
                            "resume",
                            "--cluster-dir",
                            CLUSTER.toString(),
                            "--from-savepoint",
                            savepoint1.toString(),
                            "--parallelism",
                            "1",
                            "--trainers",
                            "1"));
            JsonNode resumed = metrics.await(ClusterITCase::isTraining, Duration.ofMinutes(3));
            String context = "stopped at step " + stoppedAt + ", resumed with " + resumed;
            assertTrue(
                    resumed.path("step").asLong() <= stoppedAt + 20,
                    "the step continues: " + context);
            assertTrue(
                    resumed.path("step").asLong() >= before.path("step").asLong(),
                    "the step continues: " + context);
            assertTrue(
                    resumed.path("loss").asDouble() < 1.2,
                    "the trained model came back: " + context);
            JsonNode complete =
                    metrics.await(
                            l -> l.path("edges_ingested").asLong() >= cora.edges(),
                            Duration.ofMinutes(2));
            assertEquals(
                    cora.edges(),
                    complete.path("edges_ingested").asLong(),
                    "every edge once: " + complete);
            assertEquals(cora.nodes(), complete.path("vertices").asLong(), complete.toString());

            Path savepoint2 = stop("rescale-2");
            long stoppedAgain =
                    metrics.drain().stream()
                            .mapToLong(l -> l.path("step").asLong())
                            .max()
                            .orElseThrow();
            // --follow: the command prints progress and cancels the job after its final line.
            succeeds(
                    cli(
                            "resume",
                            "--cluster-dir",
                            CLUSTER.toString(),
                            "--from-savepoint",
                            savepoint2.toString(),
                            "--parallelism",
                            "3",
                            "--trainers",
                            "2",
                            "--follow",
                            "--timeout",
                            "5m"));
            JsonNode again = metrics.await(ClusterITCase::isTraining, Duration.ofMinutes(1));
            assertTrue(
                    again.path("step").asLong() > resumed.path("step").asLong()
                            && again.path("step").asLong() <= stoppedAgain + 20,
                    "the step continues: " + again);
            JsonNode last =
                    metrics.await(l -> l.path("final").asBoolean(false), Duration.ofMinutes(1));
            for (JsonNode line : metrics.seen()) {
                if (line.has("replicas_identical")) {
                    assertTrue(
                            line.path("replicas_identical").asBoolean(),
                            "replicas differ: " + line);
                }
            }
            JsonNode counts = lastTrainingLine(metrics.seen());
            assertEquals(MAX_STEPS, last.path("step").asLong());
            assertEquals(cora.edges(), counts.path("edges_ingested").asLong(), counts.toString());
            assertEquals(cora.nodes(), counts.path("vertices").asLong(), counts.toString());
            assertTrue(last.path("test_acc").asDouble() >= 0.78, "test accuracy: " + last);
        } finally {
            cancelRunningJobs();
        }
    }

    /**
     * SIGKILL of a TaskManager mid-training: the job restarts from its last checkpoint on the
     * remaining TaskManager's slots and trains to the end with the same graph and agreeing
     * replicas.
     */
    @Test
    @Order(2)
    void survivesAKilledTaskManager() throws Exception {
        String prefix = "kill";
        cancelRunningJobs(); // the job gets every slot left after the kill
        createTopicsAndLoad(prefix, CORA);
        try (MetricsTopic metrics = new MetricsTopic(broker.bootstrapServers(), prefix)) {
            // Submitted as a stock `flink run -d` would: Flink's CliFrontend with the job jar and
            // its main class.
            String[] submit = submitArgs(prefix, "2", "2", cora.edges());
            // Long enough that the kill comes mid-training.
            submit[Arrays.asList(submit).indexOf("--max-steps") + 1] =
                    Long.toString(KILL_MAX_STEPS);
            assertEquals(0, flinkRun(Arrays.copyOfRange(submit, 3, submit.length)));
            metrics.await(
                    l -> l.path("step").asLong() >= 100 && isTraining(l), Duration.ofMinutes(4));
            JobID job = runningJob();
            awaitCheckpoint(job);
            // flink-conf spreads slots over the TaskManagers, so the victim runs part of the job.
            for (ClusterRest.TaskManagerInfo tm : rest().taskManagers()) {
                assertTrue(
                        tm.freeSlots() < tm.slots(),
                        "a TaskManager without tasks: " + rest().taskManagers());
            }
            long victim = cluster.taskManagerPids().get(1);
            double elapsedBeforeKill =
                    metrics.await(ClusterITCase::isTraining, Duration.ofMinutes(1))
                            .path("elapsed_s")
                            .asDouble();
            ProcessHandle.of(victim).orElseThrow().destroyForcibly();
            JsonNode restarted;
            try {
                restarted =
                        metrics.await(
                                l ->
                                        isTraining(l)
                                                && l.path("elapsed_s").asDouble()
                                                        < elapsedBeforeKill,
                                Duration.ofMinutes(4));
            } catch (AssertionError e) {
                throw new AssertionError(
                        e.getMessage()
                                + "; threads of the surviving TaskManager in "
                                + threadDump(cluster.taskManagerPids().get(0)),
                        e);
            }
            JsonNode last =
                    metrics.await(l -> l.path("final").asBoolean(false), Duration.ofMinutes(6));
            JsonNode counts = lastTrainingLine(metrics.seen());
            assertEquals(KILL_MAX_STEPS, last.path("step").asLong());
            assertTrue(
                    restarted.path("step").asLong() <= counts.path("step").asLong(),
                    restarted.toString());
            assertEquals(cora.edges(), counts.path("edges_ingested").asLong(), counts.toString());
            assertEquals(cora.nodes(), counts.path("vertices").asLong(), counts.toString());
            assertTrue(last.path("replicas_identical").asBoolean(), last.toString());
            assertTrue(last.path("test_acc").asDouble() >= 0.78, "test accuracy: " + last);
        } finally {
            cancelRunningJobs();
        }
    }

    /**
     * Ending {@code cluster start} while it waits for its processes (Ctrl-C, or SIGTERM as here:
     * both run the JVM's shutdown hooks) leaves none behind.
     */
    @Test
    @Order(3)
    void anInterruptedStartLeavesNoProcess() throws Exception {
        Path dir = WORK.resolve("interrupted");
        List<String> cmd =
                List.of(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Dgnnstream.home=" + ClusterCommand.home(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        GnnstreamCli.class.getName(),
                        "cluster",
                        "start",
                        "--dir",
                        dir.toString(),
                        "--taskmanagers",
                        "2");
        Process starter =
                new ProcessBuilder(cmd)
                        .redirectErrorStream(true)
                        .redirectOutput(WORK.resolve("interrupted-start.out").toFile())
                        .start();
        try {
            // Interrupt as soon as the JobManager runs: two TaskManagers take seconds more to start
            // and register.
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
            while (ClusterState.read(dir).isEmpty()) {
                assertTrue(
                        System.nanoTime() < deadline && starter.isAlive(),
                        "the start did not get to its JobManager");
                Thread.sleep(20);
            }
            // SIGTERM runs the JVM's shutdown hooks as Ctrl-C's SIGINT does; SIGINT itself is
            // ignored by
            // processes that a non-interactive shell started in the background (as CI may start
            // this test).
            starter.destroy();
            assertTrue(starter.waitFor(1, TimeUnit.MINUTES), "the starter did not exit on SIGTERM");
            String marker = dir.toAbsolutePath().normalize().toString();
            List<ProcessHandle> left =
                    ProcessHandle.allProcesses()
                            .filter(
                                    h ->
                                            h.info()
                                                    .commandLine()
                                                    .map(c -> c.contains(marker))
                                                    .orElse(false))
                            .collect(Collectors.toList());
            assertTrue(
                    left.isEmpty(),
                    "processes left: "
                            + left.stream()
                                    .map(h -> h.info().commandLine().orElse("?"))
                                    .collect(Collectors.toList()));
            assertTrue(ClusterState.read(dir).isEmpty(), "no cluster recorded");
        } finally {
            starter.destroyForcibly();
            StandaloneCluster.stop(dir);
        }
    }

    private static String[] submitArgs(
            String prefix, String parallelism, String trainers, long minEdges) {
        return new String[] {
            "submit",
            "--cluster-dir",
            CLUSTER.toString(),
            "--bootstrap-servers",
            broker.bootstrapServers(),
            "--topic-prefix",
            prefix,
            "--num-features",
            "1433",
            "--num-classes",
            "7",
            "--parallelism",
            parallelism,
            "--trainers",
            trainers,
            "--max-steps",
            Long.toString(MAX_STEPS),
            "--eval-every",
            "200",
            "--log-every",
            "10",
            "--min-vertices",
            Long.toString(cora.nodes()),
            "--min-edges",
            Long.toString(minEdges),
            "--checkpoint-interval",
            "2s",
            "--checkpoint-dir",
            WORK.resolve("checkpoints-" + prefix).toUri().toString()
        };
    }

    /**
     * Flink's own command line, {@code flink run -d -m host:port <job jar> <args>}, in a process of
     * its own.
     */
    private static int flinkRun(String... jobArgs) throws Exception {
        Path jar;
        try (Stream<Path> files =
                Files.list(ClusterCommand.home().resolve("jobs").resolve("target"))) {
            jar =
                    files.filter(p -> p.getFileName().toString().endsWith("-job.jar"))
                            .findFirst()
                            .orElseThrow();
        }
        List<String> cmd =
                new ArrayList<>(
                        List.of(
                                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                                "--add-opens=java.base/java.util=ALL-UNNAMED",
                                "--add-opens=java.base/java.lang=ALL-UNNAMED",
                                "-cp",
                                ClusterCommand.flinkLib() + "/*",
                                "org.apache.flink.client.cli.CliFrontend",
                                "run",
                                "-d",
                                "-m",
                                cluster.restAddress(),
                                jar.toString()));
        cmd.addAll(Arrays.asList(jobArgs));
        ProcessBuilder pb =
                new ProcessBuilder(cmd)
                        .redirectErrorStream(true)
                        .redirectOutput(WORK.resolve("flink-run.out").toFile());
        pb.environment().put("FLINK_CONF_DIR", CLUSTER.resolve("conf").toString());
        Process p = pb.start();
        try {
            assertTrue(p.waitFor(3, TimeUnit.MINUTES), "flink run did not return");
            return p.exitValue();
        } finally {
            p.destroyForcibly();
        }
    }

    /**
     * Writes the threads of process {@code pid} ({@code jstack}) to a file under {@link #WORK}; its
     * path.
     */
    private static Path threadDump(long pid) throws Exception {
        Path file = WORK.resolve("threads-" + pid + ".txt");
        Process p =
                new ProcessBuilder(
                                Path.of(System.getProperty("java.home"), "bin", "jstack")
                                        .toString(),
                                Long.toString(pid))
                        .redirectErrorStream(true)
                        .redirectOutput(file.toFile())
                        .start();
        try {
            p.waitFor(1, TimeUnit.MINUTES);
        } finally {
            p.destroyForcibly();
        }
        return file;
    }

    private static JsonNode lastTrainingLine(List<JsonNode> lines) {
        for (int i = lines.size() - 1; i >= 0; i--) {
            if (isTraining(lines.get(i))) {
                return lines.get(i);
            }
        }
        throw new AssertionError("no training line");
    }

    private static boolean isTraining(JsonNode line) {
        return line.path("batches_per_s").asDouble() > 0;
    }

    /** {@code stop} into a directory of its own; the savepoint it wrote. */
    private static Path stop(String name) throws IOException {
        Path dir = WORK.resolve("savepoints-" + name);
        succeeds(
                cli(
                        "stop",
                        "--cluster-dir",
                        CLUSTER.toString(),
                        "--savepoint-dir",
                        dir.toString()));
        try (Stream<Path> files = Files.list(dir)) {
            Path savepoint =
                    files.filter(p -> p.getFileName().toString().startsWith("savepoint-"))
                            .findFirst()
                            .orElseThrow();
            assertTrue(
                    Files.isRegularFile(savepoint.resolve(SavepointOptions.FILE)),
                    "options kept with " + savepoint);
            return savepoint;
        }
    }

    /**
     * A TaskManager's Prometheus endpoint (one of the cluster's ports) serves the job's training
     * gauges: the loss and the step.
     */
    private static void assertPrometheusReportsTraining() throws Exception {
        java.net.http.HttpClient http =
                java.net.http.HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        List<String> seen = new ArrayList<>();
        for (int port = 9249; port <= 9268; port++) {
            String body;
            try {
                body =
                        http.send(
                                        java.net.http.HttpRequest.newBuilder(
                                                        java.net.URI.create(
                                                                "http://127.0.0.1:"
                                                                        + port
                                                                        + "/metrics"))
                                                .timeout(Duration.ofSeconds(10))
                                                .build(),
                                        java.net.http.HttpResponse.BodyHandlers.ofString())
                                .body();
            } catch (IOException closed) {
                continue;
            }
            seen.add(Integer.toString(port));
            List<String> training =
                    body.lines()
                            .filter(
                                    l ->
                                            l.startsWith(
                                                    "flink_taskmanager_job_task_operator_training_"))
                            .collect(Collectors.toList());
            if (training.stream().anyMatch(l -> l.contains("training_loss{"))) {
                long step =
                        training.stream()
                                .filter(l -> l.contains("training_step{"))
                                .mapToLong(
                                        l ->
                                                (long)
                                                        Double.parseDouble(
                                                                l.substring(
                                                                        l.lastIndexOf(' ') + 1)))
                                .max()
                                .orElseThrow();
                assertTrue(step > 0, "training step reported: " + training);
                return;
            }
        }
        throw new AssertionError("no Prometheus endpoint reports training_loss; endpoints " + seen);
    }

    /**
     * Whether {@code job} restarted after a failure (Flink's exception history of the job is not
     * empty).
     */
    private static boolean failedOver(JobID job) throws Exception {
        java.net.http.HttpResponse<String> response =
                java.net.http.HttpClient.newHttpClient()
                        .send(
                                java.net.http.HttpRequest.newBuilder(
                                                java.net.URI.create(
                                                        "http://"
                                                                + cluster.restAddress()
                                                                + "/jobs/"
                                                                + job
                                                                + "/exceptions"))
                                        .build(),
                                java.net.http.HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response.body());
        boolean failed =
                JSON.readTree(response.body()).path("exceptionHistory").path("entries").size() > 0;
        if (failed) {
            System.err.println(
                    "job " + job + " failed over before its savepoint: " + response.body());
        }
        return failed;
    }

    private static JobID runningJob() throws IOException {
        return rest().jobs().stream()
                .filter(j -> j.status() == JobStatus.RUNNING)
                .findFirst()
                .orElseThrow()
                .id();
    }

    private static void awaitCheckpoint(JobID job) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        while (rest().latestCheckpoint(job).isEmpty()) {
            assertTrue(System.nanoTime() < deadline, "no checkpoint completed");
            Thread.sleep(500);
        }
    }

    private static void cancelRunningJobs() throws IOException {
        for (ClusterRest.JobInfo j : rest().jobs()) {
            if (!j.status().isGloballyTerminalState()) {
                rest().cancel(j.id(), Duration.ofMinutes(1));
            }
        }
    }

    private static ClusterRest rest() {
        return new ClusterRest(cluster.restHost(), cluster.restPort());
    }

    /** Runs a command in this JVM; its exit code and what it printed on stderr (also echoed). */
    private static Run cli(String... args) {
        StringWriter err = new StringWriter();
        PrintWriter tee =
                new PrintWriter(
                        new Writer() {
                            @Override
                            public void write(char[] buf, int off, int len) {
                                err.write(buf, off, len);
                                System.err.print(new String(buf, off, len));
                            }

                            @Override
                            public void flush() {
                                System.err.flush();
                            }

                            @Override
                            public void close() {}
                        },
                        true);
        int code = GnnstreamCli.commandLine().setErr(tee).execute(args);
        tee.flush();
        return new Run(String.join(" ", args), code, err.toString());
    }

    private static void succeeds(Run run) {
        assertEquals(0, run.code, () -> "`" + run.command + "` failed: " + run.err);
    }

    private static final class Run {
        final String command;
        final int code;
        final String err;

        Run(String command, int code, String err) {
            this.command = command;
            this.code = code;
            this.err = err;
        }
    }

    private static void createTopicsAndLoad(String prefix, Path dataset) throws Exception {
        KafkaTopics.ensure(broker.bootstrapServers(), 2, prefix + ".edges", prefix + ".nodes");
        new DatasetLoader(broker.bootstrapServers())
                .progress(false)
                .load(dataset, prefix + ".edges", prefix + ".nodes");
    }

    /**
     * Copies Cora with the first {@code share} of its edges to {@code first} and the others (no
     * nodes) to {@code rest}.
     */
    private static long splitEdges(Path first, Path rest, double share) throws IOException {
        List<String> edges = Files.readAllLines(CORA.resolve("edges.csv"));
        int cut = (int) (edges.size() * share);
        Files.createDirectories(first);
        Files.createDirectories(rest);
        Files.copy(CORA.resolve("nodes.jsonl"), first.resolve("nodes.jsonl"));
        Files.write(first.resolve("edges.csv"), edges.subList(0, cut));
        Files.write(rest.resolve("nodes.jsonl"), List.of());
        Files.write(rest.resolve("edges.csv"), edges.subList(cut, edges.size()));
        return edges.subList(0, cut).stream().filter(l -> !l.isBlank()).count();
    }
}

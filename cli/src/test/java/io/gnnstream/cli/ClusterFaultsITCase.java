package io.gnnstream.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gnnstream.cli.testing.MetricsTopic;
import io.gnnstream.cluster.ClusterRest;
import io.gnnstream.cluster.ClusterState;
import io.gnnstream.cluster.HighAvailability;
import io.gnnstream.cluster.NetworkHosts;
import io.gnnstream.cluster.StandaloneCluster;
import io.gnnstream.connectors.KafkaTopics;
import io.gnnstream.connectors.NodeFormat;
import io.gnnstream.jobs.GraphOptions;
import io.gnnstream.jobs.RunOptions;
import io.gnnstream.jobs.TrainingJob;
import io.gnnstream.jobs.testing.GraphComparison;
import io.gnnstream.jobs.testing.ReferenceGraph;
import io.gnnstream.jobs.testing.StoredGraph;
import io.gnnstream.tools.DatasetInfo;
import io.gnnstream.tools.DatasetLoader;
import io.gnnstream.tools.Directories;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * Faults between hosts. Five network-namespace hosts ({@link NetworkHosts}): 1 runs ZooKeeper and a
 * JobManager, 2 a standby JobManager, 3 and 4 a TaskManager each, 5 the Kafka broker; this JVM
 * submits from the bridge's address, as a user's machine would, with {@code --zookeeper}. A
 * failure-free run gives the reference; each fault then hits a run of the same job mid-training:
 * every process of a TaskManager host killed (also once mid-ingest), a TaskManager frozen (SIGSTOP)
 * and a TaskManager host cut off for longer than the heartbeat timeout, the broker's host cut off
 * for 30 s, the leading JobManager killed. After each, training goes on, the final parameters equal
 * the reference's bit for bit (training waits for the whole graph, {@code --min-vertices/edges}),
 * every edge is ingested once, and the time from the fault to the first new step is reported
 * ({@code target/it-faults/recovery.json}). Needs root (namespaces); runs in the {@code faults}
 * suite ({@code mvn verify -Pfaults}, which {@code .ci/run} runs).
 */
@Tag("faults")
@Timeout(value = 70, unit = TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterFaultsITCase {

    private static final Path HOME = ClusterCommand.home();
    private static final Path WORK = Path.of("target", "it-faults").toAbsolutePath();
    private static final Path CORA = HOME.resolve("data").resolve("cora");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long MAX_STEPS = 1500;
    private static final long FAULT_AT_STEP = 100;

    /** Longer than heartbeat.timeout (15 s, flink-conf/config.yaml). */
    private static final Duration FREEZE = Duration.ofSeconds(25);

    private static final int ZK_JM = 1;
    private static final int STANDBY_JM = 2;
    private static final int[] TASK_MANAGERS = {3, 4};
    private static final int BROKER = 5;

    private static NetworkHosts hosts;
    private static Process broker;
    private static String bootstrap;
    private static String quorum;
    private static DatasetInfo cora;
    private static JsonNode reference;
    private static final ObjectNode RECOVERY = JSON.createObjectNode();
    private static final ExecutorService FOLLOWERS = Executors.newCachedThreadPool();

    @BeforeAll
    @Timeout(value = 12, unit = TimeUnit.MINUTES)
    static void startHostsClusterAndReference() throws Exception {
        assumeTrue(
                NetworkHosts.available(HOME),
                "network namespaces need root and ip(8): the fault suite does not run here");
        Directories.deleteRecursively(WORK);
        Files.createDirectories(WORK);
        hosts = NetworkHosts.create(HOME, 5);
        cora = DatasetInfo.scan(CORA);
        broker =
                new ProcessBuilder(
                                hosts.on(
                                        BROKER,
                                        cliCommand(
                                                "kafka",
                                                "--bind",
                                                hosts.address(BROKER),
                                                "--port",
                                                "9092",
                                                "--dir",
                                                WORK.resolve("kafka").toString())))
                        .redirectErrorStream(true)
                        .redirectOutput(WORK.resolve("kafka.out").toFile())
                        .start();
        bootstrap = hosts.address(BROKER) + ":9092";
        startOnHost(ZK_JM, "zk", "--ha", "--jobmanagers", "0", "--taskmanagers", "0");
        quorum = hosts.address(ZK_JM) + ":2181";
        startJobManager(ZK_JM);
        startJobManager(STANDBY_JM);
        for (int tm : TASK_MANAGERS) {
            startTaskManager(tm);
        }
        awaitBroker();
        KafkaTopics.ensure(bootstrap, 2, "faults.edges", "faults.nodes");
        new DatasetLoader(bootstrap).progress(false).load(CORA, "faults.edges", "faults.nodes");
        reference = run("reference", null).finalLine;
        System.out.println("ClusterFaultsITCase: reference " + reference);
    }

    @AfterAll
    static void stopEverything() throws Exception {
        try {
            Files.writeString(
                    WORK.resolve("recovery.json"),
                    JSON.writerWithDefaultPrettyPrinter().writeValueAsString(RECOVERY));
            System.out.println("ClusterFaultsITCase: recovery " + RECOVERY);
            FOLLOWERS.shutdownNow();
            if (hosts != null) {
                for (int h = 1; h <= 4; h++) {
                    for (String role : List.of("zk", "jm", "tm")) {
                        StandaloneCluster.stop(dir(h, role));
                    }
                }
                if (broker != null) {
                    broker.destroy();
                    broker.waitFor(30, TimeUnit.SECONDS);
                }
                for (int h = 1; h <= 5; h++) {
                    assertEquals(List.of(), hosts.pids(h), "processes left on host " + h);
                }
            }
        } finally {
            if (broker != null) {
                broker.destroyForcibly();
            }
            if (hosts != null) {
                hosts.close();
            }
        }
    }

    @Test
    @Order(1)
    void everyProcessOfATaskManagerHostKilledMidStep() throws Exception {
        assertRecovers("tm-host-killed", new Fault(() -> hosts.signal(TASK_MANAGERS[0], "KILL")));
    }

    @Test
    @Order(2)
    void aTaskManagerHostKilledMidIngest() throws Exception {
        ensureCluster();
        String name = "tm-host-killed-mid-ingest";
        List<String> edges = Files.readAllLines(CORA.resolve("edges.csv"));
        int firstPart = edges.size() * 2 / 5;
        int chunks = 6;
        KafkaTopics.ensure(bootstrap, 2, name + ".edges", name + ".nodes");
        Path first = WORK.resolve(name + "-0");
        Files.createDirectories(first);
        Files.copy(CORA.resolve("nodes.jsonl"), first.resolve("nodes.jsonl"));
        Files.write(first.resolve("edges.csv"), edges.subList(0, firstPart));
        new DatasetLoader(bootstrap).progress(false).load(first, name + ".edges", name + ".nodes");
        Fault fault =
                new Fault(
                        () -> {
                            awaitRunningJob();
                            int per = (edges.size() - firstPart + chunks - 1) / chunks;
                            for (int c = 0; c < chunks; c++) {
                                Path part = WORK.resolve(name + "-" + (c + 1));
                                Files.createDirectories(part);
                                Files.write(part.resolve("nodes.jsonl"), List.of());
                                int from = firstPart + c * per;
                                Files.write(
                                        part.resolve("edges.csv"),
                                        edges.subList(from, Math.min(edges.size(), from + per)));
                                new DatasetLoader(bootstrap)
                                        .progress(false)
                                        .load(part, name + ".edges", name + ".nodes");
                                if (c == 2) {
                                    hosts.signal(TASK_MANAGERS[1], "KILL");
                                }
                                Thread.sleep(1000);
                            }
                        });
        fault.beforeTraining = true;
        Run run = assertRecovers(name, fault);
        // The GraphStore's state, read out of a savepoint, equals the graph the stream describes.
        StoredGraph stored = StoredGraph.read(run.savepoint);
        Configuration conf = new Configuration();
        conf.set(RunOptions.PARALLELISM, 2);
        ReferenceGraph reference =
                new ReferenceGraph(
                        new NodeFormat(
                                cora.featureDim(),
                                cora.numClasses(),
                                conf.get(GraphOptions.NORMALIZE_FEATURES)
                                        .resolve(cora.signedRows() > 0)));
        for (String line : Files.readAllLines(CORA.resolve("nodes.jsonl"))) {
            reference.node(line);
        }
        for (String line : edges) {
            reference.edge(line);
        }
        assertEquals(
                List.of(),
                GraphComparison.differences(
                        stored, reference, TrainingJob.partitioner(conf), 2, false, 20),
                "the stored graph differs from the stream's");
        assertEquals(cora.nodes(), stored.records.size());
    }

    @Test
    @Order(3)
    void aFrozenTaskManager() throws Exception {
        assertRecovers(
                "tm-frozen",
                new Fault(() -> hosts.signal(TASK_MANAGERS[0], "STOP"))
                        .repairedAfter(FREEZE, () -> hosts.signal(TASK_MANAGERS[0], "CONT")));
    }

    @Test
    @Order(4)
    void aTaskManagerHostCutOff() throws Exception {
        assertRecovers(
                "tm-partitioned",
                new Fault(() -> hosts.link(TASK_MANAGERS[1], false))
                        .repairedAfter(FREEZE, () -> hosts.link(TASK_MANAGERS[1], true)));
    }

    @Test
    @Order(5)
    void theBrokersHostCutOffFor30Seconds() throws Exception {
        assertRecovers(
                "broker-partitioned",
                new Fault(() -> hosts.link(BROKER, false))
                        .repairedAfter(Duration.ofSeconds(30), () -> hosts.link(BROKER, true)));
    }

    @Test
    @Order(6)
    void theLeadingJobManagerKilled() throws Exception {
        assertRecovers(
                "leader-killed",
                new Fault(
                        () -> {
                            ClusterRest leader =
                                    HighAvailability.leaderRest(
                                            quorum,
                                            HighAvailability.DEFAULT_CLUSTER_ID,
                                            Duration.ofSeconds(30));
                            int host =
                                    leader.host().equals(hosts.address(ZK_JM)) ? ZK_JM : STANDBY_JM;
                            long pid =
                                    ClusterState.read(dir(host, "jm"))
                                            .orElseThrow()
                                            .jobManagerPid();
                            System.out.println(
                                    "ClusterFaultsITCase: killing the leader on host " + host);
                            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
                        }));
    }

    /**
     * Fifty consecutive checkpoints of the training job on these hosts complete after the first,
     * none fails or expires (1 s interval; the job trains on until it is cancelled).
     */
    @Test
    @Order(7)
    void fiftyConsecutiveCheckpointsComplete() throws Exception {
        ensureCluster();
        String prefix = "f-checkpoints";
        String[] args = withoutFollow(submitArgs(prefix, "faults"));
        List<String> submit = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--max-steps":
                    submit.add(args[i]);
                    submit.add("1000000");
                    i++;
                    continue;
                case "--checkpoint-interval":
                    submit.add(args[i]);
                    submit.add("1s");
                    i++;
                    continue;
                default:
                    submit.add(args[i]);
            }
        }
        assertEquals(0, GnnstreamCli.commandLine().execute(submit.toArray(new String[0])));
        ClusterRest rest =
                HighAvailability.leaderRest(
                        quorum, HighAvailability.DEFAULT_CLUSTER_ID, Duration.ofSeconds(30));
        var job =
                rest.jobs().stream()
                        .filter(j -> j.status() == JobStatus.RUNNING)
                        .findFirst()
                        .orElseThrow();
        try {
            // Checkpoints triggered while the job's tasks are still being deployed fail to
            // trigger; count from the first completed one.
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(6);
            JsonNode counts = checkpointCounts(rest, job.id());
            while (counts.path("completed").asLong() < 1) {
                assertTrue(System.nanoTime() < deadline, "no checkpoint completed: " + counts);
                Thread.sleep(500);
                counts = checkpointCounts(rest, job.id());
            }
            long failedBefore = counts.path("failed").asLong();
            long first = counts.path("completed").asLong();
            while (true) {
                counts = checkpointCounts(rest, job.id());
                assertEquals(
                        failedBefore,
                        counts.path("failed").asLong(),
                        "a checkpoint failed after the first completed one: " + counts);
                if (counts.path("completed").asLong() >= first + 50) {
                    break;
                }
                assertTrue(System.nanoTime() < deadline, "50 checkpoints took too long: " + counts);
                Thread.sleep(2000);
            }
            RECOVERY.putObject("checkpoints").setAll((ObjectNode) counts);
        } finally {
            rest.cancel(job.id(), Duration.ofMinutes(1));
        }
    }

    private static JsonNode checkpointCounts(
            ClusterRest rest, org.apache.flink.api.common.JobID job) throws Exception {
        var response =
                java.net.http.HttpClient.newHttpClient()
                        .send(
                                java.net.http.HttpRequest.newBuilder(
                                                java.net.URI.create(
                                                        rest.webUi()
                                                                + "/jobs/"
                                                                + job
                                                                + "/checkpoints"))
                                        .build(),
                                java.net.http.HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response.body());
        return JSON.readTree(response.body()).path("counts");
    }

    /** Runs the job with {@code fault}; it recovers to the reference's parameters. */
    private static Run assertRecovers(String name, Fault fault) throws Exception {
        ensureCluster();
        Run run = run(name, fault);
        JsonNode last = run.finalLine;
        assertTrue(last.path("replicas_identical").asBoolean(), last.toString());
        assertEquals(MAX_STEPS, last.path("step").asLong(), last.toString());
        assertEquals(
                reference.path("checksum").asText(),
                last.path("checksum").asText(),
                name + ": the final parameters differ from the failure-free run's");
        assertEquals(cora.edges(), run.edgesIngested, name + ": every edge once");
        assertEquals(cora.nodes(), run.vertices, name + ": every vertex");
        ObjectNode r = RECOVERY.putObject(name);
        r.put("recovery_s", run.recoverySeconds);
        r.put("step_before", run.stepBefore);
        r.put("first_new_step", run.firstNewStep);
        System.out.println("ClusterFaultsITCase: " + name + " recovered " + r);
        return run;
    }

    /** One job, followed by {@code submit --follow}; {@code fault} (or none) hits it. */
    private static Run run(String name, Fault fault) throws Exception {
        String prefix = "f-" + name;
        try (MetricsTopic metrics = new MetricsTopic(bootstrap, prefix)) {
            boolean ingest = fault != null && fault.beforeTraining;
            // A run whose graph is compared afterwards ends with `stop` (a savepoint); the others
            // with `submit --follow`, which cancels the job after its final line.
            String[] args = submitArgs(prefix, ingest ? name : "faults");
            Future<Integer> follow =
                    FOLLOWERS.submit(
                            () ->
                                    GnnstreamCli.commandLine()
                                            .execute(ingest ? withoutFollow(args) : args));
            Run run = new Run();
            if (fault != null) {
                long stepBefore = 0;
                if (!fault.beforeTraining) {
                    stepBefore =
                            metrics.await(
                                            l ->
                                                    l.path("step").asLong() >= FAULT_AT_STEP
                                                            && isTraining(l),
                                            Duration.ofMinutes(5))
                                    .path("step")
                                    .asLong();
                }
                long t0 = System.nanoTime();
                fault.inject.run();
                long repaired = Long.MAX_VALUE;
                if (fault.repair != null) {
                    Thread.sleep(fault.repairAfter.toMillis());
                    fault.repair.run();
                    repaired = System.nanoTime();
                }
                long repairedAt = repaired;
                long[] maxStep = {stepBefore};
                JsonNode first =
                        metrics.await(
                                l -> {
                                    long step = l.path("step").asLong();
                                    boolean replay = step <= maxStep[0];
                                    maxStep[0] = Math.max(maxStep[0], step);
                                    return isTraining(l)
                                            && (replay
                                                    || fault.beforeTraining
                                                    || System.nanoTime() > repairedAt);
                                },
                                Duration.ofMinutes(5));
                run.recoverySeconds = Math.round((System.nanoTime() - t0) / 1e8) / 10.0;
                run.stepBefore = stepBefore;
                run.firstNewStep = first.path("step").asLong();
            }
            run.finalLine = metrics.await(l -> l.path("final").asBoolean(), Duration.ofMinutes(8));
            for (JsonNode l : metrics.seen()) {
                run.edgesIngested = Math.max(run.edgesIngested, l.path("edges_ingested").asLong());
                run.vertices = Math.max(run.vertices, l.path("vertices").asLong());
                assertTrue(l.path("replicas_identical").asBoolean(true), l.toString());
                assertTrue(
                        l.path("edges_ingested").asLong() <= cora.edges(),
                        "an edge ingested twice: " + l);
            }
            assertEquals(0, follow.get(3, TimeUnit.MINUTES), name + ": submit failed");
            if (ingest) {
                Path savepoints = WORK.resolve("savepoints-" + name);
                assertEquals(
                        0,
                        GnnstreamCli.commandLine()
                                .execute(
                                        "stop",
                                        "--zookeeper",
                                        quorum,
                                        "--savepoint-dir",
                                        savepoints.toUri().toString()));
                try (var dirs = Files.list(savepoints)) {
                    run.savepoint =
                            dirs.filter(Files::isDirectory).findFirst().orElseThrow().toString();
                }
            }
            return run;
        }
    }

    private static String[] submitArgs(String prefix, String input) {
        return new String[] {
            "submit",
            "--follow",
            "--timeout",
            "12m",
            "--zookeeper",
            quorum,
            "--bootstrap-servers",
            bootstrap,
            "--edges-topic",
            input + ".edges",
            "--nodes-topic",
            input + ".nodes",
            "--topic-prefix",
            prefix,
            "--group-id",
            prefix,
            "--num-features",
            Integer.toString(cora.featureDim()),
            "--num-classes",
            Integer.toString(cora.numClasses()),
            "--parallelism",
            "2",
            "--trainers",
            "2",
            "--max-steps",
            Long.toString(MAX_STEPS),
            "--eval-every",
            Long.toString(MAX_STEPS),
            "--log-every",
            "5",
            "--min-vertices",
            Long.toString(cora.nodes()),
            "--min-edges",
            Long.toString(cora.edges()),
            "--checkpoint-interval",
            "2s",
            "--checkpoint-dir",
            WORK.resolve("checkpoints-" + prefix).toUri().toString()
        };
    }

    /** The submit arguments without {@code --follow} and its {@code --timeout}. */
    private static String[] withoutFollow(String[] args) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--follow")) {
                continue;
            }
            if (args[i].equals("--timeout")) {
                i++;
                continue;
            }
            out.add(args[i]);
        }
        return out.toArray(new String[0]);
    }

    /** Restarts what an earlier fault left dead and waits for 2 TaskManagers with all slots. */
    private static void ensureCluster() throws Exception {
        for (int jm : new int[] {ZK_JM, STANDBY_JM}) {
            if (!alive(dir(jm, "jm"))) {
                StandaloneCluster.stop(dir(jm, "jm"));
                startJobManager(jm);
            }
        }
        for (int tm : TASK_MANAGERS) {
            if (!alive(dir(tm, "tm"))) {
                StandaloneCluster.stop(dir(tm, "tm"));
                startTaskManager(tm);
            }
        }
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (true) {
            ClusterRest rest =
                    HighAvailability.leaderRest(
                            quorum, HighAvailability.DEFAULT_CLUSTER_ID, Duration.ofSeconds(60));
            var overview = rest.overview();
            if (overview.isPresent()
                    && overview.get().taskManagers() == TASK_MANAGERS.length
                    && overview.get().slotsAvailable() == overview.get().slotsTotal()) {
                return;
            }
            assertTrue(System.nanoTime() < deadline, "the cluster did not come back: " + overview);
            Thread.sleep(1000);
        }
    }

    private static void awaitRunningJob() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (true) {
            ClusterRest rest =
                    HighAvailability.leaderRest(
                            quorum, HighAvailability.DEFAULT_CLUSTER_ID, Duration.ofSeconds(60));
            if (rest.jobs().stream().anyMatch(j -> j.status() == JobStatus.RUNNING)) {
                Thread.sleep(5000);
                return;
            }
            assertTrue(System.nanoTime() < deadline, "no job started");
            Thread.sleep(500);
        }
    }

    private static boolean alive(Path dir) throws IOException {
        return ClusterState.read(dir)
                .map(
                        s ->
                                !s.pids().isEmpty()
                                        && s.pids().stream()
                                                .allMatch(
                                                        p ->
                                                                StandaloneCluster.process(p, dir)
                                                                        .isPresent()))
                .orElse(false);
    }

    private static void startJobManager(int host) throws Exception {
        startOnHost(
                host,
                "jm",
                "--ha",
                "--zookeeper",
                quorum,
                "--ha-storage-dir",
                WORK.resolve("ha").toUri().toString(),
                "--jobmanagers",
                "1",
                "--taskmanagers",
                "0");
    }

    private static void startTaskManager(int host) throws Exception {
        // About 1.4 GiB of heap: after a host is lost the other TaskManager runs the whole job.
        startOnHost(
                host,
                "tm",
                "--ha",
                "--zookeeper",
                quorum,
                "--jobmanagers",
                "0",
                "--taskmanagers",
                "1",
                "--taskmanager-memory",
                "3500m");
    }

    /** {@code cluster start} run on host {@code host}, as a user runs it there. */
    private static void startOnHost(int host, String role, String... args) throws Exception {
        List<String> cli =
                new ArrayList<>(
                        List.of(
                                "cluster",
                                "start",
                                "--dir",
                                dir(host, role).toString(),
                                "--bind",
                                hosts.address(host)));
        cli.addAll(List.of(args));
        Path out = WORK.resolve("start-h" + host + "-" + role + ".out");
        Process p =
                new ProcessBuilder(hosts.on(host, cliCommand(cli.toArray(new String[0]))))
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(out.toFile()))
                        .start();
        try {
            assertTrue(p.waitFor(3, TimeUnit.MINUTES), "cluster start on host " + host);
            assertEquals(0, p.exitValue(), "cluster start on host " + host + ": see " + out);
        } finally {
            p.destroyForcibly();
        }
    }

    private static Path dir(int host, String role) {
        return WORK.resolve("h" + host).resolve(role);
    }

    private static List<String> cliCommand(String... args) {
        List<String> cmd =
                new ArrayList<>(
                        List.of(
                                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                                "-Xmx512m",
                                "-Dgnnstream.home=" + HOME,
                                "-Dgnnstream.kafka.lib="
                                        + System.getProperty("gnnstream.kafka.lib"),
                                "-Dlog4j.configurationFile="
                                        + HOME.resolve("flink-conf")
                                                .resolve("log4j2-cli.properties"),
                                "-cp",
                                System.getProperty("java.class.path"),
                                GnnstreamCli.class.getName()));
        cmd.addAll(List.of(args));
        return cmd;
    }

    private static void awaitBroker() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (true) {
            try {
                KafkaTopics.ensure(bootstrap, 1, "faults.ready");
                return;
            } catch (Exception notYet) {
                assertTrue(
                        System.nanoTime() < deadline && broker.isAlive(),
                        "the broker on host " + BROKER + " did not start: " + notYet);
                Thread.sleep(1000);
            }
        }
    }

    private static boolean isTraining(JsonNode line) {
        return line.path("batches_per_s").asDouble() > 0;
    }

    /** An action that may throw. */
    private interface Action {
        void run() throws Exception;
    }

    /** What to break, and (for a freeze or a partition) how long until it is repaired. */
    private static final class Fault {
        final Action inject;
        Action repair;
        Duration repairAfter;
        boolean beforeTraining;

        Fault(Action inject) {
            this.inject = inject;
        }

        Fault repairedAfter(Duration after, Action repair) {
            this.repairAfter = after;
            this.repair = repair;
            return this;
        }
    }

    private static final class Run {
        JsonNode finalLine;
        String savepoint;
        long edgesIngested;
        long vertices;
        double recoverySeconds;
        long stepBefore;
        long firstNewStep;
    }
}

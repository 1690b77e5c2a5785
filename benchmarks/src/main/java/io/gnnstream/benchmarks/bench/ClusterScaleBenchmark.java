package io.gnnstream.benchmarks.bench;

import com.carrotsearch.hppc.LongHashSet;
import com.fasterxml.jackson.databind.JsonNode;
import io.gnnstream.cli.GnnstreamCli;
import io.gnnstream.cluster.ClusterRest;
import io.gnnstream.cluster.HighAvailability;
import io.gnnstream.cluster.NetworkHosts;
import io.gnnstream.cluster.StandaloneCluster;
import io.gnnstream.connectors.KafkaIO;
import io.gnnstream.connectors.KafkaTopics;
import io.gnnstream.tools.DatasetInfo;
import io.gnnstream.tools.DatasetLoader;
import io.gnnstream.tools.Directories;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * {@code bench cluster-scale}: the products-size graph on a cluster across hosts. Four
 * network-namespace hosts ({@link NetworkHosts}, needs root): ZooKeeper and the JobManager on host
 * 1, a TaskManager of {@value #TASK_MANAGER_MEMORY} with one slot on hosts 2 and 3, the Kafka
 * broker on host 4. The graph is loaded from this machine, then the job runs at parallelism 2 with
 * 2 trainer ranks as {@code bench scale} runs it ({@code --batch-size 1024 --fanouts 15,10 --hidden
 * 256}, {@code --steps} steps), with a full round halfway (the baseline) and one at the end.
 * {@value #FAULT_AFTER_S} s into the last round every process of host 2 is SIGKILLed and its
 * TaskManager started again at once, as a supervisor would; the job restores its last checkpoint
 * and completes the round. Reported: load, ingestion, steady seeds/s, both rounds, the time from
 * the kill until every task runs again and until the first checkpoint after the restore, every
 * process's peak RSS, the test accuracy, and the distinct vertices with a prediction on the
 * predictions topic against the graph's vertices (a missing one fails the run). Every process is
 * stopped by PID and the hosts removed, also when the run fails.
 */
final class ClusterScaleBenchmark implements Benchmark {

    static final String TASK_MANAGER_MEMORY = "6g";
    static final int FAULT_AFTER_S = 30;
    private static final int JOBMANAGER_HOST = 1;
    private static final int[] TASK_MANAGER_HOSTS = {2, 3};
    private static final int BROKER_HOST = 4;
    private static final String PREFIX = "cscale";

    /**
     * Steps per metrics line. The line of step {@code steps} comes after the round, so the round
     * starts about one line's steps after the line before it.
     */
    private static final int LOG_EVERY = 10;

    /** The processes whose peak RSS is a figure (the others are short-lived launchers). */
    private static final List<String> LONG_LIVED =
            List.of(
                    "FlinkZooKeeperQuorumPeer",
                    "StandaloneSessionClusterEntrypoint",
                    "TaskManagerRunner",
                    "KafkaBrokerMain");

    @Override
    public String name() {
        return "cluster-scale";
    }

    @Override
    public String description() {
        return "the products-size graph (--synthetic to change it) on a cluster across network"
                + " namespace hosts (root): JobManager, 2 TaskManagers and the broker on hosts of"
                + " their own; training, the full round with one TaskManager host killed midway;"
                + " ingestion, seeds/s, round, recovery, peak RSS per process, predictions";
    }

    @Override
    public int defaultRepeat() {
        return 1;
    }

    @Override
    public List<BenchResult> run(BenchContext context) throws Exception {
        PrintStream log = context.log();
        Path home = Path.of(System.getProperty("gnnstream.home", ".")).toAbsolutePath().normalize();
        if (!NetworkHosts.available(home)) {
            throw new IllegalStateException(
                    "bench cluster-scale makes hosts of network namespaces (docs/hosts.sh): it"
                            + " needs root and ip(8)");
        }
        SyntheticSpec spec =
                context.synthetic() != null ? context.synthetic() : ScaleBenchmark.PRODUCTS;
        Path data =
                context.dataset() != null ? context.dataset() : ScaleBenchmark.generated(spec, log);
        DatasetInfo info = DatasetInfo.scan(data);
        int steps = context.stepsOr(400);
        Path work = BenchData.WORK.resolve("cluster-scale").toAbsolutePath().normalize();
        Directories.deleteRecursively(work);
        Files.createDirectories(work);
        NetworkHosts hosts = NetworkHosts.create(home, 4);
        Thread cleanup = new Thread(() -> stopAll(work, hosts), "cluster-scale-stop");
        Runtime.getRuntime().addShutdownHook(cleanup);
        Process broker = null;
        try (HostProcesses processes = new HostProcesses(hosts, 4, work)) {
            String bootstrap = hosts.address(BROKER_HOST) + ":9092";
            broker =
                    processes.start(
                            BROKER_HOST,
                            "kafka",
                            "kafka",
                            "--bind",
                            hosts.address(BROKER_HOST),
                            "--port",
                            "9092",
                            "--dir",
                            work.resolve("kafka").toString());
            processes.run(
                    JOBMANAGER_HOST,
                    "jm",
                    log,
                    "cluster",
                    "start",
                    "--dir",
                    work.resolve("h1").toString(),
                    "--bind",
                    hosts.address(JOBMANAGER_HOST),
                    "--ha",
                    "--ha-storage-dir",
                    work.resolve("ha").toUri().toString(),
                    "--jobmanagers",
                    "1",
                    "--taskmanagers",
                    "0");
            String quorum = hosts.address(JOBMANAGER_HOST) + ":2181";
            for (int h : TASK_MANAGER_HOSTS) {
                startTaskManager(processes, hosts, work, quorum, h, log);
            }
            awaitBroker(bootstrap, broker);
            Map<String, Double> f = new LinkedHashMap<>();
            KafkaTopics.ensure(bootstrap, 2, PREFIX + ".edges", PREFIX + ".nodes");
            long t = System.nanoTime();
            new DatasetLoader(bootstrap)
                    .progress(false)
                    .load(data, PREFIX + ".edges", PREFIX + ".nodes");
            f.put("load_s", seconds(t));
            log.printf(
                    Locale.ROOT,
                    "Loaded %s into the broker on host %d in %.0f s%n",
                    data,
                    BROKER_HOST,
                    f.get("load_s"));
            try (MetricsFollower metrics = new MetricsFollower(bootstrap, PREFIX + ".metrics")) {
                submit(bootstrap, quorum, work, info, steps);
                ClusterRest rest =
                        HighAvailability.leaderRest(
                                quorum,
                                HighAvailability.DEFAULT_CLUSTER_ID,
                                Duration.ofSeconds(60));
                JobID job = SoakBenchmark.awaitRunning(rest);
                long running = System.nanoTime();
                List<JsonNode> training = new ArrayList<>();
                int half = steps / 2;
                metrics.await(
                        l -> {
                            if (isTraining(l)) {
                                training.add(l);
                            }
                            return isTraining(l) && l.path("step").asLong() >= half - LOG_EVERY;
                        },
                        Duration.ofMinutes(40),
                        log);
                long cleanStart = System.nanoTime();
                metrics.await(
                        l -> {
                            if (isTraining(l)) {
                                training.add(l);
                            }
                            return l.path("step").asLong() >= half && l.has("val_acc");
                        },
                        Duration.ofMinutes(40),
                        log);
                double cleanRound = seconds(cleanStart);
                log.printf(
                        Locale.ROOT,
                        "The round of step %d without a fault: %.1f s%n",
                        half,
                        cleanRound);
                JsonNode last =
                        metrics.await(
                                l -> {
                                    if (isTraining(l)) {
                                        training.add(l);
                                    }
                                    return isTraining(l)
                                            && l.path("step").asLong() >= steps - LOG_EVERY;
                                },
                                Duration.ofMinutes(40),
                                log);
                long roundStart = System.nanoTime();
                f.put(
                        "ingest_edges_per_s",
                        info.edges() / ((metrics.firstTraining - running) / 1e9));
                f.put("steady_seeds_per_s", steady(training));
                log.printf(
                        Locale.ROOT,
                        "Step %d reached; the round runs; host %d is killed in %d s%n",
                        last.path("step").asLong(),
                        TASK_MANAGER_HOSTS[0],
                        FAULT_AFTER_S);
                Thread.sleep(FAULT_AFTER_S * 1000L);
                if (metrics.roundEnded(steps)) {
                    log.println(
                            "WARNING: the round ended within "
                                    + FAULT_AFTER_S
                                    + " s, before the fault: the figures after it measure a"
                                    + " failover outside a round");
                }
                Optional<String> checkpointBefore = rest.latestCheckpoint(job);
                long kill = System.nanoTime();
                List<Long> killed = hosts.signal(TASK_MANAGER_HOSTS[0], "KILL");
                log.println("Killed host " + TASK_MANAGER_HOSTS[0] + "'s processes " + killed);
                StandaloneCluster.stop(work.resolve("h" + TASK_MANAGER_HOSTS[0]));
                startTaskManager(processes, hosts, work, quorum, TASK_MANAGER_HOSTS[0], log);
                double[] recovery = awaitRecovery(rest, job, checkpointBefore, kill);
                f.put("all_tasks_running_again_s", recovery[0]);
                f.put("first_checkpoint_after_restore_s", recovery[1]);
                JsonNode fin =
                        metrics.await(
                                l -> l.path("final").asBoolean(), Duration.ofMinutes(40), log);
                f.put("round_s", cleanRound);
                f.put("round_with_fault_s", seconds(roundStart));
                f.put("test_acc", fin.path("test_acc").asDouble());
                long predicted = distinctPredicted(bootstrap, info.nodes(), log);
                f.put("vertices_predicted", (double) predicted);
                rest.cancel(job, Duration.ofMinutes(2));
                for (Map.Entry<String, Long> p : processes.peaksByRole().entrySet()) {
                    if (!LONG_LIVED.contains(p.getKey().substring(p.getKey().indexOf(' ') + 1))) {
                        continue;
                    }
                    f.put(
                            "peak_rss_" + p.getKey().replace(' ', '_') + "_bytes",
                            (double) p.getValue());
                }
                print(log, f, processes.peaks());
                if (predicted != info.nodes()) {
                    throw new IllegalStateException(
                            predicted + " of " + info.nodes() + " vertices have a prediction");
                }
                return results(f, info, steps);
            }
        } finally {
            if (broker != null) {
                broker.destroy();
                broker.waitFor(30, TimeUnit.SECONDS);
                broker.destroyForcibly();
            }
            stopAll(work, hosts);
            try {
                Runtime.getRuntime().removeShutdownHook(cleanup);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs
            }
        }
    }

    /** Stops the cluster's processes by PID, kills what else runs on the hosts, removes them. */
    private static synchronized void stopAll(Path work, NetworkHosts hosts) {
        try {
            for (int h = 1; h <= 3; h++) {
                StandaloneCluster.stop(work.resolve("h" + h));
            }
        } catch (Exception e) {
            System.err.println("cluster-scale: stopping the cluster: " + e);
        }
        try {
            hosts.close();
        } catch (Exception e) {
            System.err.println("cluster-scale: removing the hosts: " + e);
        }
    }

    private static void startTaskManager(
            HostProcesses processes,
            NetworkHosts hosts,
            Path work,
            String quorum,
            int host,
            PrintStream log)
            throws Exception {
        processes.run(
                host,
                "tm-h" + host,
                log,
                "cluster",
                "start",
                "--dir",
                work.resolve("h" + host).toString(),
                "--bind",
                hosts.address(host),
                "--ha",
                "--zookeeper",
                quorum,
                "--jobmanagers",
                "0",
                "--taskmanagers",
                "1",
                "--slots",
                "1",
                "--taskmanager-memory",
                TASK_MANAGER_MEMORY);
    }

    private static void submit(
            String bootstrap, String quorum, Path work, DatasetInfo info, int steps) {
        String[] args = {
            "submit",
            "--zookeeper",
            quorum,
            "--bootstrap-servers",
            bootstrap,
            "--edges-topic",
            PREFIX + ".edges",
            "--nodes-topic",
            PREFIX + ".nodes",
            "--topic-prefix",
            PREFIX,
            "--num-features",
            Integer.toString(info.featureDim()),
            "--num-classes",
            Integer.toString(info.numClasses()),
            "--parallelism",
            "2",
            "--trainers",
            "2",
            "--batch-size",
            "1024",
            "--fanouts",
            "15,10",
            "--hidden",
            "256",
            "--max-steps",
            Integer.toString(steps),
            "--eval-every",
            Integer.toString(steps / 2),
            "--log-every",
            "10",
            "--min-vertices",
            Long.toString(info.nodes()),
            "--min-edges",
            Long.toString(info.edges()),
            "--checkpoint-interval",
            "20s",
            "--checkpoint-dir",
            work.resolve("checkpoints").toUri().toString()
        };
        int code = GnnstreamCli.commandLine().execute(args);
        if (code != 0) {
            throw new IllegalStateException("submit exited " + code);
        }
    }

    /**
     * Seconds from {@code kill} until every task runs again after the failover, and until the job's
     * first checkpoint after that completes.
     */
    private static double[] awaitRecovery(
            ClusterRest rest, JobID job, Optional<String> before, long kill) throws Exception {
        long deadline = kill + TimeUnit.MINUTES.toNanos(15);
        boolean failedOver = false;
        double running = Double.NaN;
        while (System.nanoTime() < deadline) {
            JobStatus status = rest.status(job);
            if (status.isGloballyTerminalState()) {
                throw new IllegalStateException("the job ended: " + status);
            }
            boolean all = status == JobStatus.RUNNING && rest.allTasksRunning(job);
            if (!all) {
                failedOver = true;
            } else if (failedOver && Double.isNaN(running)) {
                running = seconds(kill);
            }
            if (!Double.isNaN(running)) {
                Optional<String> latest = rest.latestCheckpoint(job);
                if (latest.isPresent() && !latest.equals(before)) {
                    return new double[] {running, seconds(kill)};
                }
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException("the job did not recover within 15 minutes");
    }

    /** Distinct vertices with a prediction on the predictions topic (waits up to 5 minutes). */
    private static long distinctPredicted(String bootstrap, long vertices, PrintStream log) {
        LongHashSet ids = new LongHashSet((int) Math.min(vertices, Integer.MAX_VALUE - 8));
        String topic = PREFIX + ".predictions";
        try (KafkaConsumer<String, String> consumer = KafkaIO.stringConsumer(bootstrap, 5000)) {
            KafkaIO.assignFromBeginning(consumer, topic);
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
            while (ids.size() < vertices && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofSeconds(1))) {
                    if (r.key() != null && r.value() != null) {
                        ids.add(Long.parseLong(r.key()));
                    }
                }
            }
        }
        log.printf(
                Locale.ROOT,
                "Predictions on %s: %,d distinct vertices of %,d%n",
                topic,
                ids.size(),
                vertices);
        return ids.size();
    }

    private static double steady(List<JsonNode> training) {
        List<Double> late =
                training.subList(training.size() / 2, training.size()).stream()
                        .map(l -> l.path("seeds_per_s").asDouble())
                        .collect(Collectors.toList());
        return Stats.of(late).median();
    }

    static boolean isTraining(JsonNode line) {
        return line.path("seeds_per_s").asDouble() > 0 && !line.path("final").asBoolean(false);
    }

    private static void awaitBroker(String bootstrap, Process broker) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (true) {
            try {
                KafkaTopics.ensure(bootstrap, 1, PREFIX + ".ready");
                return;
            } catch (Exception notYet) {
                if (System.nanoTime() > deadline || !broker.isAlive()) {
                    throw new IllegalStateException("the broker did not start: " + notYet, notYet);
                }
                Thread.sleep(1000);
            }
        }
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }

    private static void print(
            PrintStream log, Map<String, Double> f, List<HostProcesses.Peak> peaks) {
        log.println();
        f.forEach((k, v) -> log.printf(Locale.ROOT, "  %-48s %,.3f%n", k, v));
        log.println("  peak RSS per process:");
        for (HostProcesses.Peak p : peaks) {
            log.printf(
                    Locale.ROOT,
                    "    host %d pid %d %-40s %,.2f GiB%n",
                    p.host(),
                    p.pid(),
                    p.role(),
                    p.bytes() / 1073741824.0);
        }
    }

    private List<BenchResult> results(Map<String, Double> f, DatasetInfo info, int steps) {
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("vertices", info.nodes());
        params.put("edges", info.edges());
        params.put("trainers", 2);
        params.put("parallelism", 2);
        params.put("taskmanagers", "2x" + TASK_MANAGER_MEMORY + ", 1 slot, one host each");
        params.put("steps", steps);
        params.put(
                "fault",
                "host 2 SIGKILLed "
                        + FAULT_AFTER_S
                        + " s into the round, its TaskManager restarted");
        List<BenchResult> out = new ArrayList<>();
        for (Map.Entry<String, Double> e : f.entrySet()) {
            Map<String, Object> p = new LinkedHashMap<>(params);
            p.put("figure", e.getKey());
            Baseline base =
                    e.getKey().equals("round_with_fault_s")
                            ? new Baseline("round without a fault", f.get("round_s"))
                            : null;
            out.add(new BenchResult(name(), p, unit(e.getKey()), Stats.of(e.getValue()), base));
        }
        return out;
    }

    private static String unit(String figure) {
        return figure.equals("vertices_predicted") ? "vertices" : ScaleBenchmark.unit(figure);
    }
}

package io.gnnstream.benchmarks.bench;

import io.gnnstream.cli.GnnstreamCli;
import io.gnnstream.cluster.ClusterRest;
import io.gnnstream.cluster.ClusterState;
import io.gnnstream.cluster.StandaloneCluster;
import io.gnnstream.jobs.GraphOptions;
import io.gnnstream.jobs.JobOption;
import io.gnnstream.jobs.JobOptions;
import io.gnnstream.jobs.KafkaOptions;
import io.gnnstream.jobs.ModelOptions;
import io.gnnstream.jobs.PredictionOptions;
import io.gnnstream.jobs.RunOptions;
import io.gnnstream.jobs.SamplingOptions;
import io.gnnstream.tools.Directories;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.ConfigOption;

/**
 * {@code bench soak}: the training job on a standalone cluster started as {@code cluster start}
 * starts one (a JobManager and {@value #TASK_MANAGERS} TaskManager processes of {@value
 * #TASK_MANAGER_MEMORY}, one slot each, RocksDB with its native memory metrics), the graph loaded,
 * then a stream of graph changes ({@link ChangeStream}) for {@code --minutes} while training and
 * incremental predictions run, sampled by {@link SoakProbe} and judged by {@link SoakTargets}.
 * {@value #TRAINERS} trainer replicas at parallelism {@value #PARALLELISM} (incremental predictions
 * need GraphStore parallelism 1), a round every {@value #EVAL_EVERY} steps. The additions' share of
 * the edge changes follows the job's {@code liveEdges} gauge so that the live edges stay level
 * while deletions end edges. Every process started (broker, cluster) is stopped by PID, also when
 * the run fails or the JVM is interrupted.
 */
final class SoakBenchmark implements Benchmark {

    static final SyntheticSpec GRAPH = SyntheticSpec.parse("100000,20,128,10");
    static final int DEFAULT_MINUTES = 30;
    static final int DEFAULT_RATE = 1000;
    static final int TRAINERS = 2;
    static final int PARALLELISM = 1;
    static final int TASK_MANAGERS = 2;
    static final String TASK_MANAGER_MEMORY = "3g";
    static final int EVAL_EVERY = 5000;

    /** Readings of RocksDB's memory per sample, of which the least counts. */
    static final int READINGS = 3;

    private static final long READING_GAP_MS = 4_000;

    /**
     * How often the additions' share is adjusted to the live edges and the TaskManagers' old
     * generations are read ({@link OldGenWindow}).
     */
    private static final long CONTROL_MS = 10_000;

    /** The live edges' return to their count at the start, as a time constant. */
    private static final double RETURN_SECONDS = 60;

    @Override
    public String name() {
        return "soak";
    }

    @Override
    public String description() {
        return "a standalone cluster (JobManager, "
                + TASK_MANAGERS
                + " TaskManagers) trains and predicts under --rate changes/s (default "
                + DEFAULT_RATE
                + ") for --minutes (default "
                + DEFAULT_MINUTES
                + "); a verdict per target, exit 1 when one is missed";
    }

    @Override
    public int defaultRepeat() {
        return 1;
    }

    @Override
    public List<BenchResult> run(BenchContext context) throws Exception {
        return run(context, ignored -> {});
    }

    /** Runs the soak; {@code samples} sees each sample as it is taken. */
    List<BenchResult> run(
            BenchContext context, java.util.function.Consumer<SoakTargets.Sample> samples)
            throws Exception {
        int minutes = context.minutesOr(DEFAULT_MINUTES);
        List<Integer> rates = context.ratesOr(List.of(DEFAULT_RATE));
        if (rates.size() != 1) {
            throw new IllegalArgumentException("soak takes one --rate, got " + rates);
        }
        int rate = rates.get(0);
        PrintStream log = context.log();
        Path home = Path.of(System.getProperty("gnnstream.home", ".")).toAbsolutePath().normalize();
        Path work =
                BenchData.WORK
                        .resolve("soak-" + ProcessHandle.current().pid())
                        .toAbsolutePath()
                        .normalize();
        Path clusterDir = work.resolve("cluster");
        Thread stopCluster =
                new Thread(
                        () -> {
                            try {
                                StandaloneCluster.stop(clusterDir);
                            } catch (IOException e) {
                                System.err.println("soak: stopping the cluster: " + e);
                            }
                        },
                        "soak-stop-cluster");
        Runtime.getRuntime().addShutdownHook(stopCluster);
        boolean done = false;
        try (BenchData data = BenchData.prepare(context, GRAPH, 1)) {
            ClusterState cluster =
                    StandaloneCluster.builder(clusterDir, home.resolve("cluster/target/flink/lib"))
                            .baseConfiguration(home.resolve("flink-conf"))
                            .taskManagers(TASK_MANAGERS)
                            .slots(1)
                            .taskManagerMemory(TASK_MANAGER_MEMORY)
                            .set("state.backend.rocksdb.metrics.size-all-mem-tables", "true")
                            .set("state.backend.rocksdb.metrics.block-cache-usage", "true")
                            .set("state.backend.rocksdb.metrics.estimate-table-readers-mem", "true")
                            .set("metrics.fetcher.update-interval", "3000")
                            .out(log)
                            .build()
                            .start();
            ClusterRest rest = new ClusterRest(cluster.restHost(), cluster.restPort());
            log.println(
                    "Cluster up: " + rest.webUi() + ", TaskManagers " + cluster.taskManagerPids());
            submit(data, clusterDir, work, rest);
            JobID job = awaitRunning(rest);
            try (SoakProbe probe = new SoakProbe(rest, job, data.broker.bootstrapServers());
                    ChangeStream changes = new ChangeStream(data)) {
                long start = awaitLoaded(probe, log);
                HeapGrowth heap = new HeapGrowth(SoakTargets.growthFrom(minutes));
                List<SoakTargets.Sample> taken =
                        soak(
                                probe, changes, cluster, data, rate, minutes, start, log, samples,
                                heap);
                done = true;
                log.println();
                heap.print(log);
                return results(data, taken, minutes, rate, start, log, heap);
            }
        } finally {
            List<Long> stopped = StandaloneCluster.stop(clusterDir);
            log.println("Stopped the cluster's processes " + stopped);
            try {
                Runtime.getRuntime().removeShutdownHook(stopCluster);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs
            }
            // A failed run keeps the cluster's logs.
            Directories.deleteRecursively(done ? work : work.resolve("checkpoints"));
            if (!done) {
                log.println("The cluster's logs: " + clusterDir.resolve("log"));
            }
        }
    }

    private static void submit(BenchData data, Path clusterDir, Path work, ClusterRest rest) {
        List<String> args =
                new ArrayList<>(List.of("submit", "--cluster-dir", clusterDir.toString()));
        Map<ConfigOption<?>, Object> options = new LinkedHashMap<>();
        options.put(KafkaOptions.BOOTSTRAP_SERVERS, data.broker.bootstrapServers());
        options.put(KafkaOptions.EDGES_TOPIC, data.edgesTopic);
        options.put(KafkaOptions.NODES_TOPIC, data.nodesTopic);
        options.put(KafkaOptions.TOPIC_PREFIX, "soak");
        options.put(GraphOptions.NUM_FEATURES, data.info.featureDim());
        options.put(GraphOptions.NUM_CLASSES, data.info.numClasses());
        options.put(RunOptions.PARALLELISM, PARALLELISM);
        options.put(ModelOptions.TRAINERS, TRAINERS);
        options.put(ModelOptions.TRAINER_THREADS, 1);
        options.put(SamplingOptions.MIN_VERTICES, data.info.nodes());
        options.put(SamplingOptions.MIN_EDGES, data.info.edges() / 2);
        options.put(SamplingOptions.EVAL_EVERY, EVAL_EVERY);
        options.put(PredictionOptions.PREDICTION_UPDATES, PredictionOptions.Updates.INCREMENTAL);
        options.put(RunOptions.CHECKPOINT_DIR, work.resolve("checkpoints").toUri().toString());
        options.forEach((option, value) -> args.addAll(flag(option, value)));
        int code = GnnstreamCli.commandLine().execute(args.toArray(new String[0]));
        if (code != 0) {
            throw new IllegalStateException("submit exited " + code + ": " + args);
        }
    }

    /** The command-line flag and text of a job option's value. */
    @SuppressWarnings("unchecked")
    private static List<String> flag(ConfigOption<?> option, Object value) {
        JobOption<Object> o =
                (JobOption<Object>)
                        JobOptions.all().stream()
                                .filter(j -> j.key().equals(option.key()))
                                .findFirst()
                                .orElseThrow(
                                        () ->
                                                new IllegalStateException(
                                                        "no flag for " + option.key()));
        return List.of(o.flag(), o.textOf(value));
    }

    static JobID awaitRunning(ClusterRest rest) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (System.nanoTime() < deadline) {
            for (ClusterRest.JobInfo j : rest.jobs()) {
                if (j.status() == JobStatus.RUNNING) {
                    return j.id();
                }
            }
            Thread.sleep(1000);
        }
        throw new IllegalStateException("the job is not running after 3 minutes: " + rest.jobs());
    }

    /**
     * Waits until the sources have read everything and the live edges held still for 10 s (at most
     * 20 minutes); returns the live edges then.
     */
    private static long awaitLoaded(SoakProbe probe, PrintStream log) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(20);
        long before = -1;
        while (System.nanoTime() < deadline) {
            Thread.sleep(10_000);
            long live = Math.round(probe.sum(".liveEdges", before < 0));
            double pending = probe.sum(".pendingRecords", before < 0);
            log.printf(
                    Locale.ROOT,
                    "  loading: %,d live edges, %,.0f records pending%n",
                    live,
                    pending);
            if (live > 0 && live == before && pending == 0) {
                return live;
            }
            before = live;
        }
        throw new IllegalStateException("the graph was not loaded within 20 minutes");
    }

    private static List<SoakTargets.Sample> soak(
            SoakProbe probe,
            ChangeStream changes,
            ClusterState cluster,
            BenchData data,
            int rate,
            int minutes,
            long target,
            PrintStream log,
            java.util.function.Consumer<SoakTargets.Sample> listener,
            HeapGrowth heap)
            throws Exception {
        long sampleMs = minutes >= 10 ? 60_000 : 30_000;
        log.printf(
                Locale.ROOT,
                "Soak: %d changes/s for %d min from %,d live edges, a sample every %d s%n",
                rate,
                minutes,
                target,
                sampleMs / 1000);
        log.println(
                "   min  ckpt ok/failed  restarts  old gen MiB per TM (least, n, +most)"
                        + "  RocksDB MiB  ckpt MiB  live edges  B/edge  lag s     step"
                        + "  incr. preds  add share");
        List<SoakTargets.Sample> samples = new ArrayList<>();
        SoakProbe.Checkpoints before = probe.checkpoints(0);
        if (before.failed() > 0) {
            log.println(
                    "  not counted: "
                            + before.failed()
                            + " checkpoint(s) failed before the changes began (in the history: "
                            + probe.checkpointFailures()
                            + ")");
        }
        long began = System.nanoTime();
        changes.start(rate);
        double edgeRate = 0.9 * rate;
        double share = 0.5;
        long nextSample = sampleMs;
        long nextTick = CONTROL_MS;
        long lastCheckpoint = before.latestId();
        OldGenWindow oldGen = new OldGenWindow();
        try {
            while (true) {
                long elapsedMs = (System.nanoTime() - began) / 1_000_000;
                if (elapsedMs >= nextSample) {
                    if (oldGen.readings() == 0) {
                        oldGen.add(SoakProbe.oldGenerationsAfterFullGc(cluster.taskManagerPids()));
                    }
                    SoakProbe.Checkpoints checkpoints = probe.checkpoints(lastCheckpoint);
                    lastCheckpoint = checkpoints.latestId();
                    SoakTargets.Sample s =
                            sample(
                                    probe,
                                    before,
                                    checkpoints,
                                    oldGen.take(),
                                    data,
                                    elapsedMs / 60_000.0);
                    samples.add(s);
                    listener.accept(s);
                    print(log, s, share);
                    heap.sample(
                            cluster.taskManagerPids(), s.minute(), nextSample >= minutes * 60_000L);
                    if (s.checkpointsFailed() > 0) {
                        log.println("  failed checkpoints: " + probe.checkpointFailures());
                    }
                    if (nextSample >= minutes * 60_000L) {
                        return samples;
                    }
                    nextSample += sampleMs;
                    continue;
                }
                Thread.sleep(Math.max(0, Math.min(nextTick, nextSample) - elapsedMs));
                elapsedMs = (System.nanoTime() - began) / 1_000_000;
                if (elapsedMs < nextTick) {
                    continue;
                }
                while (nextTick <= elapsedMs) {
                    nextTick += CONTROL_MS;
                }
                oldGen.add(SoakProbe.oldGenerationsAfterFullGc(cluster.taskManagerPids()));
                // Edges the changes ended beyond the removals sent (deletions, removals of edges
                // already gone), per second since the start; the additions make up for them and
                // for the distance to the start's count.
                long live = Math.round(probe.sum(".liveEdges", false));
                double seconds = (System.nanoTime() - began) / 1e9;
                double loss =
                        (changes.additions() - changes.removals() - (live - target)) / seconds;
                double net = loss + (target - live) / RETURN_SECONDS;
                share = Math.max(0.05, Math.min(0.95, (edgeRate + net) / (2 * edgeRate)));
                changes.addShare(share);
            }
        } finally {
            changes.stop();
        }
    }

    private static void print(PrintStream log, SoakTargets.Sample s, double share) {
        log.printf(
                Locale.ROOT,
                "%6.1f  %7d/%-6d  %8d  %36s  %11.1f  %8.1f  %,10d  %6.1f  %5.1f  %7d  %,11d "
                        + " %9.2f%n",
                s.minute(),
                s.checkpointsCompleted(),
                s.checkpointsFailed(),
                s.restarts(),
                OldGenWindow.describe(s.oldGenBytes(), s.oldGenMaxBytes(), s.oldGenReadings()),
                s.rocksDbBytes() / 1048576.0,
                s.checkpointBytes() / 1048576.0,
                s.liveEdges(),
                s.bytesPerEdge(),
                s.lagSeconds(),
                s.step(),
                s.predictions(),
                share);
    }

    /**
     * A sample; its checkpoint counts are those since {@code before}, the changes' start, its old
     * generations the floor of the readings since the previous sample.
     */
    private static SoakTargets.Sample sample(
            SoakProbe probe,
            SoakProbe.Checkpoints before,
            SoakProbe.Checkpoints checkpoints,
            OldGenWindow.Floor oldGen,
            BenchData data,
            double minute)
            throws Exception {
        // The floor of a few readings: what RocksDB retains, not the memtables' fill at one
        // instant.
        long rocksDb = Long.MAX_VALUE;
        for (int reading = 0; reading < READINGS; reading++) {
            if (reading > 0) {
                Thread.sleep(READING_GAP_MS);
            }
            rocksDb = Math.min(rocksDb, probe.rocksDbBytes());
        }
        double lag =
                Math.max(
                        probe.lagSeconds(data.edgesTopic, "edges-source"),
                        probe.lagSeconds(data.nodesTopic, "nodes-source"));
        long step =
                Math.round(
                        probe.metrics(".step", false).values().stream()
                                .mapToDouble(Double::doubleValue)
                                .max()
                                .orElse(0));
        return new SoakTargets.Sample(
                minute,
                checkpoints.completed() - before.completed(),
                checkpoints.failed() - before.failed(),
                probe.restarts(),
                oldGen.least(),
                oldGen.most(),
                oldGen.readings(),
                rocksDb,
                checkpoints.stateBytes(),
                Math.round(probe.sum(".liveEdges", false)),
                lag,
                step,
                Math.round(probe.sum(".incrementalPredictions", false)));
    }

    private List<BenchResult> results(
            BenchData data,
            List<SoakTargets.Sample> samples,
            int minutes,
            int rate,
            long liveAtStart,
            PrintStream log,
            HeapGrowth heap) {
        Map<String, Object> params = new LinkedHashMap<>();
        params.putAll(data.graphParams());
        params.put("minutes", minutes);
        params.put("rate", rate);
        params.put("trainers", TRAINERS);
        params.put("parallelism", PARALLELISM);
        params.put("taskmanagers", TASK_MANAGERS + "x" + TASK_MANAGER_MEMORY);
        params.put("predictions", "incremental, a round every " + EVAL_EVERY + " steps");
        Map<String, Object> environment = BenchContext.environment();
        log.println();
        log.println("Targets (" + environment + "):");
        List<BenchResult> out = new ArrayList<>();
        for (SoakTargets.Verdict v : SoakTargets.verdicts(samples, minutes, liveAtStart)) {
            log.println("  " + v.line());
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("figure", v.figure());
            p.putAll(params);
            Map<String, Object> extra = new LinkedHashMap<>();
            extra.put("target", v.target());
            extra.put(BenchResult.MET, v.met());
            out.add(new BenchResult(name(), p, v.unit(), Stats.of(v.value()), null, extra));
        }
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("figure", "samples");
        p.putAll(params);
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("live_edges_at_start", liveAtStart);
        extra.put("environment", environment);
        extra.put("samples", samples);
        extra.put("heap_growth", heap.toMap());
        out.add(new BenchResult(name(), p, "samples", Stats.of(samples.size()), null, extra));
        return out;
    }
}

package io.gnnstream.benchmarks.bench;

import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.model.ModelConfig;
import io.gnnstream.operators.model.Nd4jThreads;
import io.gnnstream.operators.model.SageModel;
import io.gnnstream.operators.model.TrainResult;
import io.gnnstream.tools.DatasetInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Trainer throughput in seeds/s on pre-built mini-batches: GraphSAGE-mean, 2 layers, hidden 256,
 * 1024 seeds, fanouts 25, 10 with full expansion ({@link FullExpansionBatch}), forward + backward +
 * Adam only. Each case warms up, then times every step; median/min/max are over all measured steps.
 * Cases: ND4J threads 1 and 2 x features 128 and 602 (10 classes). Each case is compared with plain
 * PyTorch on the same batch, shapes, thread count and step counts, run in the same invocation
 * ({@link TorchPeer}); without a Python that imports torch a case has no baseline.
 */
public final class TrainBenchmark implements Benchmark {

    static final int SEEDS = 1024;
    static final int[] FANOUTS = {25, 10};
    static final int HIDDEN = 256;
    static final int DEFAULT_CLASSES = 10;
    static final List<Integer> DEFAULT_FEATURES = List.of(128, 602);
    static final List<Integer> DEFAULT_THREADS = List.of(1, 2);
    static final int DEFAULT_STEPS = 50;
    static final int DEFAULT_WARMUP = 5;
    static final long BATCH_SEED = 20240601L;

    @Override
    public String name() {
        return "train";
    }

    @Override
    public String description() {
        return "trainer seeds/s on pre-built mini-batches vs plain PyTorch, same run";
    }

    /** One repeat is {@code --steps} (default 50) measured steps. */
    @Override
    public int defaultRepeat() {
        return 1;
    }

    @Override
    public List<BenchResult> run(BenchContext ctx) throws Exception {
        int classes = DEFAULT_CLASSES;
        List<Integer> features = DEFAULT_FEATURES;
        if (ctx.synthetic() != null) {
            classes = ctx.synthetic().classes();
            features = List.of(ctx.synthetic().features());
        } else if (ctx.dataset() != null) {
            DatasetInfo info = DatasetInfo.scan(ctx.dataset());
            classes = info.numClasses();
            features = List.of(info.featureDim());
            ctx.log()
                    .println(
                            "train: using F and C of "
                                    + ctx.dataset()
                                    + " ("
                                    + info
                                    + "); batches stay synthetic");
        }
        features = ctx.featuresOr(features);
        List<Integer> threads = ctx.threadsOr(DEFAULT_THREADS);
        int repeats = ctx.repeatOr(defaultRepeat());
        int steps = ctx.stepsOr(DEFAULT_STEPS);
        int warmup = ctx.warmupOr(DEFAULT_WARMUP);
        List<BenchResult> results = new ArrayList<>();
        TorchPeer peer =
                TorchPeer.find(
                        Path.of(System.getProperty("gnnstream.home", ".")).toAbsolutePath(),
                        ctx.log());
        for (int f : features) {
            long t0 = System.nanoTime();
            MiniBatch batch = FullExpansionBatch.build(SEEDS, FANOUTS, f, classes, BATCH_SEED);
            ctx.log()
                    .printf(
                            Locale.ROOT,
                            "train: built batch F=%d (%s nodes, %s edges) in %.1f s%n",
                            f,
                            Arrays.toString(batch.nodeCounts),
                            Arrays.toString(FullExpansionBatch.edgeCounts(SEEDS, FANOUTS)),
                            (System.nanoTime() - t0) / 1e9);
            Path batchFile = peer == null ? null : Files.createTempFile("gnnstream-batch", ".bin");
            try {
                if (peer != null) {
                    BatchFile.write(batch, classes, batchFile);
                }
                for (int t : threads) {
                    BenchResult ours = runCase(ctx, batch, f, classes, t, repeats, steps, warmup);
                    Baseline base =
                            peer == null
                                    ? null
                                    : peerBaseline(
                                            ctx, peer, batchFile, f, t, repeats * steps, warmup);
                    results.add(ours.withBaseline(base));
                }
            } finally {
                if (batchFile != null) {
                    Files.deleteIfExists(batchFile);
                }
            }
        }
        return results;
    }

    /** The peer's median seeds/s on the same batch, threads and step counts. */
    private static Baseline peerBaseline(
            BenchContext ctx,
            TorchPeer peer,
            Path batchFile,
            int f,
            int threads,
            int steps,
            int warmup)
            throws Exception {
        Stats stats = Stats.of(peer.run(batchFile, threads, steps, warmup));
        ctx.log()
                .printf(
                        Locale.ROOT,
                        "train: F=%d threads=%d: %s median %.0f seeds/s, min %.0f, max %.0f (same"
                                + " run)%n",
                        f,
                        threads,
                        peer.name(threads),
                        stats.median(),
                        stats.min(),
                        stats.max());
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("same_run", true);
        details.put("min", stats.min());
        details.put("max", stats.max());
        details.put("script", "docs/benchmarks/torch_sage.py");
        return new Baseline(peer.name(threads), stats.median(), details);
    }

    private BenchResult runCase(
            BenchContext ctx,
            MiniBatch batch,
            int f,
            int classes,
            int threads,
            int repeats,
            int steps,
            int warmup) {
        Nd4jThreads.configure(threads);
        ModelConfig cfg =
                ModelConfig.builder()
                        .inFeatures(f)
                        .hidden(HIDDEN)
                        .numClasses(classes)
                        .numLayers(FANOUTS.length)
                        .dropout(0.5)
                        .learningRate(0.003)
                        .seed(1)
                        .build();
        Map<String, Object> envBefore = BenchContext.environment();
        double[] seedsPerS = new double[repeats * steps];
        double[] seedsPerCpuS = new double[repeats * steps];
        double[] processCpuMs = new double[repeats * steps];
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Map<String, Long> phases;
        Map<String, Long> phasesCpu;
        try (SageModel model = new SageModel(cfg)) {
            for (int i = 0; i < warmup; i++) {
                step(model, batch);
            }
            model.setPhaseTiming(ctx.profile());
            int n = 0;
            for (int r = 0; r < repeats; r++) {
                for (int s = 0; s < steps; s++, n++) {
                    long cpu = mx.getCurrentThreadCpuTime();
                    long process = processCpuNanos();
                    long start = System.nanoTime();
                    step(model, batch);
                    long wall = System.nanoTime() - start;
                    long cpuUsed = mx.getCurrentThreadCpuTime() - cpu;
                    processCpuMs[n] = (processCpuNanos() - process) / 1e6;
                    seedsPerS[n] = batch.numSeeds() * 1e9 / wall;
                    seedsPerCpuS[n] = batch.numSeeds() * 1e9 / Math.max(1, cpuUsed);
                }
            }
            phases = model.phaseNanos();
            phasesCpu = model.phaseCpuNanos();
        }
        Stats stats = Stats.of(seedsPerS);
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("features", f);
        params.put("threads", threads);
        params.put("parallelism", 1);
        params.put("fanouts", Arrays.stream(FANOUTS).boxed().toList());
        params.put("batch_size", SEEDS);
        params.put("hidden", HIDDEN);
        params.put("classes", classes);
        params.put("nodes", Arrays.stream(batch.nodeCounts).boxed().toList());
        params.put(
                "edges",
                Arrays.stream(FullExpansionBatch.edgeCounts(SEEDS, FANOUTS)).boxed().toList());
        params.put("steps", steps);
        params.put("repeats", repeats);
        params.put("warmup", warmup);
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("step_ms_median", Math.round(1e5 * batch.numSeeds() / stats.median()) / 100.0);
        // CPU time of the whole JVM per step (all threads, including idle BLAS threads that spin).
        extra.put(
                "process_cpu_ms_median", Math.round(100 * Stats.of(processCpuMs).median()) / 100.0);
        if (threads == 1) {
            // All work runs on the calling thread, so seeds per second of its CPU time is the
            // throughput free of interference from other processes on the cores.
            extra.put("thread_cpu_median", Math.round(Stats.of(seedsPerCpuS).median()));
        }
        Map<String, Object> env = new LinkedHashMap<>(envBefore);
        Object loadAfter = BenchContext.environment().get("load_avg_1m");
        if (loadAfter != null) {
            env.put("load_avg_1m_end", loadAfter);
        }
        extra.put("env", env);
        BenchResult result = new BenchResult(name(), params, "seeds/s", stats, null, extra);
        ctx.log()
                .printf(
                        Locale.ROOT,
                        "train: F=%d threads=%d: median %.0f seeds/s (%.1f ms/step, process CPU"
                                + " %.1f ms/step), min %.0f, max %.0f%n",
                        f,
                        threads,
                        stats.median(),
                        1e3 * batch.numSeeds() / stats.median(),
                        Stats.of(processCpuMs).median(),
                        stats.min(),
                        stats.max());
        if (ctx.profile()) {
            printProfile(ctx, phases, phasesCpu, repeats * steps);
        }
        return result;
    }

    private static long processCpuNanos() {
        java.lang.management.OperatingSystemMXBean os =
                ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean sun
                ? sun.getProcessCpuTime()
                : 0L;
    }

    private static void step(SageModel model, MiniBatch batch) {
        TrainResult r = model.trainStep(batch);
        if (!Double.isFinite(r.loss())) {
            throw new IllegalStateException(
                    "training diverged: loss " + r.loss() + " at step " + model.step());
        }
    }

    private static void printProfile(
            BenchContext ctx, Map<String, Long> wall, Map<String, Long> cpu, int steps) {
        long total = wall.values().stream().mapToLong(Long::longValue).sum();
        long totalCpu = cpu.values().stream().mapToLong(Long::longValue).sum();
        ctx.log()
                .printf(
                        Locale.ROOT,
                        "  profile over %d steps, ms/step: wall (share), CPU of the calling"
                                + " thread%n",
                        steps);
        for (Map.Entry<String, Long> e : wall.entrySet()) {
            ctx.log()
                    .printf(
                            Locale.ROOT,
                            "    %-24s %8.2f (%4.1f%%) %8.2f%n",
                            e.getKey(),
                            e.getValue() / 1e6 / steps,
                            100.0 * e.getValue() / Math.max(1, total),
                            cpu.getOrDefault(e.getKey(), 0L) / 1e6 / steps);
        }
        ctx.log()
                .printf(
                        Locale.ROOT,
                        "    %-24s %8.2f         %8.2f%n",
                        "total",
                        total / 1e6 / steps,
                        totalCpu / 1e6 / steps);
    }
}

package io.gnnstream.benchmarks.bench;

import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.model.ModelConfig;
import io.gnnstream.operators.model.Nd4jThreads;
import io.gnnstream.operators.model.SageModel;
import io.gnnstream.operators.model.TrainResult;
import io.gnnstream.tools.DatasetInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
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
 * Cases: ND4J threads 1 and 2 x features 128 and 602 (10 classes), compared with PyTorch.
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

    /*
     * PyTorch 1.13 CPU (PyG SAGEConv mean, same shapes: 282,624 -> 26,624 -> 1,024 nodes,
     * 281,600 and 25,600 edges, hidden 256, 10 classes, forward + backward + Adam), median seeds/s
     * measured on this machine type (2-core AMD EPYC KVM guest) and quoted in the benchmark issue
     * ("train" case).
     * Keys: feature dimension; index: ND4J/torch thread count - 1.
     */
    static final Map<Integer, double[]> PYTORCH_SEEDS_PER_S =
            Map.of(
                    128, new double[] {2_900, 3_700},
                    602, new double[] {930, 1_500});

    /** The same with transparent huge pages at 2 threads: the best known figures, to beat. */
    static final Map<Integer, Double> PYTORCH_HUGEPAGES_2T_SEEDS_PER_S =
            Map.of(128, 4_560.0, 602, 1_990.0);

    @Override
    public String name() {
        return "train";
    }

    @Override
    public String description() {
        return "trainer seeds/s on pre-built mini-batches vs PyTorch 1.13";
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
            for (int t : threads) {
                results.add(runCase(ctx, batch, f, classes, t, repeats, steps, warmup));
            }
        }
        return results;
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
        BenchResult result =
                new BenchResult(
                        name(), params, "seeds/s", stats, baseline(f, classes, threads), extra);
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

    /** The PyTorch figure with the same thread count, when there is one for these shapes. */
    static Baseline baseline(int features, int classes, int threads) {
        double[] byThreads = PYTORCH_SEEDS_PER_S.get(features);
        if (byThreads == null || classes != DEFAULT_CLASSES || threads > byThreads.length) {
            return null;
        }
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("best_known", PYTORCH_HUGEPAGES_2T_SEEDS_PER_S.get(features));
        details.put("best_known_name", "pytorch-1.13-cpu-2t-hugepages");
        return new Baseline("pytorch-1.13-cpu-" + threads + "t", byThreads[threads - 1], details);
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

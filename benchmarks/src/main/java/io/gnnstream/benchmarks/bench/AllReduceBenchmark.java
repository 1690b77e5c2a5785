package io.gnnstream.benchmarks.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.gnnstream.jobs.ModelOptions;
import io.gnnstream.jobs.SamplingOptions;
import io.gnnstream.operators.model.ModelConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.MemorySize;

/**
 * {@code bench allreduce}: data-parallel training ({@code --trainers}) in the full job at steady
 * state. Every trainer count T of {@code --trainers} (default 1,2) runs on the same graph with the
 * same per-rank batch ({@value #BATCH_PER_RANK} seeds) and the same trainer thread budget: each
 * rank gets {@code max(T) / T} ND4J/BLAS threads (T=1: 2 threads, T=2: 1 thread each). The figure
 * is the end-to-end seeds/s, compared with the smallest T's run in the same invocation (target
 * {@value #TARGET_RATIO}x for T=2 against T=1). Each row also carries the median all-reduce wait
 * per step ({@code allreduce_s} of a window over its {@value StreamingRuns#STEPS_PER_WINDOW} steps
 * per rank) and the bytes the all-reduce moves per step (gradient floats x 4 bytes x 2 directions x
 * ranks; none at T=1, which skips the all-reduce).
 *
 * <p>{@code --hidden} adds one row per hidden size with the all-reduce seconds per step of the
 * largest T (2 if that is 1) against the parameter count, to project the cost of bigger models; the
 * hidden-{@value #HIDDEN} row reuses the run above. GraphSAGE-mean, fanouts 25,10 unless {@code
 * --fanouts}, graph parallelism 1 unless {@code --threads} (one value).
 */
public final class AllReduceBenchmark implements Benchmark {

    static final int BATCH_PER_RANK = 256;
    static final int HIDDEN = 256;
    static final List<Integer> DEFAULT_TRAINERS = List.of(1, 2);
    static final double TARGET_RATIO = 0.9;

    @Override
    public String name() {
        return "allreduce";
    }

    @Override
    public String description() {
        return "full job with T data-parallel trainers (default 1,2; max(T)/T threads each):"
                + " end-to-end seeds/s against the smallest T, all-reduce s and bytes per step"
                + " (hidden 256, 256 seeds per rank)";
    }

    @Override
    public int defaultRepeat() {
        return 10;
    }

    /** Trainable parameters of the GraphSAGE-mean model. */
    static long parameterCount(ModelConfig config) {
        return config.numParameters();
    }

    /** Bytes the all-reduce moves per step: every rank sends its gradient and receives the sum. */
    static long allReduceBytesPerStep(long parameters, int trainers) {
        return trainers < 2 ? 0 : parameters * Float.BYTES * 2 * trainers;
    }

    /** ND4J/BLAS threads of each of {@code trainers} ranks sharing {@code budget} threads. */
    static int threadsPerTrainer(int budget, int trainers) {
        return Math.max(1, budget / trainers);
    }

    @Override
    public List<BenchResult> run(BenchContext context) throws Exception {
        int repeat = context.repeatOr(defaultRepeat());
        List<Integer> fanouts = context.fanoutsOr(SampleBenchmark.DEFAULT_FANOUTS);
        int prefetch = context.prefetchOr(SamplingOptions.PREFETCH.defaultValue());
        MemorySize featureCache = context.featureCacheOr(ModelOptions.FEATURE_CACHE.defaultValue());
        int warmup = context.warmupOr(StreamingRuns.DEFAULT_WARMUP_WINDOWS);
        List<Integer> parallelisms = context.threadsOr(List.of(1));
        if (parallelisms.size() != 1) {
            throw new IllegalArgumentException(
                    "allreduce takes one --threads value (the graph parallelism), got "
                            + parallelisms);
        }
        int parallelism = parallelisms.get(0);
        List<Integer> trainerCounts =
                context.trainersOr(DEFAULT_TRAINERS).stream().distinct().sorted().toList();
        int budget = trainerCounts.get(trainerCounts.size() - 1);
        int sweepTrainers = Math.max(2, budget);
        List<Integer> hiddenSweep = context.hiddenOr(List.of());

        List<BenchResult> results = new ArrayList<>();
        try (BenchData data = BenchData.prepare(context, IngestBenchmark.DEFAULT_GRAPH, 2)) {
            Map<String, Object> common = new LinkedHashMap<>(data.graphParams());
            common.put("parallelism", parallelism);
            common.put("fanouts", fanouts);
            common.put("prefetch", prefetch);
            common.put("feature_cache_bytes", featureCache.getBytes());
            common.put("batch_per_rank", BATCH_PER_RANK);
            common.put("warmup_windows", warmup);
            common.put("warmup_seconds", StreamingRuns.WARMUP_SECONDS);
            Map<String, Run> runs = new LinkedHashMap<>();
            Baseline baseline = null;
            for (int trainers : trainerCounts) {
                Run run =
                        measure(
                                context,
                                data,
                                common,
                                parallelism,
                                trainers,
                                threadsPerTrainer(budget, trainers),
                                HIDDEN,
                                fanouts,
                                prefetch,
                                featureCache,
                                warmup,
                                repeat);
                runs.put(trainers + "/" + HIDDEN, run);
                Stats seeds = Stats.of(SampleBenchmark.field(run.windows, "seeds_per_s"));
                Map<String, Object> extra = run.extra();
                if (baseline != null) {
                    extra.put("target_ratio", TARGET_RATIO);
                }
                results.add(new BenchResult(name(), run.params, "seeds/s", seeds, baseline, extra));
                if (baseline == null) {
                    baseline =
                            new Baseline(
                                    "T="
                                            + trainers
                                            + " x "
                                            + run.threads
                                            + " thread(s), same graph and per-rank batch",
                                    seeds.median());
                }
            }
            for (int hidden : hiddenSweep) {
                Run run = runs.get(sweepTrainers + "/" + hidden);
                if (run == null) {
                    run =
                            measure(
                                    context,
                                    data,
                                    common,
                                    parallelism,
                                    sweepTrainers,
                                    threadsPerTrainer(budget, sweepTrainers),
                                    hidden,
                                    fanouts,
                                    prefetch,
                                    featureCache,
                                    warmup,
                                    repeat);
                    runs.put(sweepTrainers + "/" + hidden, run);
                }
                Map<String, Object> extra = run.extra();
                extra.put(
                        "seeds_per_s",
                        Stats.of(SampleBenchmark.field(run.windows, "seeds_per_s")).median());
                results.add(
                        new BenchResult(
                                name(),
                                run.params,
                                "allreduce s/step",
                                run.allReducePerStep(),
                                null,
                                extra));
            }
        }
        return results;
    }

    private Run measure(
            BenchContext context,
            BenchData data,
            Map<String, Object> common,
            int parallelism,
            int trainers,
            int threads,
            int hidden,
            List<Integer> fanouts,
            int prefetch,
            MemorySize featureCache,
            int warmup,
            int repeat)
            throws Exception {
        context.log()
                .printf(
                        "allreduce: %d trainer(s) x %d thread(s), hidden %d%n",
                        trainers, threads, hidden);
        List<JsonNode> windows =
                StreamingRuns.steadyWindows(
                        data,
                        parallelism,
                        trainers,
                        threads,
                        true,
                        hidden,
                        BATCH_PER_RANK,
                        fanouts,
                        prefetch,
                        featureCache,
                        warmup,
                        repeat,
                        context.log());
        ModelConfig model =
                ModelConfig.builder()
                        .inFeatures(data.info.featureDim())
                        .hidden(hidden)
                        .numClasses(data.info.numClasses())
                        .numLayers(fanouts.size())
                        .build();
        long parameters = parameterCount(model);
        Map<String, Object> params = new LinkedHashMap<>(common);
        params.put("trainers", trainers);
        params.put("trainer_threads", threads);
        params.put("reducers", trainers);
        params.put("hidden", hidden);
        params.put("model_params", parameters);
        return new Run(windows, params, threads, allReduceBytesPerStep(parameters, trainers));
    }

    /** The measured windows of one job run and what describes it. */
    private record Run(
            List<JsonNode> windows, Map<String, Object> params, int threads, long bytesPerStep) {

        Stats allReducePerStep() {
            return Stats.of(
                    windows.stream()
                            .mapToDouble(
                                    w ->
                                            w.path("allreduce_s").asDouble()
                                                    / StreamingRuns.STEPS_PER_WINDOW)
                            .toArray());
        }

        /** Figures every row of this run carries besides its own. */
        Map<String, Object> extra() {
            Map<String, Object> extra = new LinkedHashMap<>();
            Stats perStep = allReducePerStep();
            extra.put("allreduce_s_per_step", perStep.median());
            extra.put("allreduce_s_per_step_min", perStep.min());
            extra.put("allreduce_s_per_step_max", perStep.max());
            extra.put("allreduce_bytes_per_step", bytesPerStep);
            extra.put("busy", Stats.of(SampleBenchmark.field(windows, "busy")).median());
            extra.put(
                    "batches_per_s",
                    Stats.of(SampleBenchmark.field(windows, "batches_per_s")).median());
            extra.put("env", BenchContext.environment());
            return extra;
        }
    }
}

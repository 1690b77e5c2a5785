package io.gnnstream.benchmarks.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.gnnstream.jobs.ModelOptions;
import io.gnnstream.jobs.SamplingOptions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.MemorySize;

/**
 * {@code bench sample}: sampled edges/s and mini-batches/s of the Flink sampling loop (fanouts
 * 25,10 or {@code --fanouts}, batch 1024, features fetched, {@code --prefetch} batches in flight;
 * the trainer only acknowledges) at steady state, against the {@link InMemorySampler} with the same
 * fanouts over the same graph in the same JVM. The baseline is measured half before and half after
 * the streaming runs: measured once beforehand, its median moved by a factor of two between
 * invocations on the shared machine (the broker still settling, background compilation).
 */
public final class SampleBenchmark implements Benchmark {

    static final List<Integer> DEFAULT_FANOUTS = List.of(25, 10);
    private static final int BATCH = 1024;
    private static final int WARMUP_BATCHES = 50;
    private static final int BASELINE_BATCHES = 20;

    @Override
    public String name() {
        return "sample";
    }

    @Override
    public String description() {
        return "sampled edges/s and batches/s of the Flink sampling loop (fanouts 25,10, batch"
                + " 1024) vs an in-memory CSR sampler";
    }

    @Override
    public List<BenchResult> run(BenchContext context) throws Exception {
        int repeat = context.repeatOr(defaultRepeat());
        List<Integer> fanoutList = context.fanoutsOr(DEFAULT_FANOUTS);
        int prefetch = context.prefetchOr(SamplingOptions.PREFETCH.defaultValue());
        MemorySize featureCache = context.featureCacheOr(ModelOptions.FEATURE_CACHE.defaultValue());
        int warmup = context.warmupOr(StreamingRuns.DEFAULT_WARMUP_WINDOWS);
        List<BenchResult> results = new ArrayList<>();
        try (BenchData data = BenchData.prepare(context, IngestBenchmark.DEFAULT_GRAPH, 2)) {
            InMemorySampler csr =
                    InMemorySampler.load(
                            data.dir, Math.toIntExact(data.info.nodes()), data.info.featureDim());
            int[] fanouts = fanoutList.stream().mapToInt(Integer::intValue).toArray();
            for (int b = 0; b < WARMUP_BATCHES; b++) {
                csr.sample(b, BATCH, fanouts, new float[1][]);
            }
            double[] csrEdges = new double[2 * repeat];
            double[] csrBatches = new double[2 * repeat];
            measureBaseline(csr, fanouts, 0, repeat, csrEdges, csrBatches);
            List<List<JsonNode>> runs = new ArrayList<>();
            List<Integer> parallelisms = context.threadsOr(List.of(1, 2));
            List<PlacementCases.Case> cases = PlacementCases.of(context).cases();
            for (int parallelism : parallelisms) {
                for (PlacementCases.Case c : cases) {
                    context.log().println("parallelism " + parallelism + ", " + c.label());
                    runs.add(
                            StreamingRuns.steadyWindows(
                                    data,
                                    parallelism,
                                    false,
                                    16,
                                    BATCH,
                                    fanoutList,
                                    prefetch,
                                    featureCache,
                                    warmup,
                                    repeat,
                                    context.log(),
                                    c.settings()));
                }
            }
            measureBaseline(csr, fanouts, repeat, 2 * repeat, csrEdges, csrBatches);
            context.log()
                    .printf(
                            "baseline batches/s: median %.0f before the streaming runs, %.0f"
                                    + " after%n",
                            Stats.of(Arrays.copyOfRange(csrBatches, 0, repeat)).median(),
                            Stats.of(Arrays.copyOfRange(csrBatches, repeat, 2 * repeat)).median());
            for (int i = 0; i < parallelisms.size(); i++) {
                int parallelism = parallelisms.get(i);
                List<Map<String, Object>> caseParams = new ArrayList<>();
                for (int k = 0; k < cases.size(); k++) {
                    List<JsonNode> windows = runs.get(i * cases.size() + k);
                    Map<String, Object> params = new LinkedHashMap<>(data.graphParams());
                    params.put("parallelism", parallelism);
                    params.put("fanouts", fanoutList);
                    params.put("prefetch", prefetch);
                    params.put("feature_cache_bytes", featureCache.getBytes());
                    params.put("batch_size", BATCH);
                    params.put("warmup_windows", warmup);
                    params.put("warmup_seconds", StreamingRuns.WARMUP_SECONDS);
                    params =
                            cases.size() > 1 ? PlacementCases.params(params, cases.get(k)) : params;
                    caseParams.add(params);
                    Map<String, Object> extra = Map.of("env", BenchContext.environment());
                    results.add(
                            new BenchResult(
                                    name(),
                                    params,
                                    "sampled edges/s",
                                    Stats.of(field(windows, "sampled_edges_per_s")),
                                    new Baseline(
                                            "in-memory CSR sampler + feature gather",
                                            Stats.of(csrEdges).median()),
                                    extra));
                    results.add(
                            new BenchResult(
                                    name(),
                                    params,
                                    "batches/s",
                                    Stats.of(field(windows, "batches_per_s")),
                                    new Baseline(
                                            "in-memory CSR sampler + feature gather",
                                            Stats.of(csrBatches).median()),
                                    extra));
                }
                if (cases.size() > 1) {
                    results.addAll(
                            PlacementCases.traffic(
                                    name(),
                                    cases,
                                    runs.subList(i * cases.size(), (i + 1) * cases.size()),
                                    caseParams));
                }
            }
        }
        return results;
    }

    /** Repeats {@code from..to-1} of the baseline, {@link #BASELINE_BATCHES} batches each. */
    private static void measureBaseline(
            InMemorySampler csr,
            int[] fanouts,
            int from,
            int to,
            double[] edgesPerS,
            double[] batchesPerS) {
        float[][] sink = new float[1][];
        for (int r = from; r < to; r++) {
            long started = System.nanoTime();
            long edges = 0;
            for (int b = 0; b < BASELINE_BATCHES; b++) {
                edges += csr.sample(1000L * (r + 1) + b, BATCH, fanouts, sink);
            }
            double seconds = (System.nanoTime() - started) / 1e9;
            edgesPerS[r] = edges / seconds;
            batchesPerS[r] = BASELINE_BATCHES / seconds;
        }
    }

    static double[] field(List<JsonNode> windows, String name) {
        return windows.stream().mapToDouble(w -> w.path(name).asDouble()).toArray();
    }
}

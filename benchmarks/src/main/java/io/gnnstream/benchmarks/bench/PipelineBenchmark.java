package io.gnnstream.benchmarks.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.gnnstream.jobs.ModelOptions;
import io.gnnstream.jobs.SamplingOptions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.MemorySize;

/**
 * {@code bench pipeline}: the full training job at steady state. The busy share is the fraction of
 * wall time the trainer computes instead of waiting for batches (its ratio is that share); the
 * end-to-end seeds/s is compared with the trainer's own seeds/s while busy on the same batches.
 * Fanouts 25,10 (a 2-layer model) unless {@code --fanouts}, whose length sets the layers; {@code
 * --prefetch} batches in flight.
 */
public final class PipelineBenchmark implements Benchmark {

    private static final int BATCH = 1024;
    private static final int HIDDEN = 256;

    @Override
    public String name() {
        return "pipeline";
    }

    @Override
    public String description() {
        return "full job: trainer busy share and end-to-end seeds/s (GraphSAGE, hidden 256, batch"
                + " 1024, fanouts 25,10)";
    }

    @Override
    public List<BenchResult> run(BenchContext context) throws Exception {
        int repeat = context.repeatOr(defaultRepeat());
        List<Integer> fanouts = context.fanoutsOr(SampleBenchmark.DEFAULT_FANOUTS);
        int prefetch = context.prefetchOr(SamplingOptions.PREFETCH.defaultValue());
        MemorySize featureCache = context.featureCacheOr(ModelOptions.FEATURE_CACHE.defaultValue());
        int warmup = context.warmupOr(StreamingRuns.DEFAULT_WARMUP_WINDOWS);
        List<BenchResult> results = new ArrayList<>();
        try (BenchData data = BenchData.prepare(context, IngestBenchmark.DEFAULT_GRAPH, 2)) {
            List<PlacementCases.Case> cases = PlacementCases.of(context).cases();
            for (int parallelism : context.threadsOr(List.of(1))) {
                List<List<JsonNode>> runs = new ArrayList<>();
                List<Map<String, Object>> caseParams = new ArrayList<>();
                for (PlacementCases.Case c : cases) {
                    context.log().println("parallelism " + parallelism + ", " + c.label());
                    List<JsonNode> windows =
                            StreamingRuns.steadyWindows(
                                    data,
                                    parallelism,
                                    true,
                                    HIDDEN,
                                    BATCH,
                                    fanouts,
                                    prefetch,
                                    featureCache,
                                    warmup,
                                    repeat,
                                    context.log(),
                                    c.settings());
                    runs.add(windows);
                    Map<String, Object> params = new LinkedHashMap<>(data.graphParams());
                    params.put("parallelism", parallelism);
                    params.put("fanouts", fanouts);
                    params.put("prefetch", prefetch);
                    params.put("feature_cache_bytes", featureCache.getBytes());
                    params.put("batch_size", BATCH);
                    params.put("hidden", HIDDEN);
                    params.put("warmup_windows", warmup);
                    params.put("warmup_seconds", StreamingRuns.WARMUP_SECONDS);
                    params = cases.size() > 1 ? PlacementCases.params(params, c) : params;
                    caseParams.add(params);
                    Stats busy = Stats.of(SampleBenchmark.field(windows, "busy"));
                    Stats trainer = Stats.of(SampleBenchmark.field(windows, "trainer_seeds_per_s"));
                    Map<String, Object> env = BenchContext.environment();
                    Map<String, Object> extra = new LinkedHashMap<>();
                    extra.put("target_busy", 0.85);
                    extra.put("env", env);
                    results.add(
                            new BenchResult(
                                    name(),
                                    params,
                                    "busy share",
                                    busy,
                                    new Baseline("trainer fully busy", 1.0),
                                    extra));
                    results.add(
                            new BenchResult(
                                    name(),
                                    params,
                                    "seeds/s",
                                    Stats.of(SampleBenchmark.field(windows, "seeds_per_s")),
                                    new Baseline(
                                            "trainer seeds/s while busy (train figure on the same"
                                                    + " batches)",
                                            trainer.median()),
                                    Map.of("env", env)));
                }
                if (cases.size() > 1) {
                    results.addAll(PlacementCases.traffic(name(), cases, runs, caseParams));
                }
            }
        }
        return results;
    }
}

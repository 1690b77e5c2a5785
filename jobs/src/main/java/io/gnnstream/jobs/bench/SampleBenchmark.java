package io.gnnstream.jobs.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.gnnstream.jobs.SamplingOptions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code bench sample}: sampled edges/s and mini-batches/s of the Flink sampling loop (fanouts 25,10
 * or {@code --fanouts}, batch 1024, features fetched, {@code --prefetch} batches in flight; the
 * trainer only acknowledges) at steady state, against the {@link InMemorySampler} with the same
 * fanouts over the same graph in the same JVM.
 */
public final class SampleBenchmark implements Benchmark {

    static final List<Integer> DEFAULT_FANOUTS = List.of(25, 10);
    private static final int BATCH = 1024;

    @Override
    public String name() {
        return "sample";
    }

    @Override
    public String description() {
        return "sampled edges/s and batches/s of the Flink sampling loop (fanouts 25,10, batch 1024) "
                + "vs an in-memory CSR sampler";
    }

    @Override
    public List<BenchResult> run(BenchContext context) throws Exception {
        int repeat = context.repeatOr(defaultRepeat());
        List<Integer> fanoutList = context.fanoutsOr(DEFAULT_FANOUTS);
        int prefetch = context.prefetchOr(SamplingOptions.PREFETCH.defaultValue());
        List<BenchResult> results = new ArrayList<>();
        try (BenchData data = BenchData.prepare(context, IngestBenchmark.DEFAULT_GRAPH, 2)) {
            InMemorySampler csr = InMemorySampler.load(data.dir, Math.toIntExact(data.info.nodes()),
                    data.info.featureDim());
            int[] fanouts = fanoutList.stream().mapToInt(Integer::intValue).toArray();
            float[][] sink = new float[1][];
            for (int b = 0; b < 5; b++) {
                csr.sample(b, BATCH, fanouts, sink);
            }
            double[] csrEdges = new double[repeat];
            double[] csrBatches = new double[repeat];
            int perRepeat = 20;
            for (int r = 0; r < repeat; r++) {
                long started = System.nanoTime();
                long edges = 0;
                for (int b = 0; b < perRepeat; b++) {
                    edges += csr.sample(1000L * (r + 1) + b, BATCH, fanouts, sink);
                }
                double seconds = (System.nanoTime() - started) / 1e9;
                csrEdges[r] = edges / seconds;
                csrBatches[r] = perRepeat / seconds;
            }
            for (int parallelism : context.threadsOr(List.of(1, 2))) {
                List<JsonNode> windows = StreamingRuns.steadyWindows(data, parallelism, false, 16, BATCH, fanoutList,
                        prefetch, repeat, context.log());
                Map<String, Object> params = new LinkedHashMap<>(data.graphParams());
                params.put("parallelism", parallelism);
                params.put("fanouts", fanoutList);
                params.put("prefetch", prefetch);
                params.put("batch_size", BATCH);
                Map<String, Object> extra = Map.of("env", BenchContext.environment());
                results.add(new BenchResult(name(), params, "sampled edges/s",
                        Stats.of(field(windows, "sampled_edges_per_s")),
                        new Baseline("in-memory CSR sampler + feature gather", Stats.of(csrEdges).median()), extra));
                results.add(new BenchResult(name(), params, "batches/s",
                        Stats.of(field(windows, "batches_per_s")),
                        new Baseline("in-memory CSR sampler + feature gather", Stats.of(csrBatches).median()), extra));
            }
        }
        return results;
    }

    static double[] field(List<JsonNode> windows, String name) {
        return windows.stream().mapToDouble(w -> w.path(name).asDouble()).toArray();
    }
}

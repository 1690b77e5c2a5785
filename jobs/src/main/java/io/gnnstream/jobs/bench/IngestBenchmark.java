package io.gnnstream.jobs.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code bench ingest}: edges/s from Kafka into the GraphStore's RocksDB state at parallelism 1 and 2,
 * against a plain consumer reading and parsing the same topic in the same invocation.
 */
public final class IngestBenchmark implements Benchmark {

    static final SyntheticSpec DEFAULT_GRAPH = new SyntheticSpec(100_000, 10, 128, 10);
    private static final int PARTITIONS = 128;

    @Override
    public String name() {
        return "ingest";
    }

    @Override
    public String description() {
        return "edges/s from Kafka into the GraphStore's RocksDB state (parallelism 1, 2) vs a plain KafkaConsumer";
    }

    @Override
    public List<BenchResult> run(BenchContext context) throws Exception {
        int repeat = context.repeatOr(defaultRepeat());
        List<BenchResult> results = new ArrayList<>();
        try (BenchData data = BenchData.prepare(context, DEFAULT_GRAPH, 2)) {
            String bootstrap = data.broker.bootstrapServers();
            long edges = data.info.edges();
            double[] plain = new double[repeat];
            for (int r = 0; r < repeat; r++) {
                plain[r] = IngestRates.plainConsumer(bootstrap, data.edgesTopic, edges);
                context.log().printf("  plain consumer run %d: %.0f edges/s%n", r + 1, plain[r]);
            }
            Baseline baseline = new Baseline("plain KafkaConsumer + EdgeFormat.parse", Stats.of(plain).median());
            for (int parallelism : context.threadsOr(List.of(1, 2))) {
                double[] rates = new double[repeat];
                for (int r = 0; r < repeat; r++) {
                    rates[r] = IngestRates.graphStore(bootstrap, data.edgesTopic, edges, parallelism, PARTITIONS,
                            data.info.featureDim());
                    context.log().printf("  graph store p=%d run %d: %.0f edges/s%n", parallelism, r + 1, rates[r]);
                }
                Map<String, Object> params = new LinkedHashMap<>(data.graphParams());
                params.put("parallelism", parallelism);
                params.put("partitions", PARTITIONS);
                params.put("state_backend", "rocksdb");
                results.add(new BenchResult(name(), params, "edges/s", Stats.of(rates), baseline));
            }
        }
        return results;
    }
}

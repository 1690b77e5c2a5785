package io.gnnstream.benchmarks.bench;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code bench ingest}: edges/s from Kafka into the GraphStore's RocksDB state at parallelism 1 and 2,
 * against a plain consumer reading and parsing the same topic in the same invocation, both timed
 * between 10 % and 90 % of the edges ({@link SteadyRate}) so that job start-up is not counted.
 *
 * <p>Per parallelism it also reports what a scaling study needs, measured in the same runs
 * ({@link IngestRates}):
 * <ul>
 *   <li>{@code peak RSS MiB}: the peak RSS of this JVM while the job runs (the Kafka broker, a child
 *       process, is not included; its own peak is the extra field {@code broker_peak_rss_mib});
 *       baseline: this JVM's RSS just before the job, so the ratio is the job's growth factor.
 *   <li>{@code RocksDB MiB}: the RocksDB files of all GraphStore subtasks once every edge is in
 *       state, after a flush (the files of the job's final checkpoint, which also hold a few hundred
 *       bytes of Kafka offsets); baseline: {@code edges.csv} on disk, the same edges as text.
 *   <li>{@code RocksDB bytes/edge}: the same bytes per edge; baseline: 16 bytes, two longs.
 * </ul>
 */
public final class IngestBenchmark implements Benchmark {

    static final SyntheticSpec DEFAULT_GRAPH = new SyntheticSpec(100_000, 10, 128, 10);
    private static final int PARTITIONS = 128;
    private static final double MIB = 1024.0 * 1024.0;
    private static final String WINDOW =
            Math.round(SteadyRate.FROM * 100) + "-" + Math.round(SteadyRate.TO * 100) + "%";

    @Override
    public String name() {
        return "ingest";
    }

    @Override
    public String description() {
        return "edges/s from Kafka into the GraphStore's RocksDB state (parallelism 1, 2) vs a plain KafkaConsumer; "
                + "peak RSS, RocksDB size and bytes/edge";
    }

    @Override
    public List<BenchResult> run(BenchContext context) throws Exception {
        if (!RssSampler.available()) {
            throw new IllegalStateException("bench ingest reads the peak RSS from /proc/<pid>/status (Linux only)");
        }
        int repeat = context.repeatOr(defaultRepeat());
        List<BenchResult> results = new ArrayList<>();
        try (BenchData data = BenchData.prepare(context, DEFAULT_GRAPH, 2)) {
            long edges = data.info.edges();
            double[] plain = new double[repeat];
            for (int r = 0; r < repeat; r++) {
                SteadyRate.Window w = IngestRates.plainConsumer(data.broker.bootstrapServers(), data.edgesTopic, edges);
                plain[r] = w.perSecond();
                context.log().printf("  plain consumer run %d: %.0f edges/s (%s)%n", r + 1, plain[r], w.describe());
            }
            Baseline baseline = new Baseline("plain KafkaConsumer + EdgeFormat.parse", Stats.of(plain).median(),
                    Map.of("window", WINDOW));
            double textMiB = Files.size(data.dir.resolve("edges.csv")) / MIB;
            for (String halo : context.haloOr(List.of("none"))) {
                for (int parallelism : context.threadsOr(List.of(1, 2))) {
                    double[] rates = new double[repeat];
                    double[] rss = new double[repeat];
                    double[] rssBefore = new double[repeat];
                    double[] brokerRss = new double[repeat];
                    double[] rocksDb = new double[repeat];
                    double[] perEdge = new double[repeat];
                    for (int r = 0; r < repeat; r++) {
                        IngestRates.GraphStoreRun run = IngestRates.graphStore(data, parallelism, PARTITIONS,
                                halo.equals("features"));
                        rates[r] = run.rate().perSecond();
                        rss[r] = run.peakRssBytes() / MIB;
                        rssBefore[r] = run.rssBeforeBytes() / MIB;
                        brokerRss[r] = run.brokerPeakRssBytes() / MIB;
                        rocksDb[r] = run.rocksDbBytes() / MIB;
                        perEdge[r] = (double) run.rocksDbBytes() / edges;
                        context.log().printf("  graph store p=%d halo %s run %d: %.0f edges/s (%s); peak RSS %.0f MiB "
                                        + "(%.0f before; broker %.0f), RocksDB %.2f MiB = %.1f bytes/edge%n",
                                parallelism, halo, r + 1, rates[r], run.rate().describe(), rss[r], rssBefore[r], brokerRss[r],
                                rocksDb[r], perEdge[r]);
                    }
                    Map<String, Object> params = new LinkedHashMap<>(data.graphParams());
                    params.put("parallelism", parallelism);
                    params.put("partitions", PARTITIONS);
                    if (context.halo() != null) {
                        params.put("halo", halo);
                    }
                    params.put("state_backend", "rocksdb");
                    params.put("window", WINDOW);
                    params.put("stats_interval_ms", IngestRates.STATS_INTERVAL_MS);
                    params.put("edge_buffer", IngestRates.edgeBuffer(data.info.edges()));
                    results.add(new BenchResult(name(), params, "edges/s", Stats.of(rates), baseline));
                    results.add(new BenchResult(name(), params, "peak RSS MiB", Stats.of(rss),
                            new Baseline("this JVM's RSS before the job", Stats.of(rssBefore).median()),
                            Map.of("broker_peak_rss_mib", round1(Stats.of(brokerRss).median()),
                                    "env", BenchContext.environment())));
                    results.add(new BenchResult(name(), params, "RocksDB MiB", Stats.of(rocksDb),
                            new Baseline("edges.csv on disk", textMiB)));
                    results.add(new BenchResult(name(), params, "RocksDB bytes/edge", Stats.of(perEdge),
                            new Baseline("two longs", 16)));
                }
            }
        }
        return results;
    }

    private static double round1(double v) {
        return Math.round(v * 10) / 10.0;
    }
}

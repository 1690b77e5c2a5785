package io.gnnstream.benchmarks.bench;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code bench ingest}: edges/s from Kafka into the GraphStore's RocksDB state at parallelism 1 and
 * 2, and at parallelism 1 with what {@code --prediction-updates incremental} keeps from the start
 * (the out-edge indexes), against a plain consumer reading and parsing the same topic in the same
 * invocation, both timed between 10 % and 90 % of the edges ({@link SteadyRate}) so that job
 * start-up is not counted. After one untimed run of each side, the runs go round by round (the
 * consumer, then every halo setting and parallelism), so that JIT warm-up favours no case.
 *
 * <p>Per parallelism it also reports what a scaling study needs, measured in the same runs ({@link
 * IngestRates}):
 *
 * <ul>
 *   <li>{@code peak RSS MiB}: the peak RSS of this JVM while the job runs (the Kafka broker, a
 *       child process, is not included; its own peak is the extra field {@code
 *       broker_peak_rss_mib}); baseline: this JVM's RSS just before the job, so the ratio is the
 *       job's growth factor.
 *   <li>{@code RocksDB MiB}: the RocksDB files of all GraphStore subtasks once every edge is in
 *       state, after a flush (the files of the job's final checkpoint, which also hold a few
 *       hundred bytes of Kafka offsets); baseline: {@code edges.csv} on disk, the same edges as
 *       text.
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
        return "edges/s from Kafka into the GraphStore's RocksDB state (parallelism 1, 2) vs a"
                + " plain KafkaConsumer; peak RSS, RocksDB size and bytes/edge";
    }

    @Override
    public List<BenchResult> run(BenchContext context) throws Exception {
        if (!RssSampler.available()) {
            throw new IllegalStateException(
                    "bench ingest reads the peak RSS from /proc/<pid>/status (Linux only)");
        }
        int repeat = context.repeatOr(defaultRepeat());
        List<BenchResult> results = new ArrayList<>();
        try (BenchData data = BenchData.prepare(context, DEFAULT_GRAPH, 2)) {
            long edges = data.info.edges();
            List<Case> cases = new ArrayList<>();
            for (String halo : context.haloOr(List.of("none"))) {
                for (int parallelism : context.threadsOr(List.of(1, 2))) {
                    cases.add(new Case(halo, parallelism, false, repeat));
                }
            }
            // What incremental predictions keep from the start, at the parallelism they run at.
            cases.add(new Case("none", 1, true, repeat));
            // One untimed run of each side first (class loading, JIT, the broker's page cache),
            // then
            // the runs interleaved round by round, so that every case sees the JVM in the same
            // state.
            IngestRates.plainConsumer(data.broker.bootstrapServers(), data.edgesTopic, edges);
            IngestRates.graphStore(
                    data,
                    cases.get(0).parallelism,
                    PARTITIONS,
                    cases.get(0).halo.equals("features"),
                    false);
            context.log().printf("  warm-up runs done%n");
            double[] plain = new double[repeat];
            for (int r = 0; r < repeat; r++) {
                SteadyRate.Window w =
                        IngestRates.plainConsumer(
                                data.broker.bootstrapServers(), data.edgesTopic, edges);
                plain[r] = w.perSecond();
                context.log()
                        .printf(
                                "  plain consumer run %d: %.0f edges/s (%s)%n",
                                r + 1, plain[r], w.describe());
                for (Case c : cases) {
                    IngestRates.GraphStoreRun run =
                            IngestRates.graphStore(
                                    data,
                                    c.parallelism,
                                    PARTITIONS,
                                    c.halo.equals("features"),
                                    c.incremental);
                    c.record(r, run, edges);
                    context.log()
                            .printf(
                                    "  graph store p=%d halo %s%s run %d: %.0f edges/s (%s); peak"
                                        + " RSS %.0f MiB (%.0f before; broker %.0f), RocksDB %.2f"
                                        + " MiB = %.1f bytes/edge%n",
                                    c.parallelism,
                                    c.halo,
                                    c.incremental ? " incremental" : "",
                                    r + 1,
                                    c.rates[r],
                                    run.rate().describe(),
                                    c.rss[r],
                                    c.rssBefore[r],
                                    c.brokerRss[r],
                                    c.rocksDb[r],
                                    c.perEdge[r]);
                }
            }
            Baseline baseline =
                    new Baseline(
                            "plain KafkaConsumer + EdgeFormat.parse",
                            Stats.of(plain).median(),
                            Map.of("window", WINDOW));
            double textMiB = Files.size(data.dir.resolve("edges.csv")) / MIB;
            for (Case c : cases) {
                Map<String, Object> params = new LinkedHashMap<>(data.graphParams());
                if (context.removals() != null) {
                    params.put("removal_share", context.removals());
                }
                params.put("parallelism", c.parallelism);
                params.put("partitions", PARTITIONS);
                if (context.halo() != null) {
                    params.put("halo", c.halo);
                }
                params.put("prediction_updates", c.incremental ? "incremental" : "rounds");
                params.put("state_backend", "rocksdb");
                params.put("window", WINDOW);
                params.put("stats_interval_ms", IngestRates.STATS_INTERVAL_MS);
                params.put("edge_buffer", IngestRates.edgeBuffer(data.info.edges()));
                results.add(
                        new BenchResult(name(), params, "edges/s", Stats.of(c.rates), baseline));
                results.add(
                        new BenchResult(
                                name(),
                                params,
                                "peak RSS MiB",
                                Stats.of(c.rss),
                                new Baseline(
                                        "this JVM's RSS before the job",
                                        Stats.of(c.rssBefore).median()),
                                Map.of(
                                        "broker_peak_rss_mib",
                                        round1(Stats.of(c.brokerRss).median()),
                                        "env",
                                        BenchContext.environment())));
                results.add(
                        new BenchResult(
                                name(),
                                params,
                                "RocksDB MiB",
                                Stats.of(c.rocksDb),
                                new Baseline("edges.csv on disk", textMiB)));
                results.add(
                        new BenchResult(
                                name(),
                                params,
                                "RocksDB bytes/edge",
                                Stats.of(c.perEdge),
                                new Baseline("two longs", 16)));
            }
        }
        return results;
    }

    /** One halo setting at one parallelism, with or without incremental predictions' indexes. */
    private static final class Case {
        final String halo;
        final int parallelism;
        final boolean incremental;
        final double[] rates;
        final double[] rss;
        final double[] rssBefore;
        final double[] brokerRss;
        final double[] rocksDb;
        final double[] perEdge;

        Case(String halo, int parallelism, boolean incremental, int repeat) {
            this.halo = halo;
            this.parallelism = parallelism;
            this.incremental = incremental;
            this.rates = new double[repeat];
            this.rss = new double[repeat];
            this.rssBefore = new double[repeat];
            this.brokerRss = new double[repeat];
            this.rocksDb = new double[repeat];
            this.perEdge = new double[repeat];
        }

        void record(int r, IngestRates.GraphStoreRun run, long edges) {
            rates[r] = run.rate().perSecond();
            rss[r] = run.peakRssBytes() / MIB;
            rssBefore[r] = run.rssBeforeBytes() / MIB;
            brokerRss[r] = run.brokerPeakRssBytes() / MIB;
            rocksDb[r] = run.rocksDbBytes() / MIB;
            perEdge[r] = (double) run.rocksDbBytes() / edges;
        }
    }

    private static double round1(double v) {
        return Math.round(v * 10) / 10.0;
    }
}

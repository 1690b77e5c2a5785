package io.gnnstream.benchmarks.bench;

import io.gnnstream.operators.GraphStoreConfig;
import io.gnnstream.operators.GraphStoreOperator;
import io.gnnstream.operators.messages.GraphStoreInput;
import io.gnnstream.operators.messages.GraphUpdate;
import io.gnnstream.operators.messages.SampleResponse;
import io.gnnstream.operators.messages.VertexDeletion;
import io.gnnstream.operators.store.OutEdgeIndex;
import io.gnnstream.state.HashPartitioner;
import io.gnnstream.state.InAdjacency;
import io.gnnstream.state.VertexKey;
import io.gnnstream.state.VertexKeyTypeInfo;
import io.gnnstream.state.VertexPartitioner;
import io.gnnstream.state.records.EdgeUpdate;
import io.gnnstream.state.records.NodeUpdate;
import io.gnnstream.state.records.Split;
import io.gnnstream.tools.Directories;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.contrib.streaming.state.RocksDBKeyedStateBackend;
import org.apache.flink.runtime.state.storage.FileSystemCheckpointStorage;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;

/**
 * The cost of graph changes in one GraphStore on RocksDB (the operator in Flink's test harness,
 * parallelism 1, 128 hash partitions): edge ingestion before and after the out-edge index is built
 * (the baseline: without it), the index build at the first deletion, a deletion's time against the
 * degree of the deleted vertex (hubs with {@code d} in- and {@code d} out-edges), and the RocksDB
 * files after deleting half of the vertices, before and after RocksDB compacts them.
 */
public final class DeleteBenchmark implements Benchmark {

    private static final int PARTITIONS = 128;
    private static final int FEATURES = 16;
    private static final int[] DEGREES = {10, 100, 1_000, 10_000, 100_000};
    private static final double MIB = 1024.0 * 1024.0;

    @Override
    public String name() {
        return "delete";
    }

    @Override
    public String description() {
        return "graph changes in the GraphStore on RocksDB: ingestion with the out-edge index vs"
                + " without, the index build, deletion time by degree, space after deletions";
    }

    @Override
    public List<BenchResult> run(BenchContext context) throws Exception {
        SyntheticSpec spec =
                context.synthetic() != null
                        ? context.synthetic()
                        : new SyntheticSpec(200_000, 10, FEATURES, 10);
        int n = Math.toIntExact(spec.nodes());
        long edges = spec.nodes() * spec.degree();
        VertexPartitioner partitioner = new HashPartitioner(PARTITIONS);
        Path dir = BenchData.WORK.resolve("delete-rocksdb");
        Directories.deleteRecursively(dir);
        Files.createDirectories(dir);
        List<BenchResult> results = new ArrayList<>();
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("vertices", n);
        params.put("edges", 2 * edges);
        params.put("partitions", PARTITIONS);
        params.put("state_backend", "rocksdb");
        SplittableRandom random = new SplittableRandom(7);
        try (var h = harness(partitioner, dir)) {
            h.open();
            for (int v = 0; v < n; v++) {
                node(h, v);
            }
            double plain = ingest(h, random, n, edges);
            context.log()
                    .printf("  %d edges without the out-edge index: %.0f edges/s%n", edges, plain);
            long built = System.nanoTime();
            delete(h, n - 1L);
            double buildSeconds = (System.nanoTime() - built) / 1e9;
            context.log().printf("  first deletion, building the index: %.2f s%n", buildSeconds);
            double indexed = ingest(h, random, n, edges);
            context.log().printf("  %d edges with the index: %.0f edges/s%n", edges, indexed);
            results.add(
                    new BenchResult(
                            name(),
                            withFigure(params, "ingest_with_out_edge_index"),
                            "edges/s",
                            Stats.of(indexed),
                            new Baseline("the same GraphStore before the index is built", plain)));
            results.add(
                    new BenchResult(
                            name(),
                            withFigure(params, "index_build_at_first_deletion"),
                            "s",
                            Stats.of(buildSeconds),
                            null));
            long hub = n;
            for (int d : DEGREES) {
                for (int i = 0; i < d; i++) {
                    edge(h, hub, random.nextInt(n - 1));
                    edge(h, random.nextInt(n - 1), hub);
                }
                node(h, hub);
                request(h, hub); // writes the edge buffer
                long start = System.nanoTime();
                delete(h, hub);
                double ms = (System.nanoTime() - start) / 1e6;
                context.log()
                        .printf("  deleting a vertex of in- and out-degree %d: %.2f ms%n", d, ms);
                Map<String, Object> p = withFigure(params, "deletion_ms");
                p.put("degree", d);
                results.add(new BenchResult(name(), p, "ms", Stats.of(ms), null));
                hub++;
            }
            h.snapshot(1, 1);
            double before = size(dir);
            long start = System.nanoTime();
            for (int v = 0; v < n - 1; v += 2) {
                delete(h, v);
            }
            double perDeletion = (System.nanoTime() - start) / 1e6 / (n / 2.0);
            h.snapshot(2, 2);
            double after = size(dir);
            Thread.sleep(5_000);
            double settled = size(dir);
            // A live stream goes on: as new edges flush and compact, RocksDB's compactions drop the
            // deleted entries they rewrite.
            for (int round = 0; round < 3; round++) {
                ingest(h, random, n, edges);
                h.snapshot(3 + round, 3 + round);
            }
            double streamedOn = size(dir);
            RocksDBKeyedStateBackend<?> backend =
                    (RocksDBKeyedStateBackend<?>) h.getOperator().getKeyedStateBackend();
            for (StateDescriptor<?, ?> d :
                    List.of(
                            InAdjacency.TAIL,
                            InAdjacency.BLOCKS,
                            InAdjacency.SLOTS,
                            OutEdgeIndex.STATE,
                            GraphStoreOperator.ATTRIBUTES)) {
                backend.compactState(d);
            }
            double compacted = size(dir);
            context.log()
                    .printf(
                            "  half of the vertices deleted (%.3f ms each): RocksDB %.1f MiB"
                                    + " before, %.1f after, %.1f 5 s later, %.1f after %d more"
                                    + " edges, %.1f compacted%n",
                            perDeletion, before, after, settled, streamedOn, 3 * edges, compacted);
            results.add(
                    new BenchResult(
                            name(),
                            withFigure(params, "mass_deletion_ms_per_vertex"),
                            "ms",
                            Stats.of(perDeletion),
                            null));
            Map<String, Object> space = withFigure(params, "rocksdb_mib_after_half_deleted");
            space.put("after_5s", Math.round(settled * 10) / 10.0);
            space.put("after_more_edges", Math.round(streamedOn * 10) / 10.0);
            space.put("after_compaction", Math.round(compacted * 10) / 10.0);
            results.add(
                    new BenchResult(
                            name(),
                            space,
                            "MiB",
                            Stats.of(after),
                            new Baseline("before the deletions", before)));
        } finally {
            Directories.deleteRecursively(dir);
        }
        return results;
    }

    private static Map<String, Object> withFigure(Map<String, Object> params, String figure) {
        Map<String, Object> p = new LinkedHashMap<>(params);
        p.put("figure", figure);
        return p;
    }

    /** Adds {@code edges} random edges among the first {@code n - 1} vertices; edges/s. */
    private static double ingest(
            KeyedOneInputStreamOperatorTestHarness<VertexKey, GraphStoreInput, SampleResponse> h,
            SplittableRandom random,
            int n,
            long edges)
            throws Exception {
        long start = System.nanoTime();
        for (long i = 0; i < edges; i++) {
            edge(h, random.nextInt(n - 1), random.nextInt(n - 1));
        }
        request(h, 0); // writes the edge buffer
        return edges / ((System.nanoTime() - start) / 1e9);
    }

    private static void node(
            KeyedOneInputStreamOperatorTestHarness<VertexKey, GraphStoreInput, SampleResponse> h,
            long v)
            throws Exception {
        h.processElement(
                new StreamRecord<>(
                        GraphStoreInput.of(
                                GraphUpdate.of(
                                        new NodeUpdate(v, new float[FEATURES], 0, Split.TRAIN)))));
    }

    private static void edge(
            KeyedOneInputStreamOperatorTestHarness<VertexKey, GraphStoreInput, SampleResponse> h,
            long src,
            long dst)
            throws Exception {
        h.processElement(
                new StreamRecord<>(
                        GraphStoreInput.of(
                                GraphUpdate.of(
                                        new EdgeUpdate(
                                                src, dst, false, EdgeUpdate.NO_TIMESTAMP)))));
    }

    private static void delete(
            KeyedOneInputStreamOperatorTestHarness<VertexKey, GraphStoreInput, SampleResponse> h,
            long v)
            throws Exception {
        h.processElement(new StreamRecord<>(GraphStoreInput.of(new VertexDeletion(v, 0))));
    }

    /** A request that samples {@code v}: the GraphStore writes its edge buffer first. */
    private static void request(
            KeyedOneInputStreamOperatorTestHarness<VertexKey, GraphStoreInput, SampleResponse> h,
            long v)
            throws Exception {
        h.processElement(
                new StreamRecord<>(
                        GraphStoreInput.of(
                                io.gnnstream.operators.messages.SampleRequest.sampleOnly(
                                        1, 1, 1, 0, 0, 1, new long[] {v}))));
        h.getOutput().clear();
    }

    private static KeyedOneInputStreamOperatorTestHarness<
                    VertexKey, GraphStoreInput, SampleResponse>
            harness(VertexPartitioner partitioner, Path dir) throws Exception {
        EmbeddedRocksDBStateBackend rocksDb = new EmbeddedRocksDBStateBackend(true);
        rocksDb.getMemoryConfiguration().setUseManagedMemory(false);
        rocksDb.setDbStoragePath(dir.toAbsolutePath().toString());
        var h =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new GraphStoreOperator(
                                partitioner,
                                new GraphStoreConfig(
                                        42L, FEATURES, 1000L, 64L << 20, 256L << 20, 131_072, 0)),
                        in -> in.storeKey(partitioner),
                        VertexKeyTypeInfo.INSTANCE,
                        PARTITIONS,
                        1,
                        0);
        h.setStateBackend(rocksDb);
        h.setCheckpointStorage(
                new FileSystemCheckpointStorage(
                        dir.resolve("checkpoints").toAbsolutePath().toUri()));
        return h;
    }

    /** The size of the RocksDB files under {@code dir}, in MiB. */
    private static double size(Path dir) throws Exception {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile)
                            .filter(f -> !f.toString().contains("checkpoints"))
                            .filter(f -> f.toString().endsWith(".sst"))
                            .mapToLong(
                                    f -> {
                                        try {
                                            return Files.size(f);
                                        } catch (java.io.IOException e) {
                                            return 0;
                                        }
                                    })
                            .sum()
                    / MIB;
        }
    }
}

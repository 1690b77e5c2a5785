package io.gnnstream.operators;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.carrotsearch.hppc.LongArrayList;
import io.gnnstream.operators.internal.TrainerFeatureCache;
import io.gnnstream.operators.messages.EdgeBundle;
import io.gnnstream.operators.messages.GraphEvent;
import io.gnnstream.operators.messages.GraphStoreInput;
import io.gnnstream.operators.messages.GraphUpdate;
import io.gnnstream.operators.messages.LayerOutputs;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.messages.SampleRequest;
import io.gnnstream.operators.messages.SampleResponse;
import io.gnnstream.operators.serialization.MiniBatchPartSerializer;
import io.gnnstream.state.HashPartitioner;
import io.gnnstream.state.InAdjacency;
import io.gnnstream.state.LayerOutputRecord;
import io.gnnstream.state.VertexKey;
import io.gnnstream.state.VertexKeyTypeInfo;
import io.gnnstream.state.VertexPartitioner;
import io.gnnstream.state.records.EdgeUpdate;
import io.gnnstream.state.records.NodeUpdate;
import io.gnnstream.state.records.Split;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.LongPredicate;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The GraphStore through Flink's keyed two-input harness, on the RocksDB and the heap backend. */
@Timeout(120)
class GraphStoreOperatorTest {

    /**
     * Key groups of the harness; the graph itself is one logical partition so requests stay simple.
     */
    private static final int MAX_PARALLELISM = 8;

    private static final int DIM = 3;
    private static final VertexPartitioner PARTITIONER = new HashPartitioner(1);

    @ParameterizedTest
    @ValueSource(strings = {"rocksdb", "heap"})
    void storesAttributesAndAdjacencyAndAnswersRequests(String backend) throws Exception {
        try (var h = harness(backend)) {
            h.open();
            node(h, 1, 2, Split.TRAIN);
            node(h, 2, 0, Split.NONE);
            edge(h, 2, 1, false);
            edge(h, 3, 1, false);
            edge(h, 2, 1, false);
            edge(h, 4, 1, false);
            SampleResponse all = request(h, 7, 1, -1, new long[] {1}, new long[] {1, 2, 99});
            assertArrayEquals(
                    new int[] {3}, all.neighbourCounts, "duplicate edge must not be stored twice");
            assertArrayEquals(new long[] {2, 3, 4}, all.neighbours);
            MiniBatchPart rows = lastFeatures(h);
            assertEquals(7, rows.batchId);
            assertEquals(107, rows.seq, "addressed to the batch's place in the trainer's sequence");
            assertArrayEquals(new int[] {0, 1, 2}, rows.rows);
            assertArrayEquals(new int[] {2, 0, NodeUpdate.NO_LABEL}, rows.labels);
            assertArrayEquals(new float[] {1, 1, 1, 2, 2, 2, 0, 0, 0}, floats(rows.features));

            node(h, 2, 1, Split.NONE, 5f);
            request(h, 8, 1, 0, new long[0], new long[] {2});
            assertArrayEquals(
                    new float[] {5, 5, 5},
                    floats(lastFeatures(h).features),
                    "a node update must replace the cached record");

            edge(h, 2, 1, true);
            int featureParts = h.getSideOutput(GraphStoreOperator.FEATURES).size();
            SampleResponse afterRemove = request(h, 7, 1, -1, new long[] {1}, new long[0]);
            assertEquals(Set.of(3L, 4L), toSet(afterRemove.neighbours));
            assertEquals(
                    featureParts,
                    h.getSideOutput(GraphStoreOperator.FEATURES).size(),
                    "no feature part for a request without feature vertices");

            List<GraphEvent> seeds =
                    h.getSideOutput(GraphStoreOperator.EVENTS).stream()
                            .map(StreamRecord::getValue)
                            .filter(e -> e.kind == GraphEvent.Kind.SEED)
                            .collect(Collectors.toList());
            // A vertex's first attributes are announced (also without a split); a later update only
            // when its split changes.
            assertEquals(2, seeds.size());
            assertEquals(1L, seeds.get(0).vertex);
            assertEquals(Split.TRAIN, seeds.get(0).split);
            assertEquals(2L, seeds.get(1).vertex);
            assertEquals(Split.NONE, seeds.get(1).split);
        }
    }

    /**
     * Additions and removals wait in the edge buffer together and are applied per vertex in arrival
     * order, for vertices of every size (all in the tail, crossing into blocks, indexed): the
     * stored lists equal a reference that applies each operation as it comes.
     */
    @ParameterizedTest
    @ValueSource(strings = {"rocksdb", "heap"})
    void bufferedRemovalsApplyInArrivalOrder(String backend) throws Exception {
        SplittableRandom random = new SplittableRandom(11);
        List<Set<Long>> reference = new ArrayList<>();
        for (int v = 0; v < 4; v++) {
            reference.add(new HashSet<>());
        }
        try (var h = harness(backend, 37, 1 << 20, 0)) {
            h.open();
            for (int i = 0; i < 3000; i++) {
                int dst = random.nextInt(4);
                // Vertex 3 stays small, vertex 0 grows past a block, the others in between.
                long src = random.nextLong(dst == 3 ? 20 : dst == 0 ? 400 : 90);
                boolean remove = random.nextInt(dst == 0 ? 4 : 2) == 0;
                edge(h, src, dst + 100, remove);
                if (remove) {
                    reference.get(dst).remove(src);
                } else {
                    reference.get(dst).add(src);
                }
                if (i % 500 == 499) {
                    SampleResponse all =
                            request(h, i, 1, -1, new long[] {100, 101, 102, 103}, new long[0]);
                    int at = 0;
                    for (int v = 0; v < 4; v++) {
                        Set<Long> stored = new HashSet<>();
                        for (int k = 0; k < all.neighbourCounts[v]; k++) {
                            stored.add(all.neighbours[at++]);
                        }
                        assertEquals(reference.get(v), stored, "in-neighbours of " + (v + 100));
                        assertEquals(
                                reference.get(v).size(),
                                all.neighbourCounts[v],
                                "no neighbour twice");
                    }
                }
            }
        }
    }

    /**
     * The layer-output store: stored outputs are acknowledged to the scheduler, served to the next
     * layer's requests of the same round with the vertex's label, survive a checkpoint, and a row
     * of another round (or none) goes out as zeros, marked absent.
     */
    @ParameterizedTest
    @ValueSource(strings = {"rocksdb", "heap"})
    void storesLayerOutputsAndServesThemToTheNextLayer(String backend) throws Exception {
        OperatorSubtaskState snapshot;
        try (var h = harness(backend)) {
            h.open();
            node(h, 1, 2, Split.VAL);
            node(h, 2, 0, Split.NONE);
            LayerOutputs o = new LayerOutputs();
            o.step = 40;
            o.layer = 1;
            o.roundIndex = 3;
            o.part = 1;
            o.parts = 2;
            o.route = 0;
            o.dim = 2;
            o.vertices = new long[] {1, 2};
            o.values = new float[] {0.5f, 1.5f, 2.5f, 3.5f};
            h.processElement(new StreamRecord<>(GraphStoreInput.of(o)));
            GraphEvent ack =
                    h.getSideOutput(GraphStoreOperator.EVENTS).stream()
                            .map(StreamRecord::getValue)
                            .filter(e -> e.kind == GraphEvent.Kind.LAYER_WRITTEN)
                            .findFirst()
                            .orElseThrow();
            assertEquals(40, ack.step);
            assertEquals(3, ack.roundIndex);
            assertEquals(1, ack.part);
            assertEquals(2, ack.parts);
            snapshot = h.snapshot(1, 1);
        }
        try (var h = harness(backend)) {
            h.initializeState(snapshot);
            h.open();
            MiniBatchPart rows = layerRows(h, 40, new long[] {2, 1, 99});
            assertEquals(2, rows.rowDim);
            assertArrayEquals(new int[] {0, 1, 2}, rows.rows);
            assertArrayEquals(new int[] {0, 2, MiniBatch.ABSENT}, rows.labels, "99 has no row");
            assertArrayEquals(new float[] {2.5f, 3.5f, 0.5f, 1.5f, 0, 0}, floats(rows.features));
            MiniBatchPart stale = layerRows(h, 41, new long[] {1});
            assertArrayEquals(
                    new float[] {0, 0},
                    floats(stale.features),
                    "an output of another round is not served");
            assertArrayEquals(new int[] {MiniBatch.ABSENT}, stale.labels);
        }
    }

    /**
     * Rows pass through the layer-row cache as they are written and read: the next layer's reads of
     * the same round come from the heap, a newer round's write replaces the cached row, and a row
     * of another round is never served from the cache; without a cache every read is RocksDB's.
     */
    @ParameterizedTest
    @ValueSource(longs = {0, 4096})
    void theLayerRowCacheServesTheRoundsRowsAndNeverAnotherRounds(long cacheBytes)
            throws Exception {
        try (var h = harness("rocksdb", 1000, cacheBytes)) {
            h.open();
            node(h, 1, 2, Split.VAL);
            node(h, 2, 0, Split.NONE);
            h.processElement(new StreamRecord<>(GraphStoreInput.of(outputs(40, 1, 2, 1f))));
            assertArrayEquals(
                    new float[] {1, 1, 2, 2}, floats(layerRows(h, 40, new long[] {1, 2}).features));
            h.processElement(new StreamRecord<>(GraphStoreInput.of(outputs(41, 1, 1, 7f))));
            assertArrayEquals(
                    new float[] {7, 7, 0, 0},
                    floats(layerRows(h, 41, new long[] {1, 2}).features),
                    "vertex 1 of round 41, vertex 2 only of round 40");
            assertArrayEquals(
                    new float[] {0, 0}, floats(layerRows(h, 40, new long[] {1}).features));
            assertEquals(
                    cacheBytes == 0 ? 0 : 3,
                    ((GraphStoreOperator) h.getOperator()).store().layerOutputs().cacheHits(),
                    "rows 1 and 2 of round 40 and row 1 of round 41 from the heap");
        }
    }

    /**
     * With a root width, a row's leading floats are kept apart and served only to the rows of a
     * request that are destinations of its block; the other rows get zeros there.
     */
    @ParameterizedTest
    @ValueSource(strings = {"rocksdb", "heap"})
    void theRootPartOfARowGoesOnlyToDestinations(String backend) throws Exception {
        try (var h = harness(backend, PARTITIONER, rootWidthOne())) {
            h.open();
            node(h, 1, 2, Split.VAL);
            node(h, 2, 0, Split.NONE);
            h.processElement(new StreamRecord<>(GraphStoreInput.of(outputs(40, 1, 2, 1f))));
            SampleRequest request = layerRequest(40, 2, 0, new long[0], new long[] {1, 2}, 1);
            h.processElement(new StreamRecord<>(GraphStoreInput.of(request)));
            MiniBatchPart part = lastFeatures(h);
            assertArrayEquals(new float[] {1, 1, 0, 2}, floats(part.features));
            assertArrayEquals(new int[] {2, 0}, part.labels);
        }
    }

    /**
     * A root part is served from the heap once (it leaves the cache when read; a repeated request
     * reads it from RocksDB, with the same values), and is cached only in the room the rest parts
     * leave in the budget: with a budget that two rest parts fill, every root part is RocksDB's.
     */
    @ParameterizedTest
    @ValueSource(longs = {4096, 2 * (LayerOutputRecord.HEADER_BYTES + Float.BYTES + 64)})
    void aRootPartComesFromTheHeapOnceAndOnlyInTheRoomTheRestPartsLeave(long cacheBytes)
            throws Exception {
        boolean roomForRoots = cacheBytes == 4096;
        try (var h =
                harness("rocksdb", PARTITIONER, rootWidthOne().withLayerRowCache(cacheBytes))) {
            h.open();
            node(h, 1, 2, Split.VAL);
            node(h, 2, 0, Split.NONE);
            h.processElement(new StreamRecord<>(GraphStoreInput.of(outputs(40, 1, 2, 1f))));
            GraphStoreOperator store = (GraphStoreOperator) h.getOperator();
            for (int attempt = 0; attempt < 2; attempt++) {
                SampleRequest request = layerRequest(40, 2, 0, new long[0], new long[] {1, 2}, 1);
                h.processElement(new StreamRecord<>(GraphStoreInput.of(request)));
                assertArrayEquals(
                        new float[] {1, 1, 0, 2},
                        floats(lastFeatures(h).features),
                        "attempt " + attempt);
            }
            assertEquals(
                    roomForRoots ? 5 : 4,
                    store.store().layerOutputs().cacheHits(),
                    "two rest parts per request from the heap, and the root part once if it fit");
        }
    }

    /**
     * A destination's sampled in-neighbours whose rows the subtask owns are summed into its root
     * part, divided by its degree, and counted in the response instead of listed; neighbours owned
     * elsewhere stay in the block for the trainer, which divides by the same degree.
     */
    @ParameterizedTest
    @ValueSource(strings = {"rocksdb", "heap"})
    void sumsADestinationsOwnedNeighboursIntoItsRootPart(String backend) throws Exception {
        VertexPartitioner partitions = new HashPartitioner(MAX_PARALLELISM);
        KeyGroupRange range =
                KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(MAX_PARALLELISM, 2, 0);
        LongPredicate owned =
                v ->
                        range.contains(
                                KeyGroupRangeAssignment.assignToKeyGroup(
                                        VertexKey.anchor(partitions.partition(v)),
                                        MAX_PARALLELISM));
        long[] mine = LongStream.range(1, 100).filter(owned).limit(3).toArray();
        long other = LongStream.range(1, 100).filter(owned.negate()).findFirst().orElseThrow();
        long d = mine[0];
        long a = mine[1];
        long b = mine[2];
        int route = partitions.partition(d);
        try (var h = harness(backend, partitions, rootWidthOne(), 2, 0)) {
            h.open();
            for (long v : mine) {
                node(h, v, 1, Split.TEST);
            }
            edge(h, a, d, false);
            edge(h, other, d, false);
            edge(h, b, d, false);
            LayerOutputs o = new LayerOutputs();
            o.step = 40;
            o.layer = 1;
            o.part = 0;
            o.parts = 1;
            o.route = route;
            o.dim = 2;
            o.vertices = new long[] {d, a, b};
            o.values = new float[] {1f, 2f, 10f, 20f, 30f, 40f};
            h.processElement(new StreamRecord<>(GraphStoreInput.of(o)));
            h.getOutput().clear();
            SampleRequest request = layerRequest(40, 1, route, new long[] {d}, new long[] {d}, 1);
            h.processElement(new StreamRecord<>(GraphStoreInput.of(request)));
            SampleResponse response = lastResponse(h);
            assertArrayEquals(new int[] {1}, response.neighbourCounts);
            assertArrayEquals(new long[] {other}, response.neighbours, "owned elsewhere");
            assertArrayEquals(new int[] {2}, response.summedCounts);
            assertEquals(
                    2, ((GraphStoreOperator) h.getOperator()).store().layerOutputs().summedRows());
            MiniBatchPart part = lastFeatures(h);
            assertArrayEquals(
                    new float[] {1f + (20f + 40f) / 3, 2f},
                    floats(part.features),
                    1e-6f,
                    "root plus the owned rest parts over the degree of 3; its own rest part");
        }
    }

    /** Layer 1's outputs of round {@code step} for vertices {@code 1..n}: row v is v * base. */
    private static LayerOutputs outputs(long step, int first, int n, float base) {
        LayerOutputs o = new LayerOutputs();
        o.step = step;
        o.layer = 1;
        o.part = 0;
        o.parts = 1;
        o.route = 0;
        o.dim = 2;
        o.vertices = new long[n];
        o.values = new float[2 * n];
        for (int i = 0; i < n; i++) {
            o.vertices[i] = first + i;
            o.values[2 * i] = (first + i) * base;
            o.values[2 * i + 1] = (first + i) * base;
        }
        return o;
    }

    private static MiniBatchPart layerRows(
            KeyedOneInputStreamOperatorTestHarness<VertexKey, GraphStoreInput, SampleResponse> h,
            long step,
            long[] vertices)
            throws Exception {
        h.processElement(
                new StreamRecord<>(
                        GraphStoreInput.of(layerRequest(step, 2, 0, new long[0], vertices, 0))));
        return lastFeatures(h);
    }

    /**
     * A request of a block reading layer 1's rows (2 floats) of round {@code step}: samples {@code
     * sample} at {@code hop} and fetches the rows of {@code features} into rows 0.., the first
     * {@code rootRows} of them destinations.
     */
    private static SampleRequest layerRequest(
            long step, int hop, int route, long[] sample, long[] features, int rootRows) {
        int[] rows = new int[features.length];
        Arrays.setAll(rows, i -> i);
        SampleRequest request =
                SampleRequest.sampleOnly(9, step, hop, route, 0, -1, sample)
                        .withFeatures(109, 0, 0, 0, features, rows);
        request.layerInput = 1;
        request.layerDim = 2;
        request.layerRootRows = rootRows;
        return request;
    }

    /** Settings whose layer-1 rows have a root part of one float, cached. */
    private static GraphStoreConfig rootWidthOne() {
        return new GraphStoreConfig(42L, DIM, 1000L, 4096, 4096, 1000, 0)
                .withLayerRowCache(4096)
                .withLayerRootWidths(1);
    }

    /**
     * A request names the vertices of all the partitions its subtask owns (its route), keyed by the
     * lowest of them: each vertex is read under its own partition's key.
     */
    @ParameterizedTest
    @ValueSource(strings = {"rocksdb", "heap"})
    void answersARequestSpanningThePartitionsOfItsSubtask(String backend) throws Exception {
        VertexPartitioner eight = new HashPartitioner(MAX_PARALLELISM);
        try (var h = harness(backend, eight, 1000, 0, 0)) {
            h.open();
            long[] vertices = LongStream.rangeClosed(1, 24).toArray();
            for (long v : vertices) {
                node(h, v, (int) v % 3, Split.TRAIN, v);
                edge(h, v + 100, v, false);
            }
            assertTrue(
                    Arrays.stream(vertices).mapToInt(eight::partition).distinct().count() > 4,
                    "several partitions");
            SampleResponse r = request(h, 1, 1, -1, vertices, vertices);
            assertArrayEquals(vertices, r.sampleVertices);
            assertArrayEquals(Arrays.stream(vertices).map(v -> v + 100).toArray(), r.neighbours);
            float[] features = floats(lastFeatures(h).features);
            for (int i = 0; i < vertices.length; i++) {
                assertEquals(vertices[i], features[i * DIM], "features of vertex " + vertices[i]);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"rocksdb", "heap"})
    void removingEveryNeighbourLeavesNoAdjacencyState(String backend) throws Exception {
        try (var h = harness(backend)) {
            h.open();
            for (long u = 1; u <= 200; u++) {
                edge(h, u, 0, false);
            }
            for (long u = 200; u >= 1; u--) {
                edge(h, u, 0, true);
            }
            assertEquals(0, request(h, 1, 1, -1, new long[] {0}, new long[0]).neighbours.length);
            AbstractStreamOperator<?> op = (AbstractStreamOperator<?>) h.getOperator();
            for (String state : new String[] {"adj-tail", "adj-blocks", "adj-slots"}) {
                try (Stream<Object> keys =
                        op.getKeyedStateBackend().getKeys(state, VoidNamespace.INSTANCE)) {
                    assertEquals(
                            0,
                            keys.count(),
                            state + " must be cleaned up when the last neighbour is removed");
                }
            }
        }
    }

    /**
     * A vertex loaded in one buffered flush checks duplicates against a scan and gets no
     * neighbour-to-slot index; a single insert into it (an index lookup) builds the index once, and
     * a delete then finds its slot there.
     */
    @ParameterizedTest
    @ValueSource(strings = {"rocksdb", "heap"})
    void indexesAVertexOnlyOnceAnInsertOrDeleteNeedsIt(String backend) throws Exception {
        try (var h = harness(backend)) {
            h.open();
            for (long u = 1; u <= 300; u++) {
                edge(h, u, 0, false);
            }
            edge(h, 7, 0, false);
            assertEquals(300, request(h, 1, 1, -1, new long[] {0}, new long[0]).neighbours.length);
            assertEquals(0, indexEntries(h), "a scanned flush must not write the index");

            edge(h, 301, 0, false);
            assertEquals(301, request(h, 2, 1, -1, new long[] {0}, new long[0]).neighbours.length);
            assertEquals(301, indexEntries(h), "a lookup builds the whole index");

            edge(h, 5, 0, true);
            edge(h, 999, 0, true);
            edge(h, 301, 0, false);
            Set<Long> expected = new HashSet<>();
            for (long u = 1; u <= 301; u++) {
                expected.add(u);
            }
            expected.remove(5L);
            assertEquals(
                    expected, toSet(request(h, 3, 1, -1, new long[] {0}, new long[0]).neighbours));
            assertEquals(300, indexEntries(h));
        }
    }

    /** Entries of the neighbour-to-slot index of the harness's single vertex. */
    private static long indexEntries(
            KeyedOneInputStreamOperatorTestHarness<VertexKey, GraphStoreInput, SampleResponse> h)
            throws Exception {
        AbstractStreamOperator<?> op = (AbstractStreamOperator<?>) h.getOperator();
        op.setCurrentKey(PARTITIONER.keyOf(0));
        long entries = 0;
        for (Object ignored :
                op.getKeyedStateBackend()
                        .getPartitionedState(
                                VoidNamespace.INSTANCE,
                                VoidNamespaceSerializer.INSTANCE,
                                InAdjacency.SLOTS)
                        .keys()) {
            entries++;
        }
        return entries;
    }

    /**
     * Random inserts and deletes around the tail and index boundaries, checked against a plain set;
     * with edges written one at a time, and buffered (duplicates and deletes of buffered edges
     * included); with the heap caches on (a stale cached adjacency would show here) and off.
     */
    @ParameterizedTest
    @CsvSource({
        "rocksdb, 1, 4096",
        "rocksdb, 7, 4096",
        "rocksdb, 1000, 4096",
        "rocksdb, 7, 0",
        "heap, 1, 4096",
        "heap, 1000, 0"
    })
    void matchesASetUnderRandomInsertsAndDeletes(String backend, int edgeBuffer, long cacheBytes)
            throws Exception {
        SplittableRandom random = new SplittableRandom(7);
        Set<Long> expected = new HashSet<>();
        try (var h = harness(backend, edgeBuffer, cacheBytes)) {
            h.open();
            for (int op = 0; op < 3_000; op++) {
                long u = 1 + random.nextInt(200);
                boolean remove =
                        expected.size() > 150 || (expected.size() > 40 && random.nextInt(3) == 0);
                edge(h, u, 0, remove);
                if (remove) {
                    expected.remove(u);
                } else {
                    expected.add(u);
                }
                if (op % 97 == 0) {
                    long[] all = request(h, op, 1, -1, new long[] {0}, new long[0]).neighbours;
                    assertEquals(expected.size(), all.length, "degree after " + op + " updates");
                    assertEquals(expected, toSet(all));
                    if (expected.size() > 10) {
                        long[] some = request(h, op, 2, 10, new long[] {0}, new long[0]).neighbours;
                        assertEquals(10, toSet(some).size());
                        assertTrue(expected.containsAll(toSet(some)));
                    }
                }
            }
        }
    }

    /**
     * Edges in bundles (as the job sends them) give the same graph as single edges: additions,
     * duplicates and removals into vertices of several partitions, the edge buffer flushing within
     * a bundle.
     */
    @ParameterizedTest
    @ValueSource(strings = {"rocksdb", "heap"})
    void bundledEdgesGiveTheSameGraphAsSingleEdges(String backend) throws Exception {
        VertexPartitioner eight = new HashPartitioner(MAX_PARALLELISM);
        SplittableRandom random = new SplittableRandom(11);
        try (var single = harness(backend, eight, 7, 4096, 0);
                var bundled = harness(backend, eight, 7, 4096, 0)) {
            single.open();
            bundled.open();
            List<Set<Long>> expected = new ArrayList<>();
            for (int d = 0; d < 6; d++) {
                expected.add(new HashSet<>());
            }
            LongArrayList sources = new LongArrayList();
            LongArrayList ops = new LongArrayList();
            for (int i = 0; i < 2_000; i++) {
                int d = random.nextInt(6);
                long u = 10 + random.nextInt(40);
                boolean remove = random.nextInt(3) == 0;
                edge(single, u, d, remove);
                sources.add(u);
                ops.add(EdgeBundle.op(d, remove));
                if (sources.size() == 13 || i == 1_999) {
                    bundled.processElement(
                            new StreamRecord<>(
                                    GraphStoreInput.of(
                                            new EdgeBundle(0, sources.toArray(), ops.toArray()))));
                    sources.clear();
                    ops.clear();
                }
                if (remove) {
                    expected.get(d).remove(u);
                } else {
                    expected.get(d).add(u);
                }
            }
            assertTrue(
                    LongStream.range(0, 6).mapToInt(eight::partition).distinct().count() > 2,
                    "several partitions");
            for (int d = 0; d < 6; d++) {
                long[] target = {d};
                assertEquals(
                        expected.get(d),
                        toSet(request(single, d, 1, -1, target, new long[0]).neighbours));
                assertEquals(
                        expected.get(d),
                        toSet(request(bundled, d, 1, -1, target, new long[0]).neighbours),
                        "neighbours of " + d + " from bundles");
            }
        }
    }

    @Test
    void samplesAHubWithoutReadingItsWholeList() throws Exception {
        int degree = 100_000;
        int fanout = 10;
        try (var h = harness("rocksdb")) {
            h.open();
            for (long u = 1; u <= degree; u++) {
                edge(h, u, 0, false);
            }
            GraphStoreOperator op = (GraphStoreOperator) h.getOperator();
            Set<Long> seen = new HashSet<>();
            for (int batch = 0; batch < 20; batch++) {
                long before = op.store().adjacencyBlocksRead();
                SampleResponse r = request(h, batch, 1, fanout, new long[] {0}, new long[0]);
                assertTrue(
                        op.store().adjacencyBlocksRead() - before <= fanout,
                        "read more blocks than the fanout");
                assertEquals(
                        fanout, toSet(r.neighbours).size(), "sample must be without replacement");
                for (long v : r.neighbours) {
                    assertTrue(v >= 1 && v <= degree);
                    seen.add(v);
                }
                assertArrayEquals(
                        r.neighbours,
                        request(h, batch, 1, fanout, new long[] {0}, new long[0]).neighbours,
                        "same (batch, hop, vertex) must give the same sample");
            }
            assertTrue(seen.size() > 190, "samples of different batches should differ");
        }
    }

    /**
     * A vertex of a thousand neighbours is cached whole: same samples as without a cache, no block
     * reads.
     */
    /**
     * Data-parallel equivalence rests on this: a vertex's sample depends on the step (the sampling
     * key), not on which batch, and so which trainer rank, asked for it.
     */
    @Test
    void aVertexGetsTheSameSampleInEveryBatchOfAStep() throws Exception {
        try (var h = harness("heap")) {
            h.open();
            for (long u = 1; u <= 200; u++) {
                edge(h, u, 0, false);
            }
            long[] rankZero = sample(h, 11, 5);
            assertArrayEquals(rankZero, sample(h, 12, 5), "another batch of the same step");
            assertFalse(
                    Arrays.equals(rankZero, sample(h, 11, 6))
                            && Arrays.equals(rankZero, sample(h, 11, 7)),
                    "other steps draw other samples");
        }
    }

    @Test
    void dropsARequestWhoseFeatureVerticesHaveNoRows() throws Exception {
        try (var h = harness("heap")) {
            h.open();
            edge(h, 1, 0, false);
            SampleRequest bad = SampleRequest.sampleOnly(3, 3, 1, 0, 0, 10, new long[] {0});
            bad.featurePart = 0;
            bad.featureVertices = new long[] {0};
            bad.featureRows = new int[0];
            h.getOutput().clear();
            h.processElement(new StreamRecord<>(GraphStoreInput.of(bad)));
            assertTrue(h.getOutput().isEmpty(), "no answer to a malformed request");
            assertEquals(1, sample(h, 4, 1).length, "later requests are answered");
        }
    }

    private static long[] sample(
            KeyedOneInputStreamOperatorTestHarness<VertexKey, GraphStoreInput, SampleResponse> h,
            long batch,
            long step)
            throws Exception {
        h.getOutput().clear();
        h.processElement(
                new StreamRecord<>(
                        GraphStoreInput.of(
                                SampleRequest.sampleOnly(
                                        batch, step, 1, 0, 0, 10, new long[] {0}))));
        return lastResponse(h).neighbours;
    }

    @Test
    void samplesACachedVertexFromItsWholeListWithoutReadingBlocks() throws Exception {
        try (var cached = harness("rocksdb", 1000, 1 << 20);
                var uncached = harness("rocksdb", 1000, 0)) {
            cached.open();
            uncached.open();
            for (long u = 1; u <= 1_000; u++) {
                edge(cached, u, 0, false);
                edge(uncached, u, 0, false);
            }
            GraphStoreOperator op = (GraphStoreOperator) cached.getOperator();
            request(cached, 0, 1, 10, new long[] {0}, new long[0]);
            long blocksRead = op.store().adjacencyBlocksRead();
            for (int batch = 1; batch < 20; batch++) {
                assertArrayEquals(
                        request(uncached, batch, 1, 10, new long[] {0}, new long[0]).neighbours,
                        request(cached, batch, 1, 10, new long[] {0}, new long[0]).neighbours);
            }
            assertEquals(
                    blocksRead,
                    op.store().adjacencyBlocksRead(),
                    "a cached whole list reads no blocks");
        }
    }

    @Test
    void bufferedEdgesAreWrittenBeforeASnapshotAndAtTheEndOfInput() throws Exception {
        OperatorSubtaskState snapshot;
        try (var h = harness("rocksdb", 1000, 4096)) {
            h.open();
            for (long u = 1; u <= 50; u++) {
                edge(h, u, 0, false);
            }
            edge(h, 7, 0, false);
            snapshot = h.snapshot(1, 1);
        }
        try (var h = harness("rocksdb", 1000, 4096)) {
            h.initializeState(snapshot);
            h.open();
            edge(h, 51, 0, false);
            h.getOperator().finish();
            assertEquals(
                    51,
                    ((GraphStoreOperator) h.getOperator()).store().storedDegree(0),
                    "50 restored neighbours (one duplicate dropped) and one written at the end of"
                            + " input");
            h.setProcessingTime(10_000);
            GraphEvent stats =
                    h.getSideOutput(GraphStoreOperator.EVENTS).stream()
                            .map(StreamRecord::getValue)
                            .filter(e -> e.kind == GraphEvent.Kind.STATS)
                            .reduce((first, last) -> last)
                            .orElseThrow();
            assertEquals(51, stats.edges);
            assertEquals(52, stats.edgesIngested);
        }
    }

    @Test
    void restoresGraphAndPartitionSizesFromASnapshot() throws Exception {
        OperatorSubtaskState snapshot;
        SampleResponse before;
        MiniBatchPart featuresBefore;
        try (var h = harness("rocksdb")) {
            h.open();
            node(h, 5, 1, Split.VAL);
            for (long u = 10; u < 100; u++) {
                edge(h, u, 5, false);
            }
            before = request(h, 3, 2, 7, new long[] {5}, new long[] {5});
            featuresBefore = lastFeatures(h);
            snapshot = h.snapshot(1, 1);
        }
        try (var h = harness("rocksdb")) {
            h.initializeState(snapshot);
            h.open();
            SampleResponse after = request(h, 3, 2, 7, new long[] {5}, new long[] {5});
            assertArrayEquals(before.neighbours, after.neighbours);
            assertArrayEquals(featuresBefore.features, lastFeatures(h).features);
            edge(h, 100, 5, false);
            assertEquals(
                    91,
                    request(h, 4, 1, -1, new long[] {5}, new long[0]).neighbours.length,
                    "a request sees the buffered edge");
            h.setProcessingTime(10_000);
            GraphEvent stats =
                    h.getSideOutput(GraphStoreOperator.EVENTS).stream()
                            .map(StreamRecord::getValue)
                            .filter(e -> e.kind == GraphEvent.Kind.STATS)
                            .findFirst()
                            .orElseThrow();
            assertEquals(0, stats.partition);
            assertEquals(1, stats.vertices);
            assertEquals(91, stats.edges);
            assertEquals(91, stats.edgesIngested);
        }
    }

    /**
     * Sizes a snapshot holds before they were published reach the scheduler after a restore without
     * any new input: a graph that was whole at the snapshot must look whole to the scheduler.
     */
    @Test
    void publishesRestoredSizesWithoutNewInput() throws Exception {
        OperatorSubtaskState snapshot;
        try (var h = harness("rocksdb")) {
            h.open();
            node(h, 5, 1, Split.TRAIN);
            for (long u = 10; u < 40; u++) {
                edge(h, u, 5, false);
            }
            snapshot = h.snapshot(1, 1); // before the first stats interval: nothing published yet
            assertTrue(
                    h.getSideOutput(GraphStoreOperator.EVENTS).stream()
                            .noneMatch(r -> r.getValue().kind == GraphEvent.Kind.STATS));
        }
        try (var h = harness("rocksdb")) {
            h.initializeState(snapshot);
            h.open();
            h.setProcessingTime(10_000);
            GraphEvent stats =
                    h.getSideOutput(GraphStoreOperator.EVENTS).stream()
                            .map(StreamRecord::getValue)
                            .filter(e -> e.kind == GraphEvent.Kind.STATS)
                            .findFirst()
                            .orElseThrow();
            assertEquals(0, stats.partition);
            assertEquals(1, stats.vertices);
            assertEquals(30, stats.edges);
            assertEquals(30, stats.edgesIngested);
        }
    }

    /**
     * A trainer's cache, filled and referenced by the store's feature parts, resolves every part to
     * the features and labels the store sends without the cache, through node updates (which must
     * invalidate) and evictions (with two slots, a part evicts vertices it also references).
     */
    @ParameterizedTest
    @ValueSource(ints = {2, 64})
    void trainerCacheSlotsResolveToTheFeaturesSentWithoutTheCache(int slots) throws Exception {
        try (var cached = harness("heap", 1000, 4096, slots);
                var plain = harness("heap", 1000, 4096, 0)) {
            cached.open();
            plain.open();
            TrainerFeatureCache trainer = new TrainerFeatureCache(slots, DIM);
            SplittableRandom random = new SplittableRandom(7);
            for (long v = 0; v < 10; v++) {
                for (var h : List.of(cached, plain)) {
                    node(h, v, (int) v % 3, Split.NONE, v);
                }
            }
            int referenced = 0;
            for (int batch = 0; batch < 300; batch++) {
                if (random.nextInt(8) == 0) {
                    long v = random.nextInt(12);
                    float value = random.nextInt(100);
                    int label = random.nextInt(3);
                    for (var h : List.of(cached, plain)) {
                        node(h, v, label, Split.NONE, value);
                    }
                }
                long[] vertices = random.longs(0, 12).distinct().limit(3).toArray();
                request(cached, batch, 1, 0, new long[0], vertices);
                request(plain, batch, 1, 0, new long[0], vertices);
                MiniBatchPart sent = lastFeatures(cached);
                referenced += sent.cachedRows.length;
                assertTrue(trainer.holdsAll(sent), "batch " + batch);
                List<String> resolved = rowsOf(sent, trainer);
                trainer.storeFills(sent);
                assertEquals(rowsOf(lastFeatures(plain), trainer), resolved, "batch " + batch);
            }
            assertTrue(referenced > 100, "cache slots referenced: " + referenced);
        }
    }

    /**
     * Each row of a feature part as "row:label:features", sorted by row: the rows it brings and
     * those it names by cache slot.
     */
    private static List<String> rowsOf(MiniBatchPart part, TrainerFeatureCache cache) {
        float[] features = floats(part.features);
        List<String> rows = new ArrayList<>();
        for (int j = 0; j < part.rows.length; j++) {
            rows.add(
                    part.rows[j]
                            + ":"
                            + part.labels[j]
                            + ":"
                            + Arrays.toString(
                                    Arrays.copyOfRange(features, j * DIM, (j + 1) * DIM)));
        }
        for (int j = 0; j < part.cachedRows.length; j++) {
            float[] row = new float[DIM];
            cache.copyRow(part.cachedSlots[j], row, 0);
            rows.add(
                    part.cachedRows[j]
                            + ":"
                            + cache.label(part.cachedSlots[j])
                            + ":"
                            + Arrays.toString(row));
        }
        rows.sort(Comparator.comparingInt(r -> Integer.parseInt(r.substring(0, r.indexOf(':')))));
        return rows;
    }

    private static KeyedOneInputStreamOperatorTestHarness<
                    VertexKey, GraphStoreInput, SampleResponse>
            harness(String backend) throws Exception {
        return harness(backend, 1000, 4096);
    }

    private static KeyedOneInputStreamOperatorTestHarness<
                    VertexKey, GraphStoreInput, SampleResponse>
            harness(String backend, int edgeBuffer, long cacheBytes) throws Exception {
        return harness(backend, edgeBuffer, cacheBytes, 0);
    }

    private static KeyedOneInputStreamOperatorTestHarness<
                    VertexKey, GraphStoreInput, SampleResponse>
            harness(String backend, int edgeBuffer, long cacheBytes, int trainerCacheSlots)
                    throws Exception {
        return harness(backend, PARTITIONER, edgeBuffer, cacheBytes, trainerCacheSlots);
    }

    private static KeyedOneInputStreamOperatorTestHarness<
                    VertexKey, GraphStoreInput, SampleResponse>
            harness(
                    String backend,
                    VertexPartitioner partitioner,
                    int edgeBuffer,
                    long cacheBytes,
                    int trainerCacheSlots)
                    throws Exception {
        return harness(
                backend,
                partitioner,
                new GraphStoreConfig(
                                42L,
                                DIM,
                                1000L,
                                cacheBytes,
                                cacheBytes,
                                edgeBuffer,
                                trainerCacheSlots)
                        .withLayerRowCache(cacheBytes));
    }

    private static KeyedOneInputStreamOperatorTestHarness<
                    VertexKey, GraphStoreInput, SampleResponse>
            harness(String backend, VertexPartitioner partitioner, GraphStoreConfig config)
                    throws Exception {
        return harness(backend, partitioner, config, 1, 0);
    }

    /** Subtask {@code subtask} of {@code parallelism}. */
    private static KeyedOneInputStreamOperatorTestHarness<
                    VertexKey, GraphStoreInput, SampleResponse>
            harness(
                    String backend,
                    VertexPartitioner partitioner,
                    GraphStoreConfig config,
                    int parallelism,
                    int subtask)
                    throws Exception {
        KeySelector<GraphStoreInput, VertexKey> key = in -> in.storeKey(partitioner);
        var h =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new GraphStoreOperator(partitioner, config),
                        key,
                        VertexKeyTypeInfo.INSTANCE,
                        MAX_PARALLELISM,
                        parallelism,
                        subtask);
        StateBackend stateBackend = new HashMapStateBackend();
        if ("rocksdb".equals(backend)) {
            // The harness has almost no managed memory; RocksDB would then flush a file every few
            // writes.
            EmbeddedRocksDBStateBackend rocksDb = new EmbeddedRocksDBStateBackend();
            rocksDb.getMemoryConfiguration().setUseManagedMemory(false);
            stateBackend = rocksDb;
        }
        h.setStateBackend(stateBackend);
        return h;
    }

    private static void node(
            KeyedOneInputStreamOperatorTestHarness<VertexKey, GraphStoreInput, SampleResponse> h,
            long id,
            int label,
            Split split)
            throws Exception {
        node(h, id, label, split, id);
    }

    private static void node(
            KeyedOneInputStreamOperatorTestHarness<VertexKey, GraphStoreInput, SampleResponse> h,
            long id,
            int label,
            Split split,
            float value)
            throws Exception {
        h.processElement(
                new StreamRecord<>(
                        GraphStoreInput.of(
                                GraphUpdate.of(
                                        new NodeUpdate(
                                                id,
                                                new float[] {value, value, value},
                                                label,
                                                split)))));
    }

    private static void edge(
            KeyedOneInputStreamOperatorTestHarness<VertexKey, GraphStoreInput, SampleResponse> h,
            long src,
            long dst,
            boolean remove)
            throws Exception {
        h.processElement(
                new StreamRecord<>(
                        GraphStoreInput.of(
                                GraphUpdate.of(
                                        new EdgeUpdate(
                                                src, dst, remove, EdgeUpdate.NO_TIMESTAMP)))));
    }

    /** One request to the single partition; the harness plays the sampling loop. */
    private static SampleResponse request(
            KeyedOneInputStreamOperatorTestHarness<VertexKey, GraphStoreInput, SampleResponse> h,
            long batch,
            int hop,
            int fanout,
            long[] sample,
            long[] features)
            throws Exception {
        h.getOutput().clear();
        int[] rows = new int[features.length];
        Arrays.setAll(rows, i -> i);
        SampleRequest request =
                SampleRequest.sampleOnly(batch, batch, hop, 0, 0, fanout, sample)
                        .withFeatures(batch + 100, 0, 0, 0, features, rows);
        h.processElement(new StreamRecord<>(GraphStoreInput.of(request)));
        return lastResponse(h);
    }

    private static float[] floats(byte[] bytes) {
        float[] values = new float[bytes.length / Float.BYTES];
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(values);
        return values;
    }

    /**
     * The feature part of the last request that named feature vertices, as its trainer receives it.
     */
    private static MiniBatchPart lastFeatures(
            KeyedOneInputStreamOperatorTestHarness<VertexKey, GraphStoreInput, SampleResponse> h) {
        MiniBatchPart last = null;
        for (StreamRecord<MiniBatchPart> r : h.getSideOutput(GraphStoreOperator.FEATURES)) {
            last = r.getValue();
        }
        return last == null ? null : MiniBatchPartSerializer.INSTANCE.copy(last);
    }

    private static SampleResponse lastResponse(
            KeyedOneInputStreamOperatorTestHarness<VertexKey, GraphStoreInput, SampleResponse> h) {
        SampleResponse last = null;
        for (Object o : h.getOutput()) {
            if (o instanceof StreamRecord) {
                last = (SampleResponse) ((StreamRecord<?>) o).getValue();
            }
        }
        return last;
    }

    private static Set<Long> toSet(long[] values) {
        Set<Long> s = new HashSet<>();
        for (long v : values) {
            s.add(v);
        }
        return s;
    }
}

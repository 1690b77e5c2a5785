package io.gnnstream.operators;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.operators.messages.GraphEvent;
import io.gnnstream.operators.messages.GraphStoreInput;
import io.gnnstream.operators.messages.GraphUpdate;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.messages.ReplicaMessage;
import io.gnnstream.operators.messages.SampleRequest;
import io.gnnstream.operators.messages.SampleResponse;
import io.gnnstream.operators.messages.VertexDeletion;
import io.gnnstream.operators.serialization.GraphStoreInputSerializer;
import io.gnnstream.operators.serialization.MiniBatchPartSerializer;
import io.gnnstream.operators.store.GraphStore;
import io.gnnstream.operators.store.HaloReplicas;
import io.gnnstream.state.HashPartitioner;
import io.gnnstream.state.StoreSites;
import io.gnnstream.state.VertexKey;
import io.gnnstream.state.VertexKeyTypeInfo;
import io.gnnstream.state.VertexPartitioner;
import io.gnnstream.state.VertexRecord;
import io.gnnstream.state.records.EdgeUpdate;
import io.gnnstream.state.records.NodeUpdate;
import io.gnnstream.state.records.Split;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Halo replicas end to end through Flink's keyed harnesses, on RocksDB and on the heap: the {@link
 * ReplicaRouter} gets node updates and cut edges as the job sends them, the GraphStore every update
 * and the router's pushes and drops.
 */
@Timeout(120)
class GraphStoreHaloTest {

    static final int PARTITIONS = 8;
    private static final int DIM = 3;
    static final VertexPartitioner PARTITIONER = new HashPartitioner(PARTITIONS);

    /**
     * Vertex {@code a} in one partition, {@code v} and {@code w} in another, {@code x} in a third.
     */
    private static final long A = 1;

    private static final long V = otherThan(A, -1);
    private static final long W = inPartitionOf(V);
    private static final long X = otherThan(A, V);

    @ParameterizedTest
    @ValueSource(strings = {"rocksdb", "heap"})
    void updatesReachEveryReplicaAndTheLastEdgeDropsOne(String backend) throws Exception {
        int pv = PARTITIONER.partition(V);
        int px = PARTITIONER.partition(X);
        // At parallelism 8 every partition is a site of its own, and holds its replicas under its
        // own key.
        try (Graph g = new Graph(backend, PARTITIONS)) {
            g.edge(A, V, false);
            assertEquals(List.of("CREATE(" + A + " @ " + pv + ")"), g.lastMessages());
            assertEquals(
                    HaloReplicas.Status.ABSENT, g.halo(pv, A).status(pv, A), "no attributes yet");

            NodeUpdate a1 = g.node(A, 1f);
            assertArrayEquals(
                    VertexRecord.encode(a1),
                    g.halo(pv, A).record(pv, A),
                    "a node update reaches the replica");
            g.edge(A, X, false);
            assertArrayEquals(
                    VertexRecord.encode(a1),
                    g.halo(px, A).record(px, A),
                    "a new replica starts with the record");

            g.edge(A, W, false);
            g.edge(A, V, false);
            assertEquals(
                    List.of(),
                    g.lastMessages(),
                    "a second in-edge into a partition, or a duplicate, changes nothing");
            g.edge(V, W, false);
            assertEquals(
                    HaloReplicas.Status.NONE,
                    g.halo(pv, V).status(pv, V),
                    "an edge inside a partition makes no replica");

            NodeUpdate a2 = g.node(A, 2f);
            assertEquals(2, g.lastMessages().size(), "one push per holding partition");
            assertArrayEquals(VertexRecord.encode(a2), g.halo(pv, A).record(pv, A));
            assertArrayEquals(VertexRecord.encode(a2), g.halo(px, A).record(px, A));
            assertEquals(
                    2.0,
                    g.replicationFactor(),
                    1e-9,
                    "two replicas of the one vertex with attributes");
            java.util.Map<Integer, GraphEvent> stats = new java.util.HashMap<>();
            for (var store : g.stores) {
                store.setProcessingTime(store.getProcessingTime() + 10_000);
                if (store.getSideOutput(GraphStoreOperator.EVENTS) == null) {
                    continue;
                }
                store.getSideOutput(GraphStoreOperator.EVENTS).stream()
                        .map(StreamRecord::getValue)
                        .filter(e -> e.kind == GraphEvent.Kind.STATS)
                        .forEach(e -> stats.put(e.partition, e));
            }
            assertEquals(
                    4,
                    stats.values().stream().mapToLong(e -> e.cutEdgesIngested).sum(),
                    "a->v twice, a->x, a->w: the edges from other partitions (v->w is inside one)");
            assertEquals(
                    2,
                    stats.values().stream().mapToLong(e -> e.replicas).sum(),
                    "the stats carry the replicas");

            g.edge(A, V, true);
            assertEquals(List.of(), g.lastMessages(), "an in-edge from a is left in the partition");
            g.edge(A, W, true);
            assertEquals(List.of("DROP(" + A + " @ " + pv + ")"), g.lastMessages());
            assertEquals(
                    HaloReplicas.Status.NONE,
                    g.halo(pv, A).status(pv, A),
                    "the last in-edge drops the replica");
            g.edge(A, W, true);
            assertEquals(List.of(), g.lastMessages(), "removing an absent edge changes nothing");

            NodeUpdate a3 = g.node(A, 3f);
            assertEquals(
                    List.of("PUSH(" + A + " @ " + px + ")"),
                    g.lastMessages(),
                    "only the remaining holder");
            assertArrayEquals(VertexRecord.encode(a3), g.halo(px, A).record(px, A));
        }
    }

    /**
     * At parallelism 2 a site holds one replica of a vertex of the other site, whichever of its
     * partitions the vertex's edges go to, and none of a vertex of its own site.
     */
    @ParameterizedTest
    @ValueSource(strings = {"rocksdb", "heap"})
    void aSiteHoldsOneReplicaOfAVertexOfAnotherSite(String backend) throws Exception {
        StoreSites sites = new StoreSites(PARTITIONS, 2);
        int home = sites.siteOf(PARTITIONER.partition(A));
        long y =
                LongStream.range(2, 10_000)
                        .filter(u -> sites.siteOf(PARTITIONER.partition(u)) == home)
                        .filter(u -> PARTITIONER.partition(u) != PARTITIONER.partition(A))
                        .findFirst()
                        .getAsLong();
        long v =
                LongStream.range(2, 10_000)
                        .filter(u -> sites.siteOf(PARTITIONER.partition(u)) != home)
                        .findFirst()
                        .getAsLong();
        long x =
                LongStream.range(2, 10_000)
                        .filter(u -> sites.siteOf(PARTITIONER.partition(u)) != home)
                        .filter(u -> PARTITIONER.partition(u) != PARTITIONER.partition(v))
                        .findFirst()
                        .getAsLong();
        int holder = sites.holderOf(PARTITIONER.partition(v));
        assertEquals(holder, sites.holderOf(PARTITIONER.partition(x)), "v and x share a site");
        try (Graph g = new Graph(backend, 2)) {
            NodeUpdate a1 = g.node(A, 1f);
            g.edge(A, v, false);
            assertEquals(List.of("CREATE(" + A + " @ " + holder + ")"), g.lastMessages());
            assertArrayEquals(VertexRecord.encode(a1), g.halo(holder, A).record(holder, A));
            g.edge(A, x, false);
            assertEquals(
                    List.of(),
                    g.lastMessages(),
                    "another partition of the same site: the same replica");
            g.edge(A, y, false);
            assertEquals(
                    List.of(), g.lastMessages(), "a partition of a's own site holds no replica");
            assertEquals(1.0, g.replicationFactor(), 1e-9);
            g.edge(A, v, true);
            assertEquals(List.of(), g.lastMessages(), "x keeps the replica");
            g.edge(A, x, true);
            assertEquals(List.of("DROP(" + A + " @ " + holder + ")"), g.lastMessages());
            assertEquals(HaloReplicas.Status.NONE, g.halo(holder, A).status(holder, A));
        }
    }

    /**
     * Router and store restored at parallelism 2 from a snapshot at 8: the store drops the replicas
     * of the old sites, the router makes those of the new ones, and later updates and drops reach
     * them.
     */
    @ParameterizedTest
    @ValueSource(strings = {"rocksdb", "heap"})
    void replicasAreMadeAgainAfterARestoreAtAnotherParallelism(String backend) throws Exception {
        int pv = PARTITIONER.partition(V);
        int px = PARTITIONER.partition(X);
        List<OperatorSubtaskState> routerStates = new ArrayList<>();
        List<OperatorSubtaskState> storeStates = new ArrayList<>();
        NodeUpdate a1;
        try (Graph g = new Graph(backend, PARTITIONS)) {
            a1 = g.node(A, 1f);
            g.edge(A, V, false);
            g.edge(A, W, false);
            g.edge(A, X, false);
            g.node(X, 4f);
            g.edge(X, V, false);
            assertEquals(3.0 / 2, g.replicationFactor(), 1e-9);
            for (int i = 0; i < PARTITIONS; i++) {
                // As in a job: the router stores its heap state before the barrier.
                g.routers.get(i).prepareSnapshotPreBarrier(1);
                routerStates.add(g.routers.get(i).snapshot(1, 1));
                storeStates.add(g.stores.get(i).snapshot(1, 1));
            }
        }
        OperatorSubtaskState routerState =
                AbstractStreamOperatorTestHarness.repackageState(
                        routerStates.toArray(new OperatorSubtaskState[0]));
        OperatorSubtaskState storeState =
                AbstractStreamOperatorTestHarness.repackageState(
                        storeStates.toArray(new OperatorSubtaskState[0]));
        StoreSites sites = new StoreSites(PARTITIONS, 2);
        try (Graph g = new Graph(backend, 2, PARTITIONS, routerState, storeState)) {
            java.util.Set<String> held = new java.util.HashSet<>();
            for (long[] e : new long[][] {{A, V}, {A, W}, {A, X}, {X, V}}) {
                if (sites.siteOf(PARTITIONER.partition(e[0]))
                        != sites.siteOf(PARTITIONER.partition(e[1]))) {
                    int holder = sites.holderOf(PARTITIONER.partition(e[1]));
                    assertEquals(
                            HaloReplicas.Status.PRESENT,
                            g.halo(holder, e[0]).status(holder, e[0]),
                            e[0] + " at the site of " + e[1]);
                    held.add(holder + ":" + e[0]);
                }
            }
            assertTrue(
                    held.size() > 0 && held.size() < 3,
                    "the test's vertices span the new sites: " + held);
            assertEquals(
                    held.size(),
                    g.replicas(),
                    "exactly the new sites' replicas, the old ones dropped");
            for (int old : new int[] {pv, px}) {
                if (old != sites.holderOf(old)) {
                    assertEquals(
                            HaloReplicas.Status.NONE,
                            g.halo(old, A).status(old, A),
                            "the old site's replica is gone");
                }
            }
            int hv = sites.holderOf(pv);
            if (sites.siteOf(PARTITIONER.partition(A)) != sites.siteOf(pv)) {
                assertArrayEquals(VertexRecord.encode(a1), g.halo(hv, A).record(hv, A));
                NodeUpdate a2 = g.node(A, 2f);
                assertArrayEquals(
                        VertexRecord.encode(a2),
                        g.halo(hv, A).record(hv, A),
                        "the push reaches the new replica");
                g.edge(A, V, true);
                g.edge(A, W, true);
                if (sites.siteOf(px) != sites.siteOf(pv)) {
                    assertEquals(
                            HaloReplicas.Status.NONE,
                            g.halo(hv, A).status(hv, A),
                            "the restored counts drop it at the last edge");
                }
            }
        }
    }

    /**
     * A sampling request with a neighbour part: the subtask sends the features of the sampled
     * neighbours it holds (owned, or replicated in the sampling vertex's partition), addressed by
     * vertex, marks them in the response's bits, and leaves out a neighbour it holds nowhere.
     */
    @ParameterizedTest
    @ValueSource(strings = {"rocksdb", "heap"})
    void neighbourPartsCarryTheFeaturesHeldLocally(String backend) throws Exception {
        try (Graph g = new Graph(backend, 2)) {
            int home = g.subtaskOf(PARTITIONER.keyOf(V));
            long[] remote =
                    LongStream.range(2, 10_000)
                            .filter(u -> g.subtaskOf(PARTITIONER.keyOf(u)) != home)
                            .limit(3)
                            .toArray();
            long replicated = remote[0];
            long missing = remote[1];
            long early = remote[2];
            NodeUpdate r = g.node(replicated, 1f);
            NodeUpdate w = g.node(W, 2f);
            g.node(missing, 3f);
            g.edge(replicated, V, false);
            g.edge(W, V, false);
            // A replica made before its vertex had attributes: the owner answers for it.
            g.edge(early, V, false);
            assertEquals(
                    HaloReplicas.Status.ABSENT,
                    g.halo(g.holderOf(V), early).status(g.holderOf(V), early));
            var store = g.stores.get(home);
            // An edge the router has not seen yet: its source has no replica in V's partition.
            store.processElement(
                    new StreamRecord<>(
                            GraphStoreInput.of(
                                    GraphUpdate.of(
                                            new EdgeUpdate(
                                                    missing, V, false, EdgeUpdate.NO_TIMESTAMP)))));
            store.getOutput().clear();
            SampleRequest request =
                    SampleRequest.sampleOnly(7, 7, 1, 0, 0, -1, new long[] {V})
                            .withFeatures(107, 0, 0, 0, new long[0], new int[0]);
            request.neighbourPart = 5;
            store.processElement(new StreamRecord<>(GraphStoreInput.of(request)));
            SampleResponse response = null;
            for (Object o : store.getOutput()) {
                if (o instanceof StreamRecord<?> rec
                        && rec.getValue() instanceof SampleResponse sr) {
                    response = sr;
                }
            }
            List<StreamRecord<MiniBatchPart>> parts =
                    new ArrayList<>(store.getSideOutput(GraphStoreOperator.FEATURES));
            MiniBatchPart part =
                    MiniBatchPartSerializer.INSTANCE.copy(parts.get(parts.size() - 1).getValue());
            assertEquals(5, part.part);
            assertEquals(4, response.neighbours.length);
            List<Long> served = new ArrayList<>();
            for (int i = 0; i < response.neighbours.length; i++) {
                if (response.served(i)) {
                    served.add(response.neighbours[i]);
                }
            }
            assertEquals(
                    served,
                    LongStream.of(part.vertices).boxed().collect(Collectors.toList()),
                    "the bits mark what the part carries");
            assertEquals(
                    java.util.Set.of(replicated, W),
                    java.util.Set.copyOf(served),
                    "a replica and an owned vertex");
            byte[] expected = new byte[DIM * Float.BYTES];
            VertexRecord.copyFeatureBytes(VertexRecord.encode(r), expected, 0);
            int at = served.indexOf(replicated);
            assertArrayEquals(
                    expected,
                    java.util.Arrays.copyOfRange(
                            part.features, at * DIM * Float.BYTES, (at + 1) * DIM * Float.BYTES));
            assertEquals(w.label, part.labels[served.indexOf(W)]);
        }
    }

    /**
     * A removal between sites waits for its check: the drop comes once the check is due at a tick,
     * or before a checkpoint barrier, whichever is first; an edge re-added meanwhile keeps the
     * replica.
     */
    @ParameterizedTest
    @ValueSource(strings = {"rocksdb", "heap"})
    void dropsWaitForTheirCheck(String backend) throws Exception {
        int pv = PARTITIONER.partition(V);
        try (var router = router(backend, 1000)) {
            router.open();
            routerEdge(router, A, V, false);
            routerEdge(router, A, W, false);
            assertEquals(
                    List.of("CREATE(" + A + " @ " + pv + ")"), kinds(router.extractOutputValues()));
            routerEdge(router, A, V, true);
            routerEdge(router, A, W, true);
            router.setProcessingTime(router.getProcessingTime() + ReplicaRouter.TICK_MS);
            assertEquals(1, router.extractOutputValues().size(), "the check is not due yet");
            router.setProcessingTime(router.getProcessingTime() + 1000);
            assertEquals(
                    List.of("CREATE(" + A + " @ " + pv + ")", "DROP(" + A + " @ " + pv + ")"),
                    kinds(router.extractOutputValues()),
                    "the due check drops the replica");

            routerEdge(router, A, V, false);
            routerEdge(router, A, V, true);
            routerEdge(router, A, W, false);
            routerEdge(router, X, V, false);
            routerEdge(router, X, V, true);
            router.prepareSnapshotPreBarrier(1);
            assertEquals(
                    List.of(
                            "CREATE(" + A + " @ " + pv + ")",
                            "CREATE(" + X + " @ " + pv + ")",
                            "DROP(" + X + " @ " + pv + ")"),
                    kinds(router.extractOutputValues()).subList(2, 5),
                    "the barrier runs the checks: a keeps its replica through w, x loses its own");
        }
    }

    /**
     * The log's tails and the holders go to state before a barrier, so a restore knows every edge
     * (a removal drops, a duplicate is ignored) and which vertices have a record.
     */
    @ParameterizedTest
    @ValueSource(strings = {"rocksdb", "heap"})
    void theLogAndTheHoldersAreInTheCheckpoint(String backend) throws Exception {
        int pv = PARTITIONER.partition(V);
        int px = PARTITIONER.partition(X);
        NodeUpdate a1 = new NodeUpdate(A, new float[] {1, 1, 1}, 1, Split.TRAIN);
        OperatorSubtaskState state;
        try (var router = router(backend, 0)) {
            router.open();
            for (long[] e :
                    new long[][] {
                        {A, V, 0}, {A, W, 0}, {A, X, 0}, {A, V, 1}, {V, X, 0}, {A, X, 0}
                    }) {
                routerEdge(router, e[0], e[1], e[2] == 1);
            }
            router.processElement(new StreamRecord<>(GraphStoreInput.of(GraphUpdate.of(a1))));
            // w lies in v's partition, so removing a -> v leaves a's replica there.
            List<String> pushes =
                    List.of(
                            "PUSH(" + A + " @ " + Math.min(pv, px) + ")",
                            "PUSH(" + A + " @ " + Math.max(pv, px) + ")");
            assertEquals(
                    List.of(
                            "CREATE(" + A + " @ " + pv + ")",
                            "CREATE(" + A + " @ " + px + ")",
                            "CREATE(" + V + " @ " + px + ")",
                            pushes.get(0),
                            pushes.get(1)),
                    kinds(router.extractOutputValues()),
                    "messages in the order of their input");
            router.prepareSnapshotPreBarrier(1);
            state = router.snapshot(1, 1);
        }
        List<GraphStoreInput> out =
                restoredRouterAfter(
                        backend, state, new long[][] {{V, X, 0}, {A, X, 1}, {A, W, 1}, {A, V, 0}});
        assertEquals(
                List.of(
                        "DROP(" + A + " @ " + px + ")",
                        "DROP(" + A + " @ " + pv + ")",
                        "CREATE(" + A + " @ " + pv + ")"),
                kinds(out),
                "the restored router knows the logged edges");
        assertArrayEquals(VertexRecord.encode(a1), messageOf(out.get(2)).record, "and the record");
    }

    /**
     * State in the per-vertex layout (each vertex's sorted cut out-neighbours) restores into the
     * log: the replicas it implies are held, so the last edge's removal drops one.
     */
    @ParameterizedTest
    @ValueSource(strings = {"rocksdb", "heap"})
    void thePerVertexLayoutMovesIntoTheLog(String backend) throws Exception {
        int pv = PARTITIONER.partition(V);
        int px = PARTITIONER.partition(X);
        NodeUpdate a1 = new NodeUpdate(A, new float[] {1, 1, 1}, 1, Split.TRAIN);
        OperatorSubtaskState state;
        try (var legacy =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new LegacyRouterState(),
                        in -> PARTITIONER.keyOf(in[0]),
                        VertexKeyTypeInfo.INSTANCE,
                        PARTITIONS,
                        1,
                        0)) {
            backend(legacy, backend);
            legacy.open();
            long[] neighbours = {V, W, X};
            java.util.Arrays.sort(neighbours);
            legacy.processElement(
                    new StreamRecord<>(
                            LongStream.concat(LongStream.of(A), LongStream.of(neighbours))
                                    .toArray()));
            ((LegacyRouterState) legacy.getOperator()).record(A, VertexRecord.encode(a1));
            state = legacy.snapshot(1, 1);
        }
        List<GraphStoreInput> out =
                restoredRouterAfter(
                        backend, state, new long[][] {{A, X, 1}, {A, V, 1}, {A, W, 1}, {A, V, 0}});
        assertEquals(
                List.of(
                        "DROP(" + A + " @ " + px + ")",
                        "DROP(" + A + " @ " + pv + ")",
                        "CREATE(" + A + " @ " + pv + ")"),
                kinds(out));
        assertArrayEquals(
                VertexRecord.encode(a1), messageOf(out.get(2)).record, "the record is known");
    }

    /**
     * The messages of a router restored from {@code state} for {@code edges} (source, destination,
     * 1 for a removal).
     */
    private static List<GraphStoreInput> restoredRouterAfter(
            String backend, OperatorSubtaskState state, long[][] edges) throws Exception {
        try (var router = router(backend, 0)) {
            router.initializeState(state);
            router.open();
            for (long[] e : edges) {
                routerEdge(router, e[0], e[1], e[2] == 1);
            }
            return router.extractOutputValues();
        }
    }

    /**
     * Writes router state in the per-vertex layout: a vertex's record and sorted cut
     * out-neighbours.
     */
    private static final class LegacyRouterState
            extends org.apache.flink.streaming.api.operators.AbstractStreamOperator<Void>
            implements org.apache.flink.streaming.api.operators.OneInputStreamOperator<
                    long[], Void> {

        @Override
        public void processElement(StreamRecord<long[]> element) throws Exception {
            long[] row = element.getValue();
            getPartitionedState(ReplicaRouter.LEGACY_CUT_OUT_NEIGHBOURS)
                    .update(java.util.Arrays.copyOfRange(row, 1, row.length));
        }

        void record(long u, byte[] record) throws Exception {
            setCurrentKey(PARTITIONER.keyOf(u));
            getPartitionedState(ReplicaRouter.RECORD).update(record);
        }

        @Override
        public void snapshotState(org.apache.flink.runtime.state.StateSnapshotContext context)
                throws Exception {
            super.snapshotState(context);
            getOperatorStateBackend()
                    .getUnionListState(ReplicaRouter.MADE_FOR)
                    .update(List.of(PARTITIONS));
        }
    }

    /** One router subtask over every partition, each partition a site, fed single updates. */
    private static KeyedOneInputStreamOperatorTestHarness<
                    VertexKey, GraphStoreInput, GraphStoreInput>
            router(String backend, long maxDropDelayMs) throws Exception {
        KeySelector<GraphStoreInput, VertexKey> sourceKey = GraphStoreHaloTest::sourceKey;
        var router =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new ReplicaRouter(
                                PARTITIONER,
                                JobScale.store(PARTITIONS, PARTITIONS),
                                maxDropDelayMs),
                        sourceKey,
                        VertexKeyTypeInfo.INSTANCE,
                        PARTITIONS,
                        1,
                        0);
        backend(router, backend);
        return router;
    }

    private static void routerEdge(
            KeyedOneInputStreamOperatorTestHarness<VertexKey, GraphStoreInput, GraphStoreInput>
                    router,
            long src,
            long dst,
            boolean remove)
            throws Exception {
        router.processElement(
                new StreamRecord<>(
                        GraphStoreInput.of(
                                GraphUpdate.of(
                                        new EdgeUpdate(
                                                src, dst, remove, EdgeUpdate.NO_TIMESTAMP)))));
    }

    private static List<String> kinds(List<GraphStoreInput> messages) {
        return messages.stream()
                .map(GraphStoreHaloTest::messageOf)
                .map(m -> m.kind + "(" + m.vertex + " @ " + m.holder + ")")
                .collect(Collectors.toList());
    }

    private static ReplicaMessage messageOf(GraphStoreInput input) {
        return ((GraphStoreInput.Replica) input).message();
    }

    /**
     * The replica router's key, as the job's: an update's source vertex, else the anchor of the
     * route.
     */
    private static VertexKey sourceKey(GraphStoreInput input) {
        if (input instanceof GraphStoreInput.Update u) {
            GraphUpdate update = u.update();
            return PARTITIONER.keyOf(update.edge != null ? update.edge.src : update.node.id);
        }
        return input.storeKey(PARTITIONER);
    }

    /** Routers and stores at one parallelism, wired as the job wires them. */
    static final class Graph implements AutoCloseable {
        final List<
                        KeyedOneInputStreamOperatorTestHarness<
                                VertexKey, GraphStoreInput, GraphStoreInput>>
                routers = new ArrayList<>();
        final List<
                        KeyedOneInputStreamOperatorTestHarness<
                                VertexKey, GraphStoreInput, SampleResponse>>
                stores = new ArrayList<>();
        private final int parallelism;
        private final int[] taken;
        private List<ReplicaMessage> last = List.of();
        private final OneInputStreamOperatorTestHarness<EdgeUpdate, GraphStoreInput> bundler;

        Graph(String backend, int parallelism) throws Exception {
            this(backend, parallelism, 0, null, null);
        }

        /**
         * At {@code parallelism}, restored from states at {@code restoredParallelism} when given.
         */
        Graph(
                String backend,
                int parallelism,
                int restoredParallelism,
                OperatorSubtaskState routerState,
                OperatorSubtaskState storeState)
                throws Exception {
            this.parallelism = parallelism;
            this.taken = new int[parallelism];
            KeySelector<GraphStoreInput, VertexKey> sourceKey = GraphStoreHaloTest::sourceKey;
            this.bundler =
                    new OneInputStreamOperatorTestHarness<>(
                            new EdgeBundler(
                                    PARTITIONER, JobScale.store(PARTITIONS, parallelism), true, 1));
            bundler.open();
            KeySelector<GraphStoreInput, VertexKey> storeKey = in -> in.storeKey(PARTITIONER);
            for (int i = 0; i < parallelism; i++) {
                var router =
                        new KeyedOneInputStreamOperatorTestHarness<>(
                                new ReplicaRouter(
                                        PARTITIONER, JobScale.store(PARTITIONS, parallelism), 0),
                                sourceKey,
                                VertexKeyTypeInfo.INSTANCE,
                                PARTITIONS,
                                parallelism,
                                i);
                var store =
                        new KeyedOneInputStreamOperatorTestHarness<>(
                                new GraphStoreOperator(
                                        PARTITIONER,
                                        new GraphStoreConfig(42L, DIM, 1000L, 4096, 4096, 1, 0)
                                                .withHalo(true)),
                                storeKey,
                                VertexKeyTypeInfo.INSTANCE,
                                PARTITIONS,
                                parallelism,
                                i);
                backend(router, backend);
                backend(store, backend);
                if (routerState != null) {
                    router.initializeState(
                            AbstractStreamOperatorTestHarness.repartitionOperatorState(
                                    routerState, PARTITIONS, restoredParallelism, parallelism, i));
                    store.initializeState(
                            AbstractStreamOperatorTestHarness.repartitionOperatorState(
                                    storeState, PARTITIONS, restoredParallelism, parallelism, i));
                }
                router.open();
                store.open();
                routers.add(router);
                stores.add(store);
            }
            // A restored router makes its replicas again at its first processing-time tick.
            for (var router : routers) {
                router.setProcessingTime(router.getProcessingTime() + 1);
            }
            deliver();
        }

        NodeUpdate node(long id, float value) throws Exception {
            NodeUpdate node = new NodeUpdate(id, new float[] {value, value, value}, 1, Split.TRAIN);
            GraphStoreInput in = GraphStoreInput.of(GraphUpdate.of(node));
            stores.get(subtaskOf(PARTITIONER.keyOf(id))).processElement(new StreamRecord<>(in));
            routers.get(subtaskOf(PARTITIONER.keyOf(id))).processElement(new StreamRecord<>(in));
            deliver();
            return node;
        }

        /**
         * The deletion of {@code v}: a copy to every site's store and router, as the job sends it.
         */
        void delete(long v) throws Exception {
            for (int route : VertexDeletion.routes(PARTITIONS, parallelism)) {
                GraphStoreInput in = GraphStoreInput.of(new VertexDeletion(v, route));
                int site = subtaskOf(VertexKey.anchor(route));
                stores.get(site)
                        .processElement(
                                new StreamRecord<>(GraphStoreInputSerializer.INSTANCE.copy(in)));
                routers.get(site)
                        .processElement(
                                new StreamRecord<>(GraphStoreInputSerializer.INSTANCE.copy(in)));
            }
            deliver();
        }

        /** The store subtask owning {@code vertex}. */
        GraphStore ownerOf(long vertex) {
            return ((GraphStoreOperator)
                            stores.get(subtaskOf(PARTITIONER.keyOf(vertex))).getOperator())
                    .store();
        }

        /**
         * The edge through the bundler (one edge a bundle) to the store of its destination and,
         * when it lies between partitions, to the router of its source.
         */
        @SuppressWarnings("unchecked")
        void edge(long src, long dst, boolean remove) throws Exception {
            bundler.processElement(
                    new StreamRecord<>(new EdgeUpdate(src, dst, remove, EdgeUpdate.NO_TIMESTAMP)));
            for (Object r : bundler.getOutput()) {
                GraphStoreInput copy =
                        GraphStoreInputSerializer.INSTANCE.copy(
                                ((StreamRecord<GraphStoreInput>) r).getValue());
                stores.get(subtaskOf(copy.storeKey(PARTITIONER)))
                        .processElement(new StreamRecord<>(copy));
            }
            bundler.getOutput().clear();
            var cut = bundler.getSideOutput(EdgeBundler.CUT_EDGES);
            while (cut != null && !cut.isEmpty()) {
                GraphStoreInput copy =
                        GraphStoreInputSerializer.INSTANCE.copy(cut.poll().getValue());
                routers.get(subtaskOf(copy.storeKey(PARTITIONER)))
                        .processElement(new StreamRecord<>(copy));
            }
            deliver();
        }

        /**
         * Hands the routers' new messages, through the record serializer, to the stores owning
         * their keys.
         */
        private void deliver() throws Exception {
            List<ReplicaMessage> delivered = new ArrayList<>();
            for (int i = 0; i < parallelism; i++) {
                List<GraphStoreInput> out = routers.get(i).extractOutputValues();
                for (int j = taken[i]; j < out.size(); j++) {
                    GraphStoreInput copy = GraphStoreInputSerializer.INSTANCE.copy(out.get(j));
                    delivered.add(messageOf(copy));
                    stores.get(subtaskOf(copy.storeKey(PARTITIONER)))
                            .processElement(new StreamRecord<>(copy));
                }
                taken[i] = out.size();
            }
            last = delivered;
        }

        /** The messages the last update caused. */
        List<String> lastMessages() {
            return last.stream()
                    .map(m -> m.kind + "(" + m.vertex + " @ " + m.holder + ")")
                    .collect(Collectors.toList());
        }

        /** The replicas of the subtask holding the replica of {@code vertex} in {@code holder}. */
        HaloReplicas halo(int holder, long vertex) {
            return ((GraphStoreOperator)
                            stores.get(subtaskOf(new VertexKey(holder, vertex))).getOperator())
                    .store()
                    .halo();
        }

        long replicas() {
            long replicas = 0;
            for (var s : stores) {
                replicas += ((GraphStoreOperator) s.getOperator()).store().replicas();
            }
            return replicas;
        }

        double replicationFactor() {
            double replicas = 0;
            double vertices = 0;
            for (var s : stores) {
                GraphStoreOperator op = (GraphStoreOperator) s.getOperator();
                replicas += op.store().replicas();
                vertices += op.store().vertices();
            }
            return replicas / vertices;
        }

        /** The holder partition of {@code vertex}'s site. */
        int holderOf(long vertex) {
            return new StoreSites(PARTITIONS, parallelism).holderOf(PARTITIONER.partition(vertex));
        }

        int subtaskOf(VertexKey key) {
            return KeyGroupRangeAssignment.assignKeyToParallelOperator(
                    key, PARTITIONS, parallelism);
        }

        @Override
        public void close() throws Exception {
            bundler.close();
            for (var h : routers) {
                h.close();
            }
            for (var h : stores) {
                h.close();
            }
        }
    }

    private static void backend(AbstractStreamOperatorTestHarness<?> h, String backend) {
        if ("rocksdb".equals(backend)) {
            EmbeddedRocksDBStateBackend rocksDb = new EmbeddedRocksDBStateBackend();
            rocksDb.getMemoryConfiguration().setUseManagedMemory(false);
            h.setStateBackend(rocksDb);
        } else {
            h.setStateBackend(new HashMapStateBackend());
        }
    }

    /** The smallest vertex above 1 in a partition other than those of {@code a} and {@code b}. */
    private static long otherThan(long a, long b) {
        for (long u = 2; ; u++) {
            int p = PARTITIONER.partition(u);
            if (p != PARTITIONER.partition(a) && (b < 0 || p != PARTITIONER.partition(b))) {
                return u;
            }
        }
    }

    /** The smallest vertex above {@code v} in its partition. */
    private static long inPartitionOf(long v) {
        for (long u = v + 1; ; u++) {
            if (PARTITIONER.partition(u) == PARTITIONER.partition(v)) {
                return u;
            }
        }
    }
}

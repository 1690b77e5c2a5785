package io.gnnstream.operators;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.operators.internal.HaloReplicas;
import io.gnnstream.operators.messages.GraphEvent;
import io.gnnstream.operators.messages.GraphStoreInput;
import io.gnnstream.operators.messages.GraphUpdate;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.messages.ReplicaMessage;
import io.gnnstream.operators.messages.SampleRequest;
import io.gnnstream.operators.messages.SampleResponse;
import io.gnnstream.operators.serialization.MiniBatchPartSerializer;
import io.gnnstream.operators.serialization.GraphStoreInputSerializer;
import io.gnnstream.state.HashPartitioner;
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
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Halo replicas end to end through Flink's keyed harnesses, on RocksDB and on the heap: the
 * {@link ReplicaRouter} gets node updates and cut edges as the job sends them, the GraphStore every
 * update and the router's pushes and drops.
 */
@Timeout(120)
class GraphStoreHaloTest {

    private static final int PARTITIONS = 8;
    private static final int DIM = 3;
    private static final VertexPartitioner PARTITIONER = new HashPartitioner(PARTITIONS);

    /** Vertex {@code a} in one partition, {@code v} and {@code w} in another, {@code x} in a third. */
    private static final long A = 1;
    private static final long V = otherThan(A, -1);
    private static final long W = inPartitionOf(V);
    private static final long X = otherThan(A, V);

    @ParameterizedTest
    @ValueSource(strings = {"rocksdb", "heap"})
    void updatesReachEveryReplicaAndTheLastEdgeDropsOne(String backend) throws Exception {
        int pv = PARTITIONER.partition(V);
        int px = PARTITIONER.partition(X);
        try (Graph g = new Graph(backend, 1)) {
            g.edge(A, V, false);
            assertEquals(List.of("CREATE(" + A + " @ " + pv + ")"), g.lastMessages());
            assertEquals(HaloReplicas.Status.ABSENT, g.halo(pv, A).status(pv, A), "no attributes yet");

            NodeUpdate a1 = g.node(A, 1f);
            assertArrayEquals(VertexRecord.encode(a1), g.halo(pv, A).record(pv, A), "a node update reaches the replica");
            g.edge(A, X, false);
            assertArrayEquals(VertexRecord.encode(a1), g.halo(px, A).record(px, A), "a new replica starts with the record");

            g.edge(A, W, false);
            g.edge(A, V, false);
            assertEquals(List.of(), g.lastMessages(), "a second in-edge into a partition, or a duplicate, changes nothing");
            g.edge(V, W, false);
            assertEquals(HaloReplicas.Status.NONE, g.halo(pv, V).status(pv, V), "an edge inside a partition makes no replica");

            NodeUpdate a2 = g.node(A, 2f);
            assertEquals(2, g.lastMessages().size(), "one push per holding partition");
            assertArrayEquals(VertexRecord.encode(a2), g.halo(pv, A).record(pv, A));
            assertArrayEquals(VertexRecord.encode(a2), g.halo(px, A).record(px, A));
            assertEquals(2.0, g.replicationFactor(), 1e-9, "two replicas of the one vertex with attributes");
            var store = g.stores.get(0);
            store.setProcessingTime(store.getProcessingTime() + 10_000);
            java.util.Map<Integer, GraphEvent> stats = new java.util.HashMap<>();
            store.getSideOutput(GraphStoreOperator.EVENTS).stream().map(StreamRecord::getValue)
                    .filter(e -> e.kind == GraphEvent.Kind.STATS).forEach(e -> stats.put(e.partition, e));
            assertEquals(4, stats.values().stream().mapToLong(e -> e.cutEdgesIngested).sum(),
                    "a->v twice, a->x, a->w: the edges from other partitions (v->w is inside one)");
            assertEquals(2, stats.values().stream().mapToLong(e -> e.replicas).sum(), "the stats carry the replicas");

            g.edge(A, V, true);
            assertEquals(List.of(), g.lastMessages(), "an in-edge from a is left in the partition");
            g.edge(A, W, true);
            assertEquals(List.of("DROP(" + A + " @ " + pv + ")"), g.lastMessages());
            assertEquals(HaloReplicas.Status.NONE, g.halo(pv, A).status(pv, A), "the last in-edge drops the replica");
            g.edge(A, W, true);
            assertEquals(List.of(), g.lastMessages(), "removing an absent edge changes nothing");

            NodeUpdate a3 = g.node(A, 3f);
            assertEquals(List.of("PUSH(" + A + " @ " + px + ")"), g.lastMessages(), "only the remaining holder");
            assertArrayEquals(VertexRecord.encode(a3), g.halo(px, A).record(px, A));
        }
    }

    /**
     * Router and store restored at parallelism 2 from a snapshot at 1: each replica is in the subtask
     * of its holding partition, and later updates and drops still reach it.
     */
    @ParameterizedTest
    @ValueSource(strings = {"rocksdb", "heap"})
    void replicasStayConsistentAfterARestoreAtAnotherParallelism(String backend) throws Exception {
        int pv = PARTITIONER.partition(V);
        int px = PARTITIONER.partition(X);
        OperatorSubtaskState routerState;
        OperatorSubtaskState storeState;
        NodeUpdate a1;
        try (Graph g = new Graph(backend, 1)) {
            a1 = g.node(A, 1f);
            g.edge(A, V, false);
            g.edge(A, W, false);
            g.edge(A, X, false);
            g.node(X, 4f);
            g.edge(X, V, false);
            routerState = g.routers.get(0).snapshot(1, 1);
            storeState = g.stores.get(0).snapshot(1, 1);
        }
        try (Graph g = new Graph(backend, 2, routerState, storeState)) {
            assertArrayEquals(VertexRecord.encode(a1), g.halo(pv, A).record(pv, A));
            assertArrayEquals(VertexRecord.encode(a1), g.halo(px, A).record(px, A));
            NodeUpdate a2 = g.node(A, 2f);
            assertArrayEquals(VertexRecord.encode(a2), g.halo(pv, A).record(pv, A));
            assertArrayEquals(VertexRecord.encode(a2), g.halo(px, A).record(px, A));
            g.edge(A, V, true);
            g.edge(A, W, true);
            assertEquals(HaloReplicas.Status.NONE, g.halo(pv, A).status(pv, A), "the restored counts drop it at the last edge");
            assertEquals(HaloReplicas.Status.PRESENT, g.halo(pv, X).status(pv, X));
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
            long[] remote = LongStream.range(2, 10_000).filter(u -> g.subtaskOf(PARTITIONER.keyOf(u)) != home)
                    .limit(2).toArray();
            long replicated = remote[0];
            long missing = remote[1];
            NodeUpdate r = g.node(replicated, 1f);
            NodeUpdate w = g.node(W, 2f);
            g.node(missing, 3f);
            g.edge(replicated, V, false);
            g.edge(W, V, false);
            var store = g.stores.get(home);
            // An edge the router has not seen yet: its source has no replica in V's partition.
            store.processElement(new StreamRecord<>(GraphStoreInput.of(GraphUpdate.of(
                    new EdgeUpdate(missing, V, false, EdgeUpdate.NO_TIMESTAMP)))));
            store.getOutput().clear();
            SampleRequest request = SampleRequest.sampleOnly(7, 7, 1, 0, 0, -1, new long[] {V})
                    .withFeatures(107, 0, 0, 0, new long[0], new int[0]);
            request.neighbourPart = 5;
            store.processElement(new StreamRecord<>(GraphStoreInput.of(request)));
            SampleResponse response = null;
            for (Object o : store.getOutput()) {
                if (o instanceof StreamRecord<?> rec && rec.getValue() instanceof SampleResponse sr) {
                    response = sr;
                }
            }
            List<StreamRecord<MiniBatchPart>> parts = new ArrayList<>(store.getSideOutput(GraphStoreOperator.FEATURES));
            MiniBatchPart part = MiniBatchPartSerializer.INSTANCE.copy(parts.get(parts.size() - 1).getValue());
            assertEquals(5, part.part);
            assertEquals(3, response.neighbours.length);
            List<Long> served = new ArrayList<>();
            for (int i = 0; i < response.neighbours.length; i++) {
                if (response.served(i)) {
                    served.add(response.neighbours[i]);
                }
            }
            assertEquals(served, LongStream.of(part.vertices).boxed().collect(Collectors.toList()),
                    "the bits mark what the part carries");
            assertEquals(java.util.Set.of(replicated, W), java.util.Set.copyOf(served), "a replica and an owned vertex");
            byte[] expected = new byte[DIM * Float.BYTES];
            VertexRecord.copyFeatureBytes(VertexRecord.encode(r), expected, 0);
            int at = served.indexOf(replicated);
            assertArrayEquals(expected, java.util.Arrays.copyOfRange(part.features, at * DIM * Float.BYTES,
                    (at + 1) * DIM * Float.BYTES));
            assertEquals(w.label, part.labels[served.indexOf(W)]);
        }
    }

    /**
     * With a buffer, the router applies edges at a node update of their source, before a checkpoint
     * barrier or when full, with the same messages as one edge at a time.
     */
    @ParameterizedTest
    @ValueSource(strings = {"rocksdb", "heap"})
    void bufferedEdgesGiveTheSameReplicaMessages(String backend) throws Exception {
        int pv = PARTITIONER.partition(V);
        int px = PARTITIONER.partition(X);
        KeySelector<GraphStoreInput, VertexKey> sourceKey = in -> PARTITIONER.keyOf(
                in.update.edge != null ? in.update.edge.src : in.update.node.id);
        try (var router = new KeyedOneInputStreamOperatorTestHarness<>(new ReplicaRouter(PARTITIONER, 100), sourceKey,
                VertexKeyTypeInfo.INSTANCE, PARTITIONS, 1, 0)) {
            backend(router, backend);
            router.open();
            for (long[] e : new long[][] {{A, V, 0}, {A, W, 0}, {A, X, 0}, {A, V, 1}, {V, X, 0}}) {
                router.processElement(new StreamRecord<>(GraphStoreInput.of(GraphUpdate.of(
                        new EdgeUpdate(e[0], e[1], e[2] == 1, EdgeUpdate.NO_TIMESTAMP)))));
            }
            assertEquals(List.of(), router.extractOutputValues(), "buffered");
            router.processElement(new StreamRecord<>(GraphStoreInput.of(GraphUpdate.of(
                    new NodeUpdate(A, new float[] {1, 1, 1}, 1, Split.TRAIN)))));
            List<String> first = router.extractOutputValues().stream()
                    .map(m -> m.replica.kind + "(" + m.replica.vertex + " @ " + m.replica.holder + ")").sorted()
                    .collect(Collectors.toList());
            assertEquals(List.of("CREATE(" + A + " @ " + px + ")", "CREATE(" + A + " @ " + pv + ")",
                    "PUSH(" + A + " @ " + px + ")", "PUSH(" + A + " @ " + pv + ")").stream().sorted()
                    .collect(Collectors.toList()), first, "a's edges first, then its update to both holders");
            router.prepareSnapshotPreBarrier(1);
            List<GraphStoreInput> all = router.extractOutputValues();
            assertEquals("CREATE(" + V + " @ " + px + ")", all.get(all.size() - 1).replica.kind + "("
                    + all.get(all.size() - 1).replica.vertex + " @ " + all.get(all.size() - 1).replica.holder + ")",
                    "the barrier applies the rest");
        }
    }

    /** Routers and stores at one parallelism, wired as the job wires them. */
    private static final class Graph implements AutoCloseable {
        final List<KeyedOneInputStreamOperatorTestHarness<VertexKey, GraphStoreInput, GraphStoreInput>> routers =
                new ArrayList<>();
        final List<KeyedOneInputStreamOperatorTestHarness<VertexKey, GraphStoreInput, SampleResponse>> stores =
                new ArrayList<>();
        private final int parallelism;
        private final int[] taken;
        private List<ReplicaMessage> last = List.of();

        Graph(String backend, int parallelism) throws Exception {
            this(backend, parallelism, null, null);
        }

        Graph(String backend, int parallelism, OperatorSubtaskState routerState, OperatorSubtaskState storeState)
                throws Exception {
            this.parallelism = parallelism;
            this.taken = new int[parallelism];
            KeySelector<GraphStoreInput, VertexKey> sourceKey = in -> PARTITIONER.keyOf(
                    in.update.edge != null ? in.update.edge.src : in.update.node.id);
            KeySelector<GraphStoreInput, VertexKey> storeKey = in -> in.update != null
                    ? PARTITIONER.keyOf(in.update.ownerVertex())
                    : in.replica != null ? in.replica.key() : VertexKey.anchor(in.requests[0].route);
            for (int i = 0; i < parallelism; i++) {
                var router = new KeyedOneInputStreamOperatorTestHarness<>(new ReplicaRouter(PARTITIONER, 1), sourceKey, VertexKeyTypeInfo.INSTANCE, PARTITIONS, parallelism, i);
                var store = new KeyedOneInputStreamOperatorTestHarness<>(new GraphStoreOperator(PARTITIONER,
                        new GraphStoreConfig(42L, DIM, 1000L, 4096, 4096, 1, 0).withHalo(true)),
                        storeKey, VertexKeyTypeInfo.INSTANCE, PARTITIONS, parallelism, i);
                backend(router, backend);
                backend(store, backend);
                if (routerState != null) {
                    router.initializeState(AbstractStreamOperatorTestHarness.repartitionOperatorState(
                            routerState, PARTITIONS, 1, parallelism, i));
                    store.initializeState(AbstractStreamOperatorTestHarness.repartitionOperatorState(
                            storeState, PARTITIONS, 1, parallelism, i));
                }
                router.open();
                store.open();
                routers.add(router);
                stores.add(store);
            }
        }

        NodeUpdate node(long id, float value) throws Exception {
            NodeUpdate node = new NodeUpdate(id, new float[] {value, value, value}, 1, Split.TRAIN);
            GraphStoreInput in = GraphStoreInput.of(GraphUpdate.of(node));
            stores.get(subtaskOf(PARTITIONER.keyOf(id))).processElement(new StreamRecord<>(in));
            routers.get(subtaskOf(PARTITIONER.keyOf(id))).processElement(new StreamRecord<>(in));
            deliver();
            return node;
        }

        void edge(long src, long dst, boolean remove) throws Exception {
            GraphStoreInput in = GraphStoreInput.of(GraphUpdate.of(new EdgeUpdate(src, dst, remove, EdgeUpdate.NO_TIMESTAMP)));
            stores.get(subtaskOf(PARTITIONER.keyOf(dst))).processElement(new StreamRecord<>(in));
            if (PARTITIONER.partition(src) != PARTITIONER.partition(dst)) {
                routers.get(subtaskOf(PARTITIONER.keyOf(src))).processElement(new StreamRecord<>(in));
            }
            deliver();
        }

        /** Hands the routers' new messages, through the record serializer, to the stores owning their keys. */
        private void deliver() throws Exception {
            List<ReplicaMessage> delivered = new ArrayList<>();
            for (int i = 0; i < parallelism; i++) {
                List<GraphStoreInput> out = routers.get(i).extractOutputValues();
                for (int j = taken[i]; j < out.size(); j++) {
                    GraphStoreInput copy = GraphStoreInputSerializer.INSTANCE.copy(out.get(j));
                    delivered.add(copy.replica);
                    stores.get(subtaskOf(copy.replica.key())).processElement(new StreamRecord<>(copy));
                }
                taken[i] = out.size();
            }
            last = delivered;
        }

        /** The messages the last update caused. */
        List<String> lastMessages() {
            return last.stream().map(m -> m.kind + "(" + m.vertex + " @ " + m.holder + ")").collect(Collectors.toList());
        }

        /** The replicas of the subtask holding the replica of {@code vertex} in {@code holder}. */
        HaloReplicas halo(int holder, long vertex) {
            return ((GraphStoreOperator) stores.get(subtaskOf(new VertexKey(holder, vertex))).getOperator()).halo();
        }

        double replicationFactor() {
            double replicas = 0;
            double vertices = 0;
            for (var s : stores) {
                GraphStoreOperator op = (GraphStoreOperator) s.getOperator();
                replicas += op.replicas();
                vertices += op.vertices();
            }
            return replicas / vertices;
        }

        int subtaskOf(VertexKey key) {
            return KeyGroupRangeAssignment.assignKeyToParallelOperator(key, PARTITIONS, parallelism);
        }

        @Override
        public void close() throws Exception {
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

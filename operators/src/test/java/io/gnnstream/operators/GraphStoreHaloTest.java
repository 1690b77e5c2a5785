package io.gnnstream.operators;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.operators.internal.HaloReplicas;
import io.gnnstream.operators.messages.GraphStoreInput;
import io.gnnstream.operators.messages.GraphUpdate;
import io.gnnstream.operators.messages.ReplicaMessage;
import io.gnnstream.operators.messages.SampleResponse;
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
 * Halo replicas in the GraphStore through Flink's keyed harness, on RocksDB and on the heap. The
 * test plays the sampling loop's feedback edge: it hands the operator's replica messages back to
 * the subtask that owns their key.
 */
@Timeout(120)
class GraphStoreHaloTest {

    private static final int PARTITIONS = 8;
    private static final int DIM = 3;
    private static final VertexPartitioner PARTITIONER = new HashPartitioner(PARTITIONS);

    /** Vertex {@code a} in one partition, {@code v} and {@code w} in another, {@code x} in a third. */
    private static final long A = 1;
    private static final long V = otherThan(A, -1, 0);
    private static final long W = inPartitionOf(V, V);
    private static final long X = otherThan(A, V, W);

    @ParameterizedTest
    @ValueSource(strings = {"rocksdb", "heap"})
    void updatesReachEveryReplicaAndTheLastEdgeDropsOne(String backend) throws Exception {
        int pv = PARTITIONER.partition(V);
        int px = PARTITIONER.partition(X);
        try (var h = harness(backend, 1, 0)) {
            h.open();
            Loop loop = new Loop(List.of(h));
            edge(h, A, V, false);
            edge(h, A, X, false);
            List<ReplicaMessage> first = loop.run();
            assertEquals(List.of("SUBSCRIBE(" + A + " @ " + pv + ")", "SUBSCRIBE(" + A + " @ " + px + ")",
                    "PUSH(" + A + " @ " + pv + ")", "PUSH(" + A + " @ " + px + ")"), names(first));
            HaloReplicas halo = op(h).halo();
            assertEquals(HaloReplicas.Status.ABSENT, halo.status(pv, A), "the owner has no attributes yet");
            assertArrayEquals(new int[] {Math.min(pv, px), Math.max(pv, px)}, halo.holders(A));

            NodeUpdate a1 = node(h, A, 1f);
            loop.run();
            assertArrayEquals(VertexRecord.encode(a1), halo.record(pv, A), "the owner's write reaches the replica");
            assertArrayEquals(VertexRecord.encode(a1), halo.record(px, A));

            edge(h, A, W, false);
            edge(h, A, V, false);
            assertEquals(List.of(), loop.run(), "a second in-edge into the partition subscribes nothing");
            assertEquals(2, halo.edges(pv, A), "a duplicate edge is not counted");
            edge(h, V, W, false);
            loop.run();
            assertEquals(HaloReplicas.Status.NONE, halo.status(pv, V), "an edge inside a partition makes no replica");

            NodeUpdate a2 = node(h, A, 2f);
            loop.run();
            assertArrayEquals(VertexRecord.encode(a2), halo.record(pv, A));
            assertArrayEquals(VertexRecord.encode(a2), halo.record(px, A));

            edge(h, A, V, true);
            assertEquals(List.of(), loop.run());
            assertEquals(1, halo.edges(pv, A));
            edge(h, A, W, true);
            assertEquals(List.of("UNSUBSCRIBE(" + A + " @ " + pv + ")"), names(loop.run()));
            assertEquals(HaloReplicas.Status.NONE, halo.status(pv, A), "the last in-edge drops the replica");
            assertArrayEquals(new int[] {px}, halo.holders(A));

            NodeUpdate a3 = node(h, A, 3f);
            assertEquals(List.of("PUSH(" + A + " @ " + px + ")"), names(loop.run()), "only the remaining holder is sent to");
            assertArrayEquals(VertexRecord.encode(a3), halo.record(px, A));

            // A push to a partition that dropped its replica (an unsubscription lost at a failure) unsubscribes.
            loop.send(ReplicaMessage.push(A, pv, VertexRecord.encode(a3)));
            assertEquals(List.of("PUSH(" + A + " @ " + pv + ")", "UNSUBSCRIBE(" + A + " @ " + pv + ")"), names(loop.run()));
            assertEquals(HaloReplicas.Status.NONE, halo.status(pv, A));
        }
    }

    /**
     * A checkpoint taken while a push is in flight (lost with the failure), restored at parallelism
     * 2: each subtask subscribes the replicas of its partitions again, and the owners' pushes bring
     * them up to date.
     */
    @ParameterizedTest
    @ValueSource(strings = {"rocksdb", "heap"})
    void aRestoreAtAnotherParallelismBringsReplicasUpToDate(String backend) throws Exception {
        int pv = PARTITIONER.partition(V);
        int px = PARTITIONER.partition(X);
        OperatorSubtaskState snapshot;
        NodeUpdate latest;
        try (var h = harness(backend, 1, 0)) {
            h.open();
            Loop loop = new Loop(List.of(h));
            node(h, A, 1f);
            edge(h, A, V, false);
            edge(h, A, X, false);
            edge(h, X, V, false);
            loop.run();
            latest = node(h, A, 7f);
            // The pushes of the last write are in flight on the feedback edge: not part of the checkpoint.
            snapshot = h.snapshot(1, 1);
        }
        List<KeyedOneInputStreamOperatorTestHarness<VertexKey, GraphStoreInput, SampleResponse>> subtasks = new ArrayList<>();
        try (var s0 = harness(backend, 2, 0); var s1 = harness(backend, 2, 1)) {
            subtasks.add(s0);
            subtasks.add(s1);
            for (int i = 0; i < 2; i++) {
                subtasks.get(i).initializeState(AbstractStreamOperatorTestHarness.repartitionOperatorState(
                        snapshot, PARTITIONS, 1, 2, i));
                subtasks.get(i).open();
            }
            Loop loop = new Loop(subtasks);
            List<ReplicaMessage> delivered = loop.run();
            assertEquals(3, delivered.stream().filter(m -> m.kind == ReplicaMessage.Kind.SUBSCRIBE).count(),
                    "every replica subscribed again: " + names(delivered));
            byte[] record = VertexRecord.encode(latest);
            assertArrayEquals(record, op(subtasks.get(subtaskOf(new VertexKey(pv, A)))).halo().record(pv, A));
            assertArrayEquals(record, op(subtasks.get(subtaskOf(new VertexKey(px, A)))).halo().record(px, A));
            NodeUpdate x = node(subtasks.get(subtaskOf(PARTITIONER.keyOf(X))), X, 5f);
            loop.run();
            assertArrayEquals(VertexRecord.encode(x), op(subtasks.get(subtaskOf(new VertexKey(pv, X)))).halo().record(pv, X),
                    "replicas keep following their owners after the rescale");
            assertEquals(2, op(subtasks.get(subtaskOf(new VertexKey(pv, A)))).halo().edges(pv, A)
                    + op(subtasks.get(subtaskOf(new VertexKey(px, A)))).halo().edges(px, A));
        }
    }

    /** Hands replica messages to the subtask owning their key until none is left (the feedback edge). */
    private static final class Loop {
        private final List<KeyedOneInputStreamOperatorTestHarness<VertexKey, GraphStoreInput, SampleResponse>> subtasks;
        private final int[] taken;
        private final List<ReplicaMessage> injected = new ArrayList<>();

        Loop(List<KeyedOneInputStreamOperatorTestHarness<VertexKey, GraphStoreInput, SampleResponse>> subtasks) {
            this.subtasks = subtasks;
            this.taken = new int[subtasks.size()];
        }

        void send(ReplicaMessage m) {
            injected.add(m);
        }

        List<ReplicaMessage> run() throws Exception {
            List<ReplicaMessage> delivered = new ArrayList<>();
            while (true) {
                List<ReplicaMessage> batch = new ArrayList<>(injected);
                injected.clear();
                for (int i = 0; i < subtasks.size(); i++) {
                    var emitted = subtasks.get(i).getSideOutput(GraphStoreOperator.REPLICA_MESSAGES);
                    List<StreamRecord<GraphStoreInput>> out = emitted == null ? List.of() : new ArrayList<>(emitted);
                    for (int j = taken[i]; j < out.size(); j++) {
                        // Through the record serializer, as on the network.
                        GraphStoreInput copy = GraphStoreInputSerializer.INSTANCE.copy(out.get(j).getValue());
                        batch.add(copy.replica);
                    }
                    taken[i] = out.size();
                }
                if (batch.isEmpty()) {
                    return delivered;
                }
                for (ReplicaMessage m : batch) {
                    delivered.add(m);
                    int target = subtasks.size() == 1 ? 0 : subtaskOf(m.key(PARTITIONER));
                    subtasks.get(target).processElement(new StreamRecord<>(GraphStoreInput.of(m)));
                }
            }
        }
    }

    private static int subtaskOf(VertexKey key) {
        return KeyGroupRangeAssignment.assignKeyToParallelOperator(key, PARTITIONS, 2);
    }

    private static List<String> names(List<ReplicaMessage> messages) {
        return messages.stream().map(m -> m.kind + "(" + m.vertex + " @ " + m.holder + ")").collect(Collectors.toList());
    }

    private static GraphStoreOperator op(KeyedOneInputStreamOperatorTestHarness<VertexKey, GraphStoreInput, SampleResponse> h) {
        return (GraphStoreOperator) h.getOperator();
    }

    private static KeyedOneInputStreamOperatorTestHarness<VertexKey, GraphStoreInput, SampleResponse> harness(
            String backend, int parallelism, int subtask) throws Exception {
        KeySelector<GraphStoreInput, VertexKey> key = in -> in.update != null
                ? PARTITIONER.keyOf(in.update.ownerVertex())
                : in.replica != null ? in.replica.key(PARTITIONER) : VertexKey.anchor(in.requests[0].route);
        // Edge buffer of 1: every edge is written (and counted for its replica) at once.
        var h = new KeyedOneInputStreamOperatorTestHarness<>(
                new GraphStoreOperator(PARTITIONER, new GraphStoreConfig(42L, DIM, 1000L, 4096, 4096, 1, 0).withHalo(true)),
                key, VertexKeyTypeInfo.INSTANCE, PARTITIONS, parallelism, subtask);
        if ("rocksdb".equals(backend)) {
            EmbeddedRocksDBStateBackend rocksDb = new EmbeddedRocksDBStateBackend();
            rocksDb.getMemoryConfiguration().setUseManagedMemory(false);
            h.setStateBackend(rocksDb);
        } else {
            h.setStateBackend(new HashMapStateBackend());
        }
        return h;
    }

    private static NodeUpdate node(KeyedOneInputStreamOperatorTestHarness<VertexKey, GraphStoreInput, SampleResponse> h,
            long id, float value) throws Exception {
        NodeUpdate node = new NodeUpdate(id, new float[] {value, value, value}, 1, Split.TRAIN);
        h.processElement(new StreamRecord<>(GraphStoreInput.of(GraphUpdate.of(node))));
        return node;
    }

    private static void edge(KeyedOneInputStreamOperatorTestHarness<VertexKey, GraphStoreInput, SampleResponse> h,
            long src, long dst, boolean remove) throws Exception {
        h.processElement(new StreamRecord<>(GraphStoreInput.of(GraphUpdate.of(
                new EdgeUpdate(src, dst, remove, EdgeUpdate.NO_TIMESTAMP)))));
    }

    /** The smallest vertex above 1 in a partition other than those of {@code a}, {@code b} and {@code c}. */
    private static long otherThan(long a, long b, long c) {
        for (long u = 2; ; u++) {
            int p = PARTITIONER.partition(u);
            if (p != PARTITIONER.partition(a) && (b < 0 || p != PARTITIONER.partition(b))
                    && (c <= 0 || p != PARTITIONER.partition(c))) {
                return u;
            }
        }
    }

    /** The smallest vertex above {@code other} in the partition of {@code v}. */
    private static long inPartitionOf(long v, long other) {
        for (long u = other + 1; ; u++) {
            if (PARTITIONER.partition(u) == PARTITIONER.partition(v)) {
                return u;
            }
        }
    }
}

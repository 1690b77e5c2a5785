package io.gnnstream.operators.internal;

import io.gnnstream.operators.messages.ReplicaMessage;
import io.gnnstream.state.VertexKey;
import io.gnnstream.state.VertexPartitioner;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.function.Consumer;
import org.apache.flink.api.common.state.KeyedStateStore;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer;
import org.apache.flink.api.common.typeutils.base.array.IntPrimitiveArraySerializer;

/**
 * The GraphStore's halo replicas (see docs/design.md, "Halo replicas"): in each partition, a copy
 * of the attribute record of every vertex of another partition that has an in-edge into it, and
 * at each owner the partitions holding a copy of its vertex.
 *
 * <p>Keyed state, so replicas checkpoint, restore and rescale with their partition:
 * {@link #REPLICAS} under {@code VertexKey(holder, vertex)} holds the number of in-edges from the
 * vertex into the holding partition, whether the owner's record has arrived, and the record;
 * {@link #HOLDERS} under the owner's key holds the holding partitions, sorted. A replica is created
 * by the first such edge (which sends a {@code SUBSCRIBE} to the owner) and dropped with the last
 * (an {@code UNSUBSCRIBE}); the owner pushes the record on subscription and on every write. A
 * push for a replica that is not held answers with an {@code UNSUBSCRIBE}, so an owner that missed
 * an unsubscription stops pushing after one more push. Messages travel on the sampling loop's
 * feedback edge, which keeps their order between two subtasks but loses what is in flight at a
 * failure: after a restore, {@link #resubscribe} subscribes every held replica again, and the
 * owners' pushes bring them up to date.
 *
 * <p>Every method switches the operator's current key (through {@code keys}) as it needs; callers
 * set their own key again afterwards.
 */
public final class HaloReplicas {

    public static final ValueStateDescriptor<byte[]> REPLICAS =
            new ValueStateDescriptor<>("halo-replicas", BytePrimitiveArraySerializer.INSTANCE);
    public static final ValueStateDescriptor<int[]> HOLDERS =
            new ValueStateDescriptor<>("halo-holders", IntPrimitiveArraySerializer.INSTANCE);

    /** Replica value: in-edge count (int), {@link #PENDING}/{@link #ABSENT}/{@link #PRESENT} (byte), record. */
    private static final int HEADER = Integer.BYTES + 1;
    private static final byte PENDING = 0;
    private static final byte ABSENT = 1;
    private static final byte PRESENT = 2;

    /** What a replica read finds. */
    public enum Status {
        /** No replica of the vertex in the partition. */
        NONE,
        /** A replica whose owner has not answered yet. */
        PENDING,
        /** The owner has no attributes for the vertex yet. */
        ABSENT,
        /** The owner's record. */
        PRESENT
    }

    private final ValueState<byte[]> replicas;
    private final ValueState<int[]> holders;
    private final VertexPartitioner partitioner;
    private final Consumer<VertexKey> keys;
    private final Consumer<ReplicaMessage> out;
    private long pushesSent;

    public HaloReplicas(KeyedStateStore store, VertexPartitioner partitioner, Consumer<VertexKey> keys,
            Consumer<ReplicaMessage> out) {
        this.replicas = store.getState(REPLICAS);
        this.holders = store.getState(HOLDERS);
        this.partitioner = partitioner;
        this.keys = keys;
        this.out = out;
    }

    /**
     * {@code count} new in-edges from {@code source} into partition {@code holder}; returns whether
     * they created the replica (and so sent a subscription).
     */
    public boolean addEdges(int holder, long source, int count) throws Exception {
        keys.accept(new VertexKey(holder, source));
        byte[] value = replicas.value();
        if (value == null) {
            value = new byte[HEADER];
            value[Integer.BYTES] = PENDING;
            ByteBuffer.wrap(value).putInt(0, count);
            replicas.update(value);
            out.accept(ReplicaMessage.subscribe(source, holder));
            return true;
        }
        ByteBuffer.wrap(value).putInt(0, edges(value) + count);
        replicas.update(value);
        return false;
    }

    /** One in-edge from {@code source} into {@code holder} removed; returns whether it dropped the replica. */
    public boolean removeEdge(int holder, long source) throws Exception {
        keys.accept(new VertexKey(holder, source));
        byte[] value = replicas.value();
        if (value == null) {
            return false;
        }
        int left = edges(value) - 1;
        if (left > 0) {
            ByteBuffer.wrap(value).putInt(0, left);
            replicas.update(value);
            return false;
        }
        replicas.clear();
        out.accept(ReplicaMessage.unsubscribe(source, holder));
        return true;
    }

    /**
     * Applies a message keyed to this subtask; {@code ownerRecord} is the current key's attribute
     * record (the owner's, for subscriptions).
     */
    public void receive(ReplicaMessage message, byte[] ownerRecord) throws Exception {
        switch (message.kind) {
            case SUBSCRIBE -> {
                keys.accept(partitioner.keyOf(message.vertex));
                int[] present = holders.value();
                int[] next = insert(present, message.holder);
                if (next != present) {
                    holders.update(next);
                }
                push(message.vertex, message.holder, ownerRecord);
            }
            case UNSUBSCRIBE -> {
                keys.accept(partitioner.keyOf(message.vertex));
                int[] present = holders.value();
                int[] next = delete(present, message.holder);
                if (next == null) {
                    holders.clear();
                } else if (next != present) {
                    holders.update(next);
                }
            }
            case PUSH -> {
                keys.accept(new VertexKey(message.holder, message.vertex));
                byte[] value = replicas.value();
                if (value == null) {
                    out.accept(ReplicaMessage.unsubscribe(message.vertex, message.holder));
                    return;
                }
                byte[] record = message.record;
                byte[] next = new byte[HEADER + (record == null ? 0 : record.length)];
                System.arraycopy(value, 0, next, 0, Integer.BYTES);
                next[Integer.BYTES] = record == null ? ABSENT : PRESENT;
                if (record != null) {
                    System.arraycopy(record, 0, next, HEADER, record.length);
                }
                replicas.update(next);
            }
            default -> throw new IllegalStateException("unknown replica message " + message);
        }
    }

    /** The owner wrote {@code vertex}'s record (the current key is the owner's): pushes it to every holder. */
    public void attributesWritten(long vertex, byte[] record) throws Exception {
        int[] present = holders.value();
        if (present != null) {
            for (int holder : present) {
                push(vertex, holder, record);
            }
        }
    }

    /** What partition {@code holder} holds of {@code vertex}. */
    public Status status(int holder, long vertex) throws Exception {
        keys.accept(new VertexKey(holder, vertex));
        byte[] value = replicas.value();
        if (value == null) {
            return Status.NONE;
        }
        return switch (value[Integer.BYTES]) {
            case PENDING -> Status.PENDING;
            case ABSENT -> Status.ABSENT;
            default -> Status.PRESENT;
        };
    }

    /** The record partition {@code holder} holds of {@code vertex}, or null unless {@link Status#PRESENT}. */
    public byte[] record(int holder, long vertex) throws Exception {
        keys.accept(new VertexKey(holder, vertex));
        byte[] value = replicas.value();
        return value == null || value[Integer.BYTES] != PRESENT ? null : Arrays.copyOfRange(value, HEADER, value.length);
    }

    /** In-edges from {@code vertex} into {@code holder} (0 without a replica). */
    public int edges(int holder, long vertex) throws Exception {
        keys.accept(new VertexKey(holder, vertex));
        byte[] value = replicas.value();
        return value == null ? 0 : edges(value);
    }

    /** The partitions holding a replica of {@code vertex} (asked at its owner). */
    public int[] holders(long vertex) throws Exception {
        keys.accept(partitioner.keyOf(vertex));
        int[] present = holders.value();
        return present == null ? new int[0] : present.clone();
    }

    /** Subscribes the replica under {@code key} again (after a restore). */
    public void resubscribe(VertexKey key) {
        out.accept(ReplicaMessage.subscribe(key.vertex(), key.partition()));
    }

    /** Pushes sent by this subtask since it started. */
    public long pushesSent() {
        return pushesSent;
    }

    private void push(long vertex, int holder, byte[] record) {
        pushesSent++;
        out.accept(ReplicaMessage.push(vertex, holder, record));
    }

    private static int edges(byte[] value) {
        return ByteBuffer.wrap(value).getInt(0);
    }

    /** {@code sorted} with {@code x} (the same array when it holds it already). */
    static int[] insert(int[] sorted, int x) {
        if (sorted == null) {
            return new int[] {x};
        }
        int at = Arrays.binarySearch(sorted, x);
        if (at >= 0) {
            return sorted;
        }
        int i = -at - 1;
        int[] next = new int[sorted.length + 1];
        System.arraycopy(sorted, 0, next, 0, i);
        next[i] = x;
        System.arraycopy(sorted, i, next, i + 1, sorted.length - i);
        return next;
    }

    /** {@code sorted} without {@code x} (the same array when it lacks it; null when nothing is left). */
    static int[] delete(int[] sorted, int x) {
        if (sorted == null) {
            return null;
        }
        int at = Arrays.binarySearch(sorted, x);
        if (at < 0) {
            return sorted;
        }
        if (sorted.length == 1) {
            return null;
        }
        int[] next = new int[sorted.length - 1];
        System.arraycopy(sorted, 0, next, 0, at);
        System.arraycopy(sorted, at + 1, next, at, sorted.length - at - 1);
        return next;
    }
}

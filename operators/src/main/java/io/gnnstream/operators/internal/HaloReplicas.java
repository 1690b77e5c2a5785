package io.gnnstream.operators.internal;

import io.gnnstream.operators.messages.ReplicaMessage;
import io.gnnstream.state.VertexKey;
import java.util.Arrays;
import java.util.function.Consumer;
import org.apache.flink.api.common.state.KeyedStateStore;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer;

/**
 * The GraphStore's side of halo replicas (see docs/design.md, "Halo replicas"): the copies a
 * partition holds of other partitions' vertices, as the {@code ReplicaRouter} pushes and drops
 * them. Keyed state under {@code VertexKey(holding partition, vertex)}, so replicas checkpoint,
 * restore and rescale with their partition. Each method switches the operator's current key
 * (through {@code keys}); callers set their own key again afterwards.
 */
public final class HaloReplicas {

    public static final ValueStateDescriptor<byte[]> REPLICAS =
            new ValueStateDescriptor<>("halo-replicas", BytePrimitiveArraySerializer.INSTANCE);

    /** Replica value: {@link #ABSENT} or {@link #PRESENT} (byte), then the record when present. */
    private static final byte ABSENT = 1;
    private static final byte PRESENT = 2;

    /** What a replica read finds. */
    public enum Status {
        /** No replica of the vertex in the partition. */
        NONE,
        /** The vertex has no attributes yet. */
        ABSENT,
        /** A copy of the vertex's record. */
        PRESENT
    }

    private final ValueState<byte[]> replicas;
    private final Consumer<VertexKey> keys;

    public HaloReplicas(KeyedStateStore store, Consumer<VertexKey> keys) {
        this.replicas = store.getState(REPLICAS);
        this.keys = keys;
    }

    /**
     * Applies a creation, push or drop, each one write; returns +1 for a creation, -1 for a drop,
     * else 0 (the router sends exactly one creation and one drop per replica).
     */
    public int apply(ReplicaMessage message) throws Exception {
        keys.accept(message.key());
        if (message.kind == ReplicaMessage.Kind.DROP) {
            replicas.clear();
            return -1;
        }
        byte[] record = message.record;
        byte[] value = new byte[1 + (record == null ? 0 : record.length)];
        value[0] = record == null ? ABSENT : PRESENT;
        if (record != null) {
            System.arraycopy(record, 0, value, 1, record.length);
        }
        replicas.update(value);
        return message.kind == ReplicaMessage.Kind.CREATE ? 1 : 0;
    }

    /** What partition {@code holder} holds of {@code vertex}. */
    public Status status(int holder, long vertex) throws Exception {
        keys.accept(new VertexKey(holder, vertex));
        byte[] value = replicas.value();
        return value == null ? Status.NONE : value[0] == PRESENT ? Status.PRESENT : Status.ABSENT;
    }

    /**
     * In one read: the record partition {@code holder} holds of {@code vertex}, {@code absent} when
     * the vertex has no attributes, or null without a replica.
     */
    public byte[] read(int holder, long vertex, byte[] absent) throws Exception {
        keys.accept(new VertexKey(holder, vertex));
        byte[] value = replicas.value();
        if (value == null) {
            return null;
        }
        return value[0] == PRESENT ? Arrays.copyOfRange(value, 1, value.length) : absent;
    }

    /** The record partition {@code holder} holds of {@code vertex}, or null unless {@link Status#PRESENT}. */
    public byte[] record(int holder, long vertex) throws Exception {
        return read(holder, vertex, null);
    }
}

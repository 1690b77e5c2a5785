package io.gnnstream.operators.store;

import io.gnnstream.operators.messages.ReplicaMessage;
import io.gnnstream.state.StoreSites;
import io.gnnstream.state.VertexKey;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.api.common.state.KeyedStateStore;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer;

/**
 * The GraphStore's side of halo replicas (see docs/design.md, "Halo replicas"): the copies a site
 * (GraphStore subtask) holds of other sites' vertices, as the {@code ReplicaRouter} creates, pushes
 * and drops them. Keyed state under {@code VertexKey(holder, vertex)}, the holder being the first
 * partition of the site ({@link StoreSites#holderOf}), so replicas checkpoint with their site.
 * Union operator state records the parallelism they were made for: a restore at another one drops
 * them all, and the router makes them again for the new sites. Each method switches the current key
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

    /** The GraphStore parallelism the replicas were made for. */
    public static final ListStateDescriptor<Integer> MADE_FOR =
            new ListStateDescriptor<>("halo-replicas-sites", IntSerializer.INSTANCE);

    private final ValueState<byte[]> replicas;
    private final ListState<Integer> madeFor;
    private final int parallelism;
    private final CurrentKey keys;
    private final boolean droppedAtRestore;

    /**
     * The replicas of a GraphStore subtask at {@code parallelism} in {@code store}, with the
     * parallelisms they were made for in {@code madeFor} (union operator state registered with
     * {@link #MADE_FOR}); drops those restored from a snapshot at another parallelism (or without
     * that record) ({@link #droppedAtRestore()}).
     */
    public HaloReplicas(
            KeyedStateStore store,
            ListState<Integer> madeFor,
            boolean restored,
            int parallelism,
            CurrentKey keys,
            StoredKeys stored)
            throws Exception {
        this.replicas = store.getState(REPLICAS);
        this.madeFor = madeFor;
        this.parallelism = parallelism;
        this.keys = keys;
        this.droppedAtRestore = restored && StoreSites.madeForAnother(madeFor.get(), parallelism);
        if (droppedAtRestore) {
            for (VertexKey key : stored.of(REPLICAS.getName(), k -> true)) {
                keys.set(key);
                replicas.clear();
            }
        }
    }

    /** Whether the restore dropped the replicas made for another parallelism. */
    public boolean droppedAtRestore() {
        return droppedAtRestore;
    }

    /** Records the parallelism the replicas are made for; called at every snapshot. */
    public void snapshot() throws Exception {
        madeFor.update(List.of(parallelism));
    }

    /**
     * Applies a creation, push or drop; returns +1 for a creation, -1 when a drop removes a replica
     * that was there, else 0. The router creates a replica only where none is held and pushes only
     * to holders, so a creation or push is one write; a drop reads first.
     */
    public int apply(ReplicaMessage message) throws Exception {
        keys.set(message.key());
        if (message.kind == ReplicaMessage.Kind.DROP) {
            boolean held = replicas.value() != null;
            replicas.clear();
            return held ? -1 : 0;
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

    /** What the site whose holder partition is {@code holder} holds of {@code vertex}. */
    public Status status(int holder, long vertex) throws Exception {
        keys.set(new VertexKey(holder, vertex));
        byte[] value = replicas.value();
        return value == null ? Status.NONE : value[0] == PRESENT ? Status.PRESENT : Status.ABSENT;
    }

    /**
     * The record the site of holder partition {@code holder} holds of {@code vertex}, or null
     * unless {@link Status#PRESENT}.
     */
    public byte[] record(int holder, long vertex) throws Exception {
        keys.set(new VertexKey(holder, vertex));
        byte[] value = replicas.value();
        return value == null || value[0] != PRESENT
                ? null
                : Arrays.copyOfRange(value, 1, value.length);
    }
}

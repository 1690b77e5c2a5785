package io.gnnstream.operators.messages;

import io.gnnstream.state.VertexKey;
import io.gnnstream.state.VertexPartitioner;

/**
 * Keeps halo replicas in step with their owners (see docs/design.md, "Halo replicas"). A partition
 * that gains its first in-edge from a vertex of another partition {@link Kind#SUBSCRIBE}s to it at
 * the owner, and {@link Kind#UNSUBSCRIBE}s when its last such edge is removed; the owner answers a
 * subscription, and every later write of the vertex's attributes, with a {@link Kind#PUSH} of the
 * attribute record to the holding partition. Travels on the sampling loop's feedback edge, keyed by
 * the state it changes: the owner's vertex key, or the replica's key in the holding partition.
 */
public class ReplicaMessage {

    /** What the message asks. */
    public enum Kind {
        SUBSCRIBE,
        UNSUBSCRIBE,
        PUSH;

        private static final Kind[] VALUES = values();

        public static Kind ofOrdinal(int ordinal) {
            if (ordinal < 0 || ordinal >= VALUES.length) {
                throw new IllegalArgumentException("unknown replica message kind " + ordinal);
            }
            return VALUES[ordinal];
        }
    }

    public Kind kind;
    /** The replicated vertex. */
    public long vertex;
    /** The partition that holds (or asks for) the replica. */
    public int holder;
    /** {@link Kind#PUSH}: the owner's attribute record, or null while the owner has none. */
    public byte[] record;

    public ReplicaMessage() {}

    public static ReplicaMessage subscribe(long vertex, int holder) {
        return of(Kind.SUBSCRIBE, vertex, holder, null);
    }

    public static ReplicaMessage unsubscribe(long vertex, int holder) {
        return of(Kind.UNSUBSCRIBE, vertex, holder, null);
    }

    public static ReplicaMessage push(long vertex, int holder, byte[] record) {
        return of(Kind.PUSH, vertex, holder, record);
    }

    private static ReplicaMessage of(Kind kind, long vertex, int holder, byte[] record) {
        ReplicaMessage m = new ReplicaMessage();
        m.kind = kind;
        m.vertex = vertex;
        m.holder = holder;
        m.record = record;
        return m;
    }

    /** The key of the state the message changes: the owner's for (un)subscriptions, the replica's for pushes. */
    public VertexKey key(VertexPartitioner partitioner) {
        return kind == Kind.PUSH ? new VertexKey(holder, vertex) : partitioner.keyOf(vertex);
    }

    @Override
    public String toString() {
        return kind + "(" + vertex + " @ " + holder + (record == null ? "" : ", " + record.length + " bytes") + ")";
    }
}

package io.gnnstream.operators.messages;

import io.gnnstream.state.VertexKey;

/**
 * A change of one halo replica, from the {@code ReplicaRouter} to the GraphStore subtask owning the
 * holding partition (see docs/design.md, "Halo replicas"): {@link Kind#CREATE} makes the replica of
 * {@link #vertex} in partition {@link #holder} with the vertex's attribute record (null while the
 * vertex has none), {@link Kind#PUSH} replaces its record, {@link Kind#DROP} removes it. Keyed by
 * the replica's key, {@code VertexKey(holder, vertex)}.
 */
public class ReplicaMessage {

    /** What the message does. */
    public enum Kind {
        PUSH,
        DROP,
        CREATE;

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

    /** The partition that holds the replica. */
    public int holder;

    /**
     * {@link Kind#CREATE}, {@link Kind#PUSH}: the vertex's attribute record, or null while it has
     * none.
     */
    public byte[] record;

    public ReplicaMessage() {}

    public static ReplicaMessage push(long vertex, int holder, byte[] record) {
        return of(Kind.PUSH, vertex, holder, record);
    }

    public static ReplicaMessage create(long vertex, int holder, byte[] record) {
        return of(Kind.CREATE, vertex, holder, record);
    }

    public static ReplicaMessage drop(long vertex, int holder) {
        return of(Kind.DROP, vertex, holder, null);
    }

    private static ReplicaMessage of(Kind kind, long vertex, int holder, byte[] record) {
        ReplicaMessage m = new ReplicaMessage();
        m.kind = kind;
        m.vertex = vertex;
        m.holder = holder;
        m.record = record;
        return m;
    }

    /** The replica's key. */
    public VertexKey key() {
        return new VertexKey(holder, vertex);
    }

    @Override
    public String toString() {
        return kind
                + "("
                + vertex
                + " @ "
                + holder
                + (record == null ? "" : ", " + record.length + " bytes")
                + ")";
    }
}

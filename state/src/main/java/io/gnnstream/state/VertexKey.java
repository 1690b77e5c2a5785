package io.gnnstream.state;

/**
 * Key of all graph state: a vertex inside its logical partition.
 *
 * <p>The hash code depends on the partition only (see {@link KeyGroupAnchors}), so every vertex of
 * a partition shares one Flink key group and the partition moves as a unit on rescale. The vertex
 * {@link #ANCHOR} addresses a partition as a whole; requests are keyed by it so that they reach the
 * subtask owning the partition.
 */
public final class VertexKey {

    /** Pseudo-vertex naming the partition itself; never a real vertex (ids are non-negative). */
    public static final long ANCHOR = -1L;

    private final int partition;
    private final long vertex;

    public VertexKey(int partition, long vertex) {
        if (partition < 0 || partition >= KeyGroupAnchors.MAX_PARTITIONS) {
            throw new IllegalArgumentException("partition out of range: " + partition);
        }
        this.partition = partition;
        this.vertex = vertex;
    }

    public static VertexKey anchor(int partition) {
        return new VertexKey(partition, ANCHOR);
    }

    public int partition() {
        return partition;
    }

    public long vertex() {
        return vertex;
    }

    public boolean isAnchor() {
        return vertex == ANCHOR;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof VertexKey)) {
            return false;
        }
        VertexKey other = (VertexKey) o;
        return partition == other.partition && vertex == other.vertex;
    }

    @Override
    public int hashCode() {
        return KeyGroupAnchors.hashFor(partition);
    }

    @Override
    public String toString() {
        return "VertexKey(" + partition + ", " + vertex + ")";
    }
}

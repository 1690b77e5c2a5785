package io.gnnstream.state;

import java.io.Serializable;

/**
 * Assigns every vertex to one of {@code P} logical partitions; must be a pure function of the id.
 */
public interface VertexPartitioner extends Serializable {

    int numPartitions();

    int partition(long vertex);

    /**
     * Identifies the assignment: 0 for {@link HashPartitioner}, a hash of the map for a {@link
     * MapPartitioner}. The graph state records it, so that a restore with another assignment fails
     * instead of looking for vertices in the wrong partitions.
     */
    default long fingerprint() {
        return 0;
    }

    default VertexKey keyOf(long vertex) {
        return new VertexKey(partition(vertex), vertex);
    }
}

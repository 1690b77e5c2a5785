package io.gnnstream.state;

import java.io.Serializable;

/** Assigns every vertex to one of {@code P} logical partitions; must be a pure function of the id. */
public interface VertexPartitioner extends Serializable {

    int numPartitions();

    int partition(long vertex);

    default VertexKey keyOf(long vertex) {
        return new VertexKey(partition(vertex), vertex);
    }
}

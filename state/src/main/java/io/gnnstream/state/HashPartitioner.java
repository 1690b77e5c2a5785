package io.gnnstream.state;

/**
 * Default partitioner: a 64-bit mix of the vertex id modulo {@code P}. Mixing first keeps
 * consecutive ids (the usual case) from clustering in few partitions when {@code P} shares factors
 * with the id layout.
 */
public final class HashPartitioner implements VertexPartitioner {

    private static final long serialVersionUID = 1L;

    private final int numPartitions;

    public HashPartitioner(int numPartitions) {
        if (numPartitions <= 0 || numPartitions > KeyGroupAnchors.MAX_PARTITIONS) {
            throw new IllegalArgumentException(
                    "number of partitions must be in [1, "
                            + KeyGroupAnchors.MAX_PARTITIONS
                            + "]: "
                            + numPartitions);
        }
        this.numPartitions = numPartitions;
    }

    @Override
    public int numPartitions() {
        return numPartitions;
    }

    @Override
    public int partition(long vertex) {
        return (int) Long.remainderUnsigned(Mix.mix64(vertex), numPartitions);
    }
}

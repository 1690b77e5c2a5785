package io.gnnstream.state;

import com.carrotsearch.hppc.LongIntHashMap;

/**
 * Partitions by a {@link PartitionMap} (from {@code bin/gnnstream partition}): a vertex in the map
 * goes to its partition, any other vertex to its {@link HashPartitioner} partition. Hash is the
 * rule for vertices that first appear later because every subtask must give a vertex the same
 * partition at once, whichever of its edges it sees first and without asking anyone; a greedy
 * streaming rule (LDG, Fennel) would need the placement of the vertex's neighbours and the loads of
 * the partitions at that moment, which the subtasks do not share.
 *
 * <p>Serialized with the job graph as two sorted arrays; the lookup table is rebuilt on first use.
 */
public final class MapPartitioner implements VertexPartitioner {

    private static final long serialVersionUID = 1L;

    private final HashPartitioner fallback;
    private final long[] vertices;
    private final short[] partitions;
    private final long fingerprint;
    private transient LongIntHashMap index;

    public MapPartitioner(PartitionMap map, int numPartitions) {
        if (map.partitions() != numPartitions) {
            throw new IllegalArgumentException(
                    "the partition map has "
                            + map.partitions()
                            + " partitions but the job has --partitions "
                            + numPartitions);
        }
        this.fallback = new HashPartitioner(numPartitions);
        this.vertices = map.vertices();
        this.partitions = new short[vertices.length];
        long h = Mix.mix64(numPartitions);
        for (int i = 0; i < vertices.length; i++) {
            partitions[i] = (short) map.partitionOf(vertices[i]);
            h = Mix.mix64(h ^ Mix.mix64(vertices[i] * 31 + partitions[i]));
        }
        this.fingerprint = h == 0 ? 1 : h;
    }

    @Override
    public int numPartitions() {
        return fallback.numPartitions();
    }

    @Override
    public int partition(long vertex) {
        LongIntHashMap idx = index;
        if (idx == null) {
            idx = new LongIntHashMap(vertices.length);
            for (int i = 0; i < vertices.length; i++) {
                idx.put(vertices[i], partitions[i]);
            }
            index = idx;
        }
        int p = idx.getOrDefault(vertex, -1);
        return p >= 0 ? p : fallback.partition(vertex);
    }

    @Override
    public long fingerprint() {
        return fingerprint;
    }

    /** Vertices the map assigns. */
    public int mapped() {
        return vertices.length;
    }

    @Override
    public String toString() {
        return "MapPartitioner("
                + numPartitions()
                + " partitions, "
                + vertices.length
                + " mapped vertices, fingerprint "
                + Long.toHexString(fingerprint)
                + ")";
    }
}

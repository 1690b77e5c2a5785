package io.gnnstream.partitioning;

import io.gnnstream.state.VertexPartitioner;

/**
 * How good an assignment is: the edge cut (the share of edges whose ends are in different
 * partitions, the measure METIS and Spinner minimise) and the balance (the largest partition's
 * vertex count over the mean, 1.0 being perfect).
 */
public record PartitionQuality(double edgeCut, double balance, int largest) {

    public static PartitionQuality of(GraphEdges g, int[] partition, int partitions) {
        long cut = 0;
        for (int e = 0; e < g.edgeCount(); e++) {
            if (partition[g.src(e)] != partition[g.dst(e)]) {
                cut++;
            }
        }
        int[] loads = loads(partition, partitions);
        int largest = 0;
        for (int load : loads) {
            largest = Math.max(largest, load);
        }
        double mean = (double) partition.length / partitions;
        return new PartitionQuality(g.edgeCount() == 0 ? 0 : (double) cut / g.edgeCount(),
                partition.length == 0 ? 1 : largest / mean, largest);
    }

    /** The assignment of {@code partitioner} (the job's hash partitioning) over the graph's vertices. */
    public static int[] assign(GraphEdges g, VertexPartitioner partitioner) {
        int[] partition = new int[g.vertexCount()];
        for (int v = 0; v < partition.length; v++) {
            partition[v] = partitioner.partition(g.id(v));
        }
        return partition;
    }

    static int[] loads(int[] partition, int partitions) {
        int[] loads = new int[partitions];
        for (int p : partition) {
            loads[p]++;
        }
        return loads;
    }
}

package io.gnnstream.partitioning;

import io.gnnstream.state.VertexPartitioner;
import java.util.Arrays;

/**
 * How good an assignment is: the edge cut (the share of edges whose ends are in different
 * partitions, the measure METIS and Spinner minimise), the balance (the largest partition's vertex
 * count over the mean, 1.0 being perfect) and the replication factor of halo replicas (the copies
 * the job keeps with {@code --halo features} when each partition is a GraphStore subtask of its
 * own: one per partition and vertex of another partition with an edge into it, over the vertices).
 */
public record PartitionQuality(
        double edgeCut, double balance, int largest, double replicationFactor) {

    public static PartitionQuality of(GraphEdges g, int[] partition, int partitions) {
        long cut = 0;
        long[] replicas = new long[g.edgeCount()];
        for (int e = 0; e < g.edgeCount(); e++) {
            if (partition[g.src(e)] != partition[g.dst(e)]) {
                replicas[(int) cut++] = (long) partition[g.dst(e)] * g.vertexCount() + g.src(e);
            }
        }
        Arrays.sort(replicas, 0, (int) cut);
        long distinct = 0;
        for (int i = 0; i < cut; i++) {
            if (i == 0 || replicas[i] != replicas[i - 1]) {
                distinct++;
            }
        }
        int[] loads = loads(partition, partitions);
        int largest = 0;
        for (int load : loads) {
            largest = Math.max(largest, load);
        }
        double mean = (double) partition.length / partitions;
        return new PartitionQuality(
                g.edgeCount() == 0 ? 0 : (double) cut / g.edgeCount(),
                partition.length == 0 ? 1 : largest / mean,
                largest,
                partition.length == 0 ? 0 : (double) distinct / partition.length);
    }

    /**
     * The assignment of {@code partitioner} (the job's hash partitioning) over the graph's
     * vertices.
     */
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

package io.gnnstream.partitioning;

import com.carrotsearch.hppc.LongIntHashMap;
import io.gnnstream.state.HashPartitioner;
import io.gnnstream.state.PartitionMap;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.api.java.ExecutionEnvironment;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.configuration.Configuration;

/**
 * {@code bin/gnnstream partition}: the Gelly job ({@link BalancedLabelPropagation}) on a local
 * Flink environment, then {@link BalanceRepair} on the driver, scored against the job's hash
 * partitioning of the same graph.
 */
public final class GraphPartitioner {

    /** Largest partition over the mean that a result may have. */
    public static final double MAX_BALANCE = 1.05;

    private final int partitions;
    private int supersteps = 41;
    private double slack = 1.1;
    private long seed = 1;
    private int parallelism = 2;
    private int refinementPasses = 10;

    public GraphPartitioner(int partitions) {
        this.partitions = partitions;
    }

    public GraphPartitioner supersteps(int n) {
        this.supersteps = n;
        return this;
    }

    public GraphPartitioner seed(long seed) {
        this.seed = seed;
        return this;
    }

    public GraphPartitioner parallelism(int parallelism) {
        if (parallelism < 1) {
            throw new IllegalArgumentException(
                    "--parallelism must be positive, got " + parallelism);
        }
        this.parallelism = parallelism;
        return this;
    }

    /**
     * Partitions the graph of {@code edgesFile} (and the vertices of {@code nodesFile}, may be
     * null).
     */
    public Result run(Path edgesFile, Path nodesFile) throws Exception {
        long started = System.nanoTime();
        GraphEdges g = GraphEdges.read(edgesFile, nodesFile);
        int withEdges = 0;
        for (int v = 0; v < g.vertexCount(); v++) {
            withEdges += g.degree(v) > 0 ? 1 : 0;
        }
        Configuration conf = new Configuration();
        conf.setString("rest.bind-address", "127.0.0.1");
        ExecutionEnvironment env = ExecutionEnvironment.createLocalEnvironment(conf);
        env.setParallelism(parallelism);
        env.getConfig().disableGenericTypes();
        List<Tuple2<Long, Integer>> labels =
                new BalancedLabelPropagation(partitions, supersteps, slack, seed)
                        .run(env, edgesFile, withEdges);
        double gellySeconds = (System.nanoTime() - started) / 1e9;

        int[] partition = new int[g.vertexCount()];
        Arrays.fill(partition, -1);
        for (Tuple2<Long, Integer> label : labels) {
            int v = g.indexOf(label.f0);
            if (v >= 0) {
                partition[v] = label.f1;
            }
        }
        PartitionQuality propagated = PartitionQuality.of(g, fillUnassigned(partition), partitions);
        BalanceRepair repair = new BalanceRepair(g, partition, partitions, MAX_BALANCE);
        repair.run(refinementPasses);
        LongIntHashMap map = new LongIntHashMap(g.vertexCount());
        for (int v = 0; v < partition.length; v++) {
            map.put(g.id(v), partition[v]);
        }
        PartitionQuality result = PartitionQuality.of(g, partition, partitions);
        PartitionQuality hash =
                PartitionQuality.of(
                        g, PartitionQuality.assign(g, new HashPartitioner(partitions)), partitions);
        return new Result(
                new PartitionMap(partitions, map),
                result,
                hash,
                propagated,
                g.vertexCount(),
                g.edgeCount(),
                g.rejected(),
                g.removals(),
                repair.moves(),
                gellySeconds,
                (System.nanoTime() - started) / 1e9);
    }

    /** A copy for scoring the propagation alone: vertices without edges in partition 0. */
    private static int[] fillUnassigned(int[] partition) {
        int[] copy = partition.clone();
        for (int v = 0; v < copy.length; v++) {
            copy[v] = Math.max(0, copy[v]);
        }
        return copy;
    }

    /** The assignment and its figures. */
    public record Result(
            PartitionMap map,
            PartitionQuality quality,
            PartitionQuality hash,
            PartitionQuality propagated,
            int vertices,
            int edges,
            long rejectedLines,
            long removalLines,
            int repairMoves,
            double gellySeconds,
            double seconds) {}
}

package io.gnnstream.operators.assembly;

import io.gnnstream.operators.messages.BatchSpec;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.state.InAdjacency;
import io.gnnstream.state.StoreSites;
import io.gnnstream.state.VertexPartitioner;
import java.io.Serializable;

/**
 * The assembler's settings and the arithmetic derived from them (docs/design.md, "Sampling loop and
 * flow control"): each partition's route (the lowest partition of the GraphStore subtask that owns
 * it, by {@link StoreSites}), the request window, the timeout, and how many vertices one request
 * may name. Serializable, as the operator's field; {@link AssemblerCore} is built from it.
 */
public final class AssemblerConfig implements Serializable {

    private static final long serialVersionUID = 1L;

    final int[] fanouts;
    final int featureDim;
    final VertexPartitioner partitioner;
    final long timeoutMs;
    final int maxOutstandingVertices;

    /**
     * Per partition, its route: the lowest partition of the GraphStore subtask that owns it.
     * Requests are keyed and bundled by route.
     */
    final int[] routeOf;

    /** Per GraphStore subtask, its route. */
    final int[] routeOfSubtask;

    /** Vertices per request (see {@link #maxRequestVertices(int[], int, int)}). */
    final int maxRequestVertices;

    /** Vertices per sampling request of a training batch with neighbour parts. */
    int maxSampleVertices;

    /** Whether the GraphStore keeps halo replicas, so training batches take neighbour parts. */
    boolean halo;

    int[] layerWidths = new int[0];
    int evalFanout = -1;

    /**
     * @param storeParallelism the GraphStore's parallelism, whose maximum parallelism is the number
     *     of partitions (each partition is a key group)
     */
    public AssemblerConfig(
            int[] fanouts,
            int featureDim,
            VertexPartitioner partitioner,
            int storeParallelism,
            long timeoutMs,
            int maxOutstandingVertices) {
        if (maxOutstandingVertices < 1
                || storeParallelism < 1
                || storeParallelism > partitioner.numPartitions()) {
            throw new IllegalArgumentException(
                    "maxOutstandingVertices must be >= 1 (got "
                            + maxOutstandingVertices
                            + ") and storeParallelism in [1, "
                            + partitioner.numPartitions()
                            + "] (got "
                            + storeParallelism
                            + ")");
        }
        this.fanouts = fanouts.clone();
        this.featureDim = featureDim;
        this.partitioner = partitioner;
        StoreSites sites = new StoreSites(partitioner.numPartitions(), storeParallelism);
        this.routeOf = new int[partitioner.numPartitions()];
        for (int p = 0; p < routeOf.length; p++) {
            routeOf[p] = sites.holderOf(p);
        }
        this.routeOfSubtask = new int[storeParallelism];
        for (int s = 0; s < storeParallelism; s++) {
            routeOfSubtask[s] = sites.holderOfSite(s);
        }
        this.timeoutMs = timeoutMs;
        this.maxOutstandingVertices = maxOutstandingVertices;
        this.maxRequestVertices = maxRequestVertices(fanouts, featureDim, maxOutstandingVertices);
        this.maxSampleVertices = maxRequestVertices;
    }

    /**
     * With halo replicas and more than one GraphStore subtask: training batches take the features
     * of sampled neighbours from the GraphStore subtasks that sampled them ({@link BatchBuilder}),
     * and requests shrink so that a neighbour part of a request's sampled neighbours stays under
     * the record cap too. A single subtask owns every vertex, so its batches fetch features by row,
     * each vertex once, as without replicas.
     */
    public AssemblerConfig withHalo(boolean on) {
        this.halo = on && routeOfSubtask.length > 1;
        long neighbourBytes =
                (long) maxFanout(fanouts) * (Float.BYTES * featureDim + 2L * Long.BYTES);
        this.maxSampleVertices =
                halo
                        ? (int)
                                Math.max(
                                        1,
                                        Math.min(
                                                maxRequestVertices,
                                                MiniBatchPart.MAX_RECORD_BYTES
                                                        / Math.max(1, neighbourBytes)))
                        : maxRequestVertices;
        return this;
    }

    /**
     * The widths of the rows an inference round stores for the layers after the first ({@code
     * widths[j-1]} for layer {@code j+1}, see {@code ModelConfig.roundRowWidth}): blocks of layer
     * {@code j+1} ask the GraphStore for their sources' stored rows of layer {@code j}, in requests
     * small enough for rows of that width.
     */
    public AssemblerConfig withLayerWidths(int... widths) {
        this.layerWidths = widths.clone();
        return this;
    }

    /**
     * Neighbours per vertex in evaluation blocks ({@link BatchBuilder#evalFanout}); -1 (the
     * default): all.
     */
    public AssemblerConfig withEvalFanout(int fanout) {
        this.evalFanout = fanout;
        return this;
    }

    /** The route of the GraphStore subtask of index {@code subtask}; -1 if there is none. */
    public int routeOfSubtask(int subtask) {
        return subtask >= 0 && subtask < routeOfSubtask.length ? routeOfSubtask[subtask] : -1;
    }

    /** The route of the subtask that owns {@code partition}. */
    public int routeOf(int partition) {
        return routeOf[partition];
    }

    /** The builder of {@code spec}'s attempt {@code attempt}. */
    BatchBuilder builder(BatchSpec spec, int attempt, int expectedNodes) {
        if (spec.layer >= 2) {
            int dim = layerWidth(spec.layer - 1);
            return new BatchBuilder(
                            spec,
                            attempt,
                            fanouts,
                            featureDim,
                            partitioner,
                            routeOf,
                            maxRequestVertices(fanouts, dim, maxOutstandingVertices),
                            expectedNodes,
                            false)
                    .layerInput(spec.layer - 1, dim);
        }
        return new BatchBuilder(
                spec,
                attempt,
                fanouts,
                featureDim,
                partitioner,
                routeOf,
                halo ? maxSampleVertices : maxRequestVertices,
                expectedNodes,
                halo);
    }

    private int layerWidth(int layer) {
        if (layer < 1 || layer > layerWidths.length) {
            throw new IllegalStateException(
                    "an inference block reads outputs of layer "
                            + layer
                            + ", but the "
                            + "assembler knows the widths of "
                            + layerWidths.length
                            + " hidden layers");
        }
        return layerWidths[layer - 1];
    }

    /**
     * Vertices per request: a quarter of the window, so that one partition's share of a large batch
     * is split and several requests are always in flight; and few enough that the GraphStore's
     * records for it (sampled neighbours to the assembler, features to the trainer) stay under
     * {@link MiniBatchPart#MAX_RECORD_BYTES}, which Flink would otherwise spill to disk.
     */
    static int maxRequestVertices(int[] fanouts, int featureDim, int maxOutstandingVertices) {
        long bytesPerVertex =
                (long) Float.BYTES * featureDim + (long) Long.BYTES * (maxFanout(fanouts) + 2);
        return (int)
                Math.max(
                        1,
                        Math.min(
                                maxOutstandingVertices / 4,
                                MiniBatchPart.MAX_RECORD_BYTES / bytesPerVertex));
    }

    /**
     * The largest fanout, a block's worth for "all neighbours" ({@code -1}), whose responses are
     * estimated so.
     */
    private static int maxFanout(int[] fanouts) {
        int fanout = 0;
        for (int f : fanouts) {
            fanout = Math.max(fanout, f < 0 ? InAdjacency.BLOCK_SIZE : f);
        }
        return fanout;
    }
}

package io.gnnstream.operators;

import io.gnnstream.operators.model.ModelConfig;
import io.gnnstream.operators.model.ModelType;
import java.io.Serializable;

/**
 * Settings of the {@link GraphStoreOperator}; validated here so a bad value fails at job build
 * time.
 */
public final class GraphStoreConfig implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Seeds neighbour sampling, with the batch, hop and vertex. */
    public final long seed;

    public final int featureDim;

    /** How often partition sizes are published to the scheduler. */
    public final long statsIntervalMs;

    /** Heap bytes for cached attribute records (0 = no cache). */
    public final long recordCacheBytes;

    /** Heap bytes for cached adjacency tails (0 = no cache). */
    public final long adjacencyCacheBytes;

    /** Edge additions buffered before they are written (1 = write every edge at once). */
    public final int edgeBufferEdges;

    /**
     * Slots of each trainer's feature cache, shared out among the subtasks (0 = no cache: every
     * feature part carries all its features).
     */
    public final int trainerCacheSlots;

    /** Whether partitions keep halo replicas (see docs/design.md, "Halo replicas"). */
    public final boolean halo;

    /** Heap bytes per hidden layer for cached rows of the layer-output store (0 = no cache). */
    public final long layerRowCacheBytes;

    /**
     * Per hidden layer {@code j} ({@code [j-1]}), the leading floats of its stored rows that only
     * destinations read ({@code ModelConfig.roundRootWidth} of layer {@code j+1}); none: 0.
     */
    private final int[] layerRootWidths;

    /**
     * Whether a destination's sampled in-neighbours owned here are aggregated here in inference
     * rounds ({@code LayerOutputStore.sumOwned}) rather than sent to the trainer as rows.
     */
    public final boolean aggregateAtOwner;

    /**
     * The model whose pinned parameters incremental predictions use, or null when predictions
     * follow rounds only (docs/design.md, "Incremental predictions"); set with {@link
     * #withIncremental}.
     */
    private ModelConfig incrementalModel;

    private boolean keepHiddenRows;

    /** The architecture of the model whose rows the layer-output store keeps. */
    private ModelType modelType = ModelType.DEFAULT;

    private int incrementalFanout = io.gnnstream.state.EvalNeighbourhood.DEFAULT_FANOUT;

    private long incrementalMaxMarks =
            io.gnnstream.operators.store.IncrementalPredictions.DEFAULT_MAX_MARKS;

    /** Heap per model layer for the incremental predictions' neighbour sums. */
    public static final long DEFAULT_INCREMENTAL_SUM_CACHE_BYTES = 256L << 20;

    private long incrementalSumCacheBytes = DEFAULT_INCREMENTAL_SUM_CACHE_BYTES;

    /** Heap for the incremental predictions' cache of the site's out-edges by source. */
    public static final long DEFAULT_INCREMENTAL_OUT_EDGE_CACHE_BYTES = 64L << 20;

    private long incrementalOutEdgeCacheBytes = DEFAULT_INCREMENTAL_OUT_EDGE_CACHE_BYTES;

    private long incrementalCoalesceMs;

    /** {@link #degreeFanout()} of settings whose parts carry no degrees. */
    public static final int NO_DEGREES = Integer.MIN_VALUE;

    private int degreeFanout = NO_DEGREES;

    /** Settings without halo replicas. */
    public GraphStoreConfig(
            long seed,
            int featureDim,
            long statsIntervalMs,
            long recordCacheBytes,
            long adjacencyCacheBytes,
            int edgeBufferEdges,
            int trainerCacheSlots) {
        this(
                seed,
                featureDim,
                statsIntervalMs,
                recordCacheBytes,
                adjacencyCacheBytes,
                edgeBufferEdges,
                trainerCacheSlots,
                false,
                0,
                new int[0],
                true);
    }

    /** These settings with halo replicas on or off. */
    public GraphStoreConfig withHalo(boolean on) {
        return with(on, layerRowCacheBytes, layerRootWidths, aggregateAtOwner);
    }

    /** These settings with {@code bytes} of heap per hidden layer for layer-output rows. */
    public GraphStoreConfig withLayerRowCache(long bytes) {
        return with(halo, bytes, layerRootWidths, aggregateAtOwner);
    }

    /** These settings with the root widths of the stored rows of each hidden layer. */
    public GraphStoreConfig withLayerRootWidths(int... widths) {
        return with(halo, layerRowCacheBytes, widths.clone(), aggregateAtOwner);
    }

    /** These settings with aggregation at the owner in inference rounds on or off. */
    public GraphStoreConfig withAggregationAtOwner(boolean on) {
        return with(halo, layerRowCacheBytes, layerRootWidths, on);
    }

    /**
     * These settings for rows of a model of type {@code type}, whose {@link
     * ModelType#architecture()} says how the layer-output store aggregates them at their owner.
     */
    public GraphStoreConfig withModelType(ModelType type) {
        GraphStoreConfig c = with(halo, layerRowCacheBytes, layerRootWidths, aggregateAtOwner);
        c.modelType = java.util.Objects.requireNonNull(type, "type");
        return c;
    }

    /** The architecture of the model whose rows the layer-output store keeps. */
    public ModelType modelType() {
        return modelType;
    }

    /**
     * These settings with incremental predictions by {@code model} (whose type becomes the {@link
     * #modelType()}), whose rounds keep hidden rows unprojected when {@code keepHiddenRows}, over
     * the evaluation neighbourhoods of {@code evalFanout}.
     */
    public GraphStoreConfig withIncremental(
            ModelConfig model, boolean keepHiddenRows, int evalFanout) {
        GraphStoreConfig c = with(halo, layerRowCacheBytes, layerRootWidths, aggregateAtOwner);
        c.incrementalModel = model;
        if (model != null) {
            c.modelType = model.modelType();
        }
        c.keepHiddenRows = keepHiddenRows;
        c.incrementalFanout = evalFanout;
        return c;
    }

    /** These settings with at most {@code maxMarks} vertices marked per layer (heap budget). */
    public GraphStoreConfig withIncrementalMaxMarks(long maxMarks) {
        GraphStoreConfig c = withIncremental(incrementalModel, keepHiddenRows, incrementalFanout);
        c.incrementalMaxMarks = maxMarks;
        return c;
    }

    /** These settings with {@code bytes} of heap per model layer for the neighbour sums' cache. */
    public GraphStoreConfig withIncrementalSumCache(long bytes) {
        requireNonNegative(bytes, "sum cache", "bytes");
        GraphStoreConfig c = with(halo, layerRowCacheBytes, layerRootWidths, aggregateAtOwner);
        c.incrementalSumCacheBytes = bytes;
        return c;
    }

    /** These settings with {@code bytes} of heap for the site's out-edges read last by source. */
    public GraphStoreConfig withIncrementalOutEdgeCache(long bytes) {
        requireNonNegative(bytes, "out-edge cache", "bytes");
        GraphStoreConfig c = with(halo, layerRowCacheBytes, layerRootWidths, aggregateAtOwner);
        c.incrementalOutEdgeCacheBytes = bytes;
        return c;
    }

    /**
     * These settings with incremental predictions' marks left {@code ms} to coalesce before they
     * are computed ({@link io.gnnstream.operators.store.IncrementalPredictions#coalesce}).
     */
    public GraphStoreConfig withIncrementalCoalesce(long ms) {
        requireNonNegative(ms, "coalescing window", "ms");
        GraphStoreConfig c = with(halo, layerRowCacheBytes, layerRootWidths, aggregateAtOwner);
        c.incrementalCoalesceMs = ms;
        return c;
    }

    /**
     * These settings with the degree of every row in the feature parts by row ({@code
     * MiniBatchPart.degrees}: the in-degree under {@code evalFanout}, -1 = all, plus one), which a
     * GCN with {@code --gcn-norm sym} needs.
     */
    public GraphStoreConfig withDegrees(int evalFanout) {
        if (evalFanout < -1) {
            throw new IllegalArgumentException("eval fanout must be -1 or >= 0, got " + evalFanout);
        }
        GraphStoreConfig c = with(halo, layerRowCacheBytes, layerRootWidths, aggregateAtOwner);
        c.degreeFanout = evalFanout;
        return c;
    }

    /** Whether feature parts by row carry their rows' degrees ({@link #withDegrees}). */
    public boolean sendsDegrees() {
        return degreeFanout != NO_DEGREES;
    }

    /** The eval fanout the degrees of {@link #withDegrees} count under, or {@link #NO_DEGREES}. */
    public int degreeFanout() {
        return degreeFanout;
    }

    /** The most vertices incremental predictions keep marked per layer. */
    public long incrementalMaxMarks() {
        return incrementalMaxMarks;
    }

    /** Heap per model layer for the incremental predictions' neighbour sums (0: none). */
    public long incrementalSumCacheBytes() {
        return incrementalSumCacheBytes;
    }

    /** Heap for the site's out-edges by source, as incremental predictions read them (0: none). */
    public long incrementalOutEdgeCacheBytes() {
        return incrementalOutEdgeCacheBytes;
    }

    /** How long (ms) incremental predictions' marks wait before they are computed. */
    public long incrementalCoalesceMs() {
        return incrementalCoalesceMs;
    }

    /** The evaluation neighbourhoods' fanout of incremental predictions. */
    public int incrementalFanout() {
        return incrementalFanout;
    }

    /** The model of incremental predictions, or null when they are off. */
    public ModelConfig incrementalModel() {
        return incrementalModel;
    }

    /** Whether rounds store hidden rows rather than their projections. */
    public boolean keepsHiddenRows() {
        return keepHiddenRows;
    }

    /** The model's hidden layers, whose rows the layer-output store keeps. */
    public int hiddenLayers() {
        return layerRootWidths.length;
    }

    /** The root width of hidden layer {@code layer}'s stored rows (1-based). */
    public int layerRootWidth(int layer) {
        return layer >= 1 && layer <= layerRootWidths.length ? layerRootWidths[layer - 1] : 0;
    }

    private GraphStoreConfig with(
            boolean halo, long layerRowCacheBytes, int[] layerRootWidths, boolean atOwner) {
        GraphStoreConfig c =
                new GraphStoreConfig(
                        seed,
                        featureDim,
                        statsIntervalMs,
                        recordCacheBytes,
                        adjacencyCacheBytes,
                        edgeBufferEdges,
                        trainerCacheSlots,
                        halo,
                        layerRowCacheBytes,
                        layerRootWidths,
                        atOwner);
        c.incrementalModel = incrementalModel;
        c.keepHiddenRows = keepHiddenRows;
        c.incrementalFanout = incrementalFanout;
        c.incrementalMaxMarks = incrementalMaxMarks;
        c.incrementalSumCacheBytes = incrementalSumCacheBytes;
        c.incrementalOutEdgeCacheBytes = incrementalOutEdgeCacheBytes;
        c.incrementalCoalesceMs = incrementalCoalesceMs;
        c.modelType = modelType;
        c.degreeFanout = degreeFanout;
        return c;
    }

    private GraphStoreConfig(
            long seed,
            int featureDim,
            long statsIntervalMs,
            long recordCacheBytes,
            long adjacencyCacheBytes,
            int edgeBufferEdges,
            int trainerCacheSlots,
            boolean halo,
            long layerRowCacheBytes,
            int[] layerRootWidths,
            boolean aggregateAtOwner) {
        if (featureDim < 1
                || statsIntervalMs < 1
                || recordCacheBytes < 0
                || adjacencyCacheBytes < 0
                || edgeBufferEdges < 1
                || trainerCacheSlots < 0
                || layerRowCacheBytes < 0) {
            throw new IllegalArgumentException(
                    String.format(
                            "graph store settings out of range: featureDim %d (>= 1),"
                                    + " statsIntervalMs %d (>= 1), recordCacheBytes %d (>= 0),"
                                    + " adjacencyCacheBytes %d (>= 0), edgeBufferEdges %d (>= 1),"
                                    + " trainerCacheSlots %d (>= 0), layerRowCacheBytes %d (>="
                                    + " 0)",
                            featureDim,
                            statsIntervalMs,
                            recordCacheBytes,
                            adjacencyCacheBytes,
                            edgeBufferEdges,
                            trainerCacheSlots,
                            layerRowCacheBytes));
        }
        this.seed = seed;
        this.featureDim = featureDim;
        this.statsIntervalMs = statsIntervalMs;
        this.recordCacheBytes = recordCacheBytes;
        this.adjacencyCacheBytes = adjacencyCacheBytes;
        this.edgeBufferEdges = edgeBufferEdges;
        this.trainerCacheSlots = trainerCacheSlots;
        this.halo = halo;
        this.layerRowCacheBytes = layerRowCacheBytes;
        this.layerRootWidths = layerRootWidths;
        this.aggregateAtOwner = aggregateAtOwner;
    }

    private static void requireNonNegative(long value, String what, String unit) {
        if (value < 0) {
            throw new IllegalArgumentException(what + " must be >= 0 " + unit + ", got " + value);
        }
    }
}

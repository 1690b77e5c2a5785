package io.gnnstream.operators;

import java.io.Serializable;

/** Settings of the {@link SeedScheduler}; validated by the job options. */
public final class SchedulerConfig implements Serializable {

    private static final long serialVersionUID = 1L;

    /**
     * The job's scale: its partitions (whose sizes the scheduler tracks) and trainer ranks T (every
     * training step is T batches, one per rank).
     */
    public final JobScale scale;

    public final int batchSize;
    public final int evalBatchSize;
    public final long maxSteps;
    public final int evalEvery;
    public final int prefetch;
    public final int minTrainSeeds;
    public final long seed;

    /** Training starts once the graph holds this many vertices and has ingested this many edges. */
    public final long minVertices;

    public final long minEdges;

    /** Model layers: an evaluation round is this many layer-wise passes. */
    public final int numLayers;

    /** Rounds also follow every this many steps ({@code 0}: only {@link #evalEvery}). */
    public final int predictEvery;

    /**
     * The last pass of a round also covers vertices outside validation and test (for predictions).
     */
    public final boolean predictAll;

    /**
     * Local batches: a step's seeds are cut by owner (see {@link RankSites}); null for equal
     * slices.
     */
    private RankSites sites;

    /**
     * {@code --select best-val} (docs/design.md, "Model selection"); see {@link #withSelection}.
     */
    private boolean bestVal;

    private boolean servingRound;

    public SchedulerConfig(
            JobScale scale,
            int batchSize,
            int evalBatchSize,
            long maxSteps,
            int evalEvery,
            int prefetch,
            int minTrainSeeds,
            long seed) {
        this(
                scale,
                batchSize,
                evalBatchSize,
                maxSteps,
                evalEvery,
                prefetch,
                minTrainSeeds,
                seed,
                0,
                0);
    }

    public SchedulerConfig(
            JobScale scale,
            int batchSize,
            int evalBatchSize,
            long maxSteps,
            int evalEvery,
            int prefetch,
            int minTrainSeeds,
            long seed,
            long minVertices,
            long minEdges) {
        this(
                scale,
                batchSize,
                evalBatchSize,
                maxSteps,
                evalEvery,
                prefetch,
                minTrainSeeds,
                seed,
                minVertices,
                minEdges,
                1,
                0,
                false);
    }

    public SchedulerConfig(
            JobScale scale,
            int batchSize,
            int evalBatchSize,
            long maxSteps,
            int evalEvery,
            int prefetch,
            int minTrainSeeds,
            long seed,
            long minVertices,
            long minEdges,
            int numLayers,
            int predictEvery,
            boolean predictAll) {
        if (numLayers < 1 || predictEvery < 0) {
            throw new IllegalArgumentException(
                    "need numLayers >= 1 and predictEvery >= 0, got "
                            + numLayers
                            + " and "
                            + predictEvery);
        }
        this.scale = scale;
        this.minVertices = minVertices;
        this.minEdges = minEdges;
        this.batchSize = batchSize;
        this.evalBatchSize = evalBatchSize;
        this.maxSteps = maxSteps;
        this.evalEvery = evalEvery;
        this.prefetch = prefetch;
        this.minTrainSeeds = minTrainSeeds;
        this.seed = seed;
        this.numLayers = numLayers;
        this.predictEvery = predictEvery;
        this.predictAll = predictAll;
    }

    /**
     * Cuts every training step's seeds by owner ({@link RankSites}, of this scale) instead of into
     * equal slices.
     */
    public SchedulerConfig withLocalBatches(RankSites sites) {
        if (sites != null && !sites.scale().equals(scale)) {
            throw new IllegalArgumentException(
                    "local batches of " + sites.scale() + " for a scheduler of " + scale);
        }
        if (sites != null && !sites.applies()) {
            throw new IllegalArgumentException(
                    "local batches need a GraphStore subtask per rank: " + sites);
        }
        this.sites = sites;
        return this;
    }

    /**
     * {@code --select best-val} ({@code bestVal}): a restore at another trainer count after the
     * final step runs the final round again on rank 0, which decides the selection from its own
     * counts; with {@code predictions} and {@link #maxSteps}, a serving round of step {@code
     * maxSteps + 1} follows the final round (all on rank 0, with the kept parameters), so that
     * every vertex's latest prediction is the kept model's. Returns this.
     */
    public SchedulerConfig withSelection(boolean bestVal, boolean predictions) {
        this.bestVal = bestVal;
        this.servingRound = bestVal && predictions && maxSteps > 0;
        return this;
    }

    /** {@code --select best-val}. */
    public boolean bestVal() {
        return bestVal;
    }

    /** A serving round of the kept parameters follows the final round ({@link #withSelection}). */
    public boolean servingRound() {
        return servingRound;
    }

    /** The sites of local batches, or null when each step is cut into equal slices. */
    public RankSites sites() {
        return sites;
    }
}

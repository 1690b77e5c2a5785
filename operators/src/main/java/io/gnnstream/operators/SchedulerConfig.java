package io.gnnstream.operators;

import java.io.Serializable;

/** Settings of the {@link SeedScheduler}; validated by the job options. */
public final class SchedulerConfig implements Serializable {

    private static final long serialVersionUID = 1L;

    public final int numPartitions;
    public final int batchSize;
    public final int evalBatchSize;
    public final long maxSteps;
    public final int evalEvery;
    public final int prefetch;
    public final int minTrainSeeds;
    public final long seed;
    /** Trainer ranks T; every training step is T batches, one per rank. */
    public final int trainers;
    /** Training starts once the graph holds this many vertices and has ingested this many edges. */
    public final long minVertices;
    public final long minEdges;

    public SchedulerConfig(int numPartitions, int batchSize, int evalBatchSize, long maxSteps, int evalEvery,
            int prefetch, int minTrainSeeds, long seed) {
        this(numPartitions, batchSize, evalBatchSize, maxSteps, evalEvery, prefetch, minTrainSeeds, seed, 1, 0, 0);
    }

    public SchedulerConfig(int numPartitions, int batchSize, int evalBatchSize, long maxSteps, int evalEvery,
            int prefetch, int minTrainSeeds, long seed, int trainers, long minVertices, long minEdges) {
        if (trainers < 1) {
            throw new IllegalArgumentException("trainers must be positive, got " + trainers);
        }
        this.trainers = trainers;
        this.minVertices = minVertices;
        this.minEdges = minEdges;
        this.numPartitions = numPartitions;
        this.batchSize = batchSize;
        this.evalBatchSize = evalBatchSize;
        this.maxSteps = maxSteps;
        this.evalEvery = evalEvery;
        this.prefetch = prefetch;
        this.minTrainSeeds = minTrainSeeds;
        this.seed = seed;
    }
}

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

    public SchedulerConfig(int numPartitions, int batchSize, int evalBatchSize, long maxSteps, int evalEvery,
            int prefetch, int minTrainSeeds, long seed) {
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

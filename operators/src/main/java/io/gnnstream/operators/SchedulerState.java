package io.gnnstream.operators;

import io.gnnstream.operators.messages.BatchSpec;

/**
 * Checkpointed state of the {@link SeedScheduler}: known seeds per split, partition sizes, and
 * where the schedule stands. A Flink POJO of primitive arrays (no Kryo).
 */
public class SchedulerState {

    public long[] trainSeeds;
    public long[] valSeeds;
    public long[] testSeeds;
    public long[] partitionVertices;
    public long[] partitionEdgesIngested;

    public long nextBatchId;
    /** Per trainer rank: the next sequence number to issue, and the last one acknowledged. */
    public long[] issuedSeqs;
    public long[] ackedSeqs;
    public long trainSteps;
    public long epoch;
    public long[] epochOrder;
    public int epochPosition;

    /**
     * Vertices with attributes outside train, validation and test (null in state written before
     * they were tracked).
     */
    public long[] otherSeeds;

    /**
     * The evaluation round being issued: frozen vertex sets (validation, test, all others with
     * attributes including training vertices), next batch index, final flag.
     */
    public long roundStep;
    public long[] roundVal;
    public long[] roundTest;
    public long[] roundOthers;
    public int roundNext;
    public int roundSize;
    public boolean roundFinal;

    /** Issued specs not yet acknowledged by their trainers, in the order issued. */
    public BatchSpec[] unacked;
    /** Number of restores so far (see {@link BatchSpec#generation}). */
    public int generation;

    public SchedulerState() {}
}

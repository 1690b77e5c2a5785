package io.gnnstream.operators;

import io.gnnstream.operators.internal.StepStarts.EpochOrder;
import io.gnnstream.operators.internal.StepStarts.StepStart;
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

    /**
     * Per partition: halo replicas, and ingested edges from other partitions (null in older state).
     */
    public long[] partitionReplicas;

    public long[] partitionCutEdgesIngested;

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

    /**
     * The acknowledged layer-output writes of the round: {@code roundIndex << 32 | part << 16 |
     * parts} per stored record (null in state written before rounds were spread over the ranks).
     */
    public long[] roundWrites;

    /**
     * The round is issued again after a restore at another trainer count: all its blocks go to rank
     * 0, whose metrics line of it the merger emits alone.
     */
    public boolean roundOnRankZero;

    /** Issued specs not yet acknowledged by their trainers, in the order issued. */
    public BatchSpec[] unacked;

    /**
     * Per rank, the last {@code prefetch} specs acknowledged, in the order acknowledged (null in
     * state written before they were kept). Credits ride a feedback edge, so a checkpoint can hold
     * acknowledgements that the rank's own snapshot does not: a restored rank behind them gets
     * these specs again.
     */
    public BatchSpec[] recentlyAcked;

    /** Number of restores so far (see {@link BatchSpec#generation}). */
    public int generation;

    /**
     * The layout of the trainer ranks: how many restores at another trainer count the schedule has
     * seen ({@code RankLayout}); 0 in state written before layouts existed.
     */
    public int layout;

    /**
     * Restored at another trainer count, and no rank has announced the step it restored yet:
     * nothing is issued until one does.
     */
    public boolean awaitingRestoredStep;

    /**
     * Where each issued training step that not every rank has acknowledged (or that is among {@link
     * #recentlyAcked}) began, ascending by step, and the orders of earlier epochs such a step began
     * in ({@code StepStarts}). Null in state written before they were kept; such a schedule cannot
     * be restored at another trainer count.
     */
    public StepStart[] stepStarts;

    public EpochOrder[] earlierEpochOrders;

    public SchedulerState() {}
}

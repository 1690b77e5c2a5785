package io.gnnstream.operators;

/** Checkpointed bookkeeping of the {@link TrainerOperator} besides the model itself (POJO). */
public class TrainerProgress {

    public long nextSeq;
    public long roundStep = -1;
    public int roundSeen;
    public long valCorrect;
    public long valTotal;
    public double valLoss;
    public long testCorrect;
    public long testTotal;
    public double testLoss;
    public boolean finished;
    /** Time spent in evaluation rounds so far, and from the operator's start to its first step. */
    public long evalNanos;
    public long firstStepNanos;

    public TrainerProgress() {}

    void resetRound(long step) {
        roundStep = step;
        roundSeen = 0;
        valCorrect = 0;
        valTotal = 0;
        valLoss = 0;
        testCorrect = 0;
        testTotal = 0;
        testLoss = 0;
    }
}

package io.gnnstream.operators;

/**
 * Checkpointed bookkeeping of the {@link TrainerOperator} besides the model itself (POJO; part of
 * the rank's {@link TrainerReplica}). Fields added later read as their defaults from older state.
 */
public class TrainerProgress {

    public long nextSeq;
    public long roundStep = -1;
    public int roundSeen;

    /**
     * Blocks of the round's last pass this rank gets (0 in state written before rounds were spread
     * over the ranks).
     */
    public int roundShare;

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

    /**
     * The last training step this rank applied (0 in state written before it was kept: see the
     * model's step).
     */
    public long appliedStep;

    /**
     * The layout of the ranks ({@code RankLayout}): restores at another trainer count so far; and
     * the step the ranks of this layout restored (the layout's first step is the one after it).
     */
    public int layout;

    public long layoutStep;

    /**
     * The evaluation round with the best validation accuracy so far, as every rank agreed on it
     * ({@code ModelSelection}): its all-reduced validation counts (total 0: none yet, also in older
     * state) and its step.
     */
    public long bestValCorrect;

    public long bestValTotal;
    public long bestValStep;

    /**
     * The rank has scored its share of the final round and waits for the selection exchange's sum
     * ({@code --select best-val}, several ranks); {@link #finished} follows it.
     */
    public boolean selecting;

    public TrainerProgress() {}

    /** Starts the counts of the round of {@code step}. */
    public void resetRound(long step) {
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

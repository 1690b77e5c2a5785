package io.gnnstream.operators.internal;

/**
 * A training step whose gradient a trainer rank has sent to the reducers and whose update it has
 * not applied yet: the gradient of the rank's summed loss and what the step's metrics need once it
 * completes. Checkpointed, so that a restored rank sends the same gradient again. A Flink POJO.
 */
public class PendingStep {

    public long step;
    public long seq;
    public int seeds;
    public float[] grad;
    public double loss;
    public int correct;
    public long sampledEdges;
    public long graphVertices;
    public long graphEdgesIngested;

    /** The batch's {@code graphReplicas} and {@code graphCutEdgesIngested} (0 in older state). */
    public long graphReplicas;

    public long graphCutEdgesIngested;
    public int roundSize;

    /**
     * Last-pass blocks of the round the step starts for this rank ({@code BatchSpec.roundShare}).
     */
    public int roundShare;

    public boolean finalRound;
    public long computeNanos;

    /**
     * This rank's validation counts of the round completed just before the step (0 in older state),
     * sent with the gradient's chunk 0 so that the sum gives every rank the round's accuracy.
     */
    public long valCorrect;

    public long valTotal;

    /**
     * A selection exchange (no training step): after the final round, the ranks all-reduce a zero
     * gradient only to agree on that round's validation accuracy; its sum is not applied.
     */
    public boolean selection;

    public PendingStep() {}
}

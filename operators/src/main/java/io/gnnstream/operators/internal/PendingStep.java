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

    public PendingStep() {}
}

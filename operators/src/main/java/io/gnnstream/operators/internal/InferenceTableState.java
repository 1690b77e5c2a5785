package io.gnnstream.operators.internal;

/**
 * Checkpointed form of one layer's table of an evaluation round in progress at the trainer ({@link
 * InferenceRound}): the round's step, the model layer (1-based) whose outputs it holds, and the
 * rows by vertex. A Flink POJO of primitives and primitive arrays.
 */
public class InferenceTableState {

    public long step;
    public int layer;
    public int dim;
    public long[] ids;
    public float[] values;

    public InferenceTableState() {}
}

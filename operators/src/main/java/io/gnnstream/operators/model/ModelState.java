package io.gnnstream.operators.model;

/**
 * Complete training state of a {@link GnnModel}: parameters and Adam moments per tensor, in {@link
 * GnnModel#parameters()} order. A plain POJO of primitive arrays so Flink serializes it with its
 * POJO serializer (no Kryo, no INDArray) in checkpoints.
 */
public class ModelState {

    /** Number of optimizer updates applied so far. */
    public long step;

    public float[][] params;
    public float[][] adamM;
    public float[][] adamV;

    public ModelState() {}
}

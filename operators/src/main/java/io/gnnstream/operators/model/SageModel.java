package io.gnnstream.operators.model;

import io.gnnstream.operators.messages.MiniBatch;
import java.nio.FloatBuffer;

/**
 * GraphSAGE with mean aggregation, equivalent to stacked PyG {@code SAGEConv(aggr="mean",
 * root_weight=True)} layers: {@code z = h_dst W_root + mean(h_nbrs) W_neigh + b}, ReLU between
 * layers, dropout on every layer's input during training, softmax cross-entropy over the seeds and
 * Adam ({@link GnnModelBase}). Model layer {@code j} consumes hop {@code L - j} of a {@link
 * MiniBatch}; its parameter slice is {@code [W_root; W_neigh; b]} ({@link SageArchitecture}), its
 * input rows are built by {@link SageBlockOps}.
 */
public final class SageModel extends GnnModelBase {

    /** A layer's input rows with the step's dropout mask applied (training only). */
    private float[] dropped = new float[0];

    /** A freshly initialized model: Glorot-uniform weights and zero biases drawn from the seed. */
    public SageModel(ModelConfig config) {
        super(config, ModelType.SAGE.architecture());
    }

    /** Rebuilds a model from a {@link #snapshot()}; training then continues bit-identically. */
    public static SageModel restore(ModelConfig config, ModelState state) {
        SageModel model = new SageModel(config);
        return model.restored(model, state);
    }

    @Override
    void buildInput(
            int layer, float[] src, int in, MiniBatch batch, int hop, Dropout drop, FloatBuffer x) {
        LoopPool pool = loops.pool();
        float[] rows = src;
        if (drop != null) {
            // Each source row is a neighbour of about fanout/2 destinations or more: masking it
            // once costs fewer mask draws than masking it at every use (the same products).
            int nSrc = batch.numSrc(hop);
            dropped = grow(dropped, nSrc * in);
            float[] masked = dropped;
            pool.forEach(
                    nSrc,
                    ROW_GRAIN,
                    (from, to, w) ->
                            BlockOps.applyDropout(src, in, drop, masked, from, to, loops.scale(w)));
            timer.mark("dropout", layer);
            rows = masked;
        }
        float[] input = rows;
        pool.forEach(
                batch.numDst(hop),
                ROW_GRAIN,
                (from, to, w) ->
                        SageBlockOps.buildInput(
                                input,
                                in,
                                batch,
                                hop,
                                null,
                                x,
                                from,
                                to,
                                loops.row(w),
                                loops.scale(w)));
    }

    @Override
    void scatterInputGrad(
            FloatBuffer dx,
            int in,
            MiniBatch batch,
            int hop,
            float[] dSrc,
            int c0,
            int c1,
            float[] row) {
        BlockOps.scatterInputGrad(dx, in, true, 0, batch, hop, dSrc, c0, c1, row);
    }
}

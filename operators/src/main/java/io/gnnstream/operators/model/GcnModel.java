package io.gnnstream.operators.model;

import io.gnnstream.operators.messages.MiniBatch;
import java.nio.FloatBuffer;

/**
 * GCN (Kipf &amp; Welling, as DGL's {@code GraphConv}) on sampled blocks. Model layer {@code j}
 * consumes hop {@code L - j} of a {@link MiniBatch}; for a destination {@code v} with sampled
 * in-neighbours {@code N(v)} (one per edge of the block, repeats included) it computes
 *
 * <pre>z_v = (h_v + sum_{u in N(v)} h_u) / (|N(v)| + 1) W + b</pre>
 *
 * <p>that is, a self-loop plus <em>mean</em> normalisation over the sampled neighbourhood, as DGL's
 * {@code GraphConv(norm="right")} on the block with a self-loop added to every destination ({@link
 * GcnNorm#MEAN}). The mean needs only the destination's own sampled in-edges, so the same layer
 * applies to sampled training batches, full-neighbour evaluation blocks and layer-wise inference
 * alike. With {@link GcnNorm#SYM} it is the GCN paper's symmetric normalisation, from the graph's
 * degree of every node ({@link MiniBatch#degrees}; a source's degree within the block would depend
 * on which other seeds share the batch), the sampled sum scaled to the whole neighbourhood ({@link
 * GcnBlockOps}).
 *
 * <p>Everything else (ReLU, dropout, loss, Adam, determinism) is {@link GnnModelBase}'s. Parameters
 * per layer are {@code layers.j.lin.weight [in, out]} and {@code layers.j.bias [out]} ({@link
 * GcnArchitecture}); its input rows are built by {@link GcnBlockOps}.
 */
public final class GcnModel extends GnnModelBase {

    /**
     * A freshly initialized model: Glorot-uniform weights and zero biases drawn from the seed.
     *
     * @throws IllegalArgumentException if {@code config} is not of type {@link ModelType#GCN}
     */
    public GcnModel(ModelConfig config) {
        super(checkType(config), ModelType.GCN.architecture());
        this.sym = config.gcnNorm() == GcnNorm.SYM;
    }

    /** {@link GcnNorm#SYM}: the symmetric normalisation, from the batch's degrees. */
    private final boolean sym;

    /** Rebuilds a model from a {@link #snapshot()}; training then continues bit-identically. */
    public static GcnModel restore(ModelConfig config, ModelState state) {
        GcnModel model = new GcnModel(config);
        return model.restored(model, state);
    }

    private static ModelConfig checkType(ModelConfig config) {
        if (config.modelType() != ModelType.GCN) {
            throw new IllegalArgumentException(
                    "GcnModel needs a config of type gcn, got " + config.modelType().id());
        }
        return config;
    }

    @Override
    void buildInput(
            int layer, float[] src, int in, MiniBatch batch, int hop, Dropout drop, FloatBuffer x) {
        if (sym) {
            if (batch.summedNeighbours != null) {
                throw new IllegalArgumentException(
                        "a GCN layer aggregates every neighbour itself (no summedNeighbours)");
            }
            GcnBlockOps.requireDegrees(batch);
            loops.pool()
                    .forEach(
                            batch.numDst(hop),
                            ROW_GRAIN,
                            (from, to, w) ->
                                    GcnBlockOps.buildInputSym(
                                            src,
                                            in,
                                            batch,
                                            hop,
                                            drop,
                                            x,
                                            from,
                                            to,
                                            loops.row(w),
                                            loops.scale(w)));
            return;
        }
        loops.pool()
                .forEach(
                        batch.numDst(hop),
                        ROW_GRAIN,
                        (from, to, w) ->
                                GcnBlockOps.buildInput(
                                        src,
                                        in,
                                        batch,
                                        hop,
                                        drop,
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
        if (sym) {
            GcnBlockOps.scatterInputGradSym(dx, in, batch, hop, dSrc, c0, c1, row);
            return;
        }
        BlockOps.scatterInputGrad(dx, in, false, 1, batch, hop, dSrc, c0, c1, row);
    }
}

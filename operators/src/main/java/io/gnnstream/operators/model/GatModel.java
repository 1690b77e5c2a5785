package io.gnnstream.operators.model;

import io.gnnstream.operators.messages.MiniBatch;
import java.util.List;
import java.util.Map;

/**
 * GAT (Veličković et al.), equivalent to stacked PyG {@code GATConv(add_self_loops=True)} layers on
 * sampled blocks: per head {@code h}, {@code x'_i = sum_{j in N(i) + i} alpha_ij W x_j} with {@code
 * alpha_i = softmax_j(LeakyReLU_0.2(a_src . W x_j + a_dst . W x_i))}, dropout on the attention
 * coefficients during training, a bias; hidden layers concatenate {@link ModelConfig#heads()} heads
 * and apply ELU (as the GAT paper), the last layer averages {@link ModelConfig#outHeads()} heads
 * into the class logits. Dropout on every layer's input, softmax cross-entropy over the seeds and
 * Adam are the other models'. Parameters per layer ({@link GatArchitecture}): {@code lin.weight
 * [in, H*C]}, {@code att_src [H, C]}, {@code att_dst [H, C]}, {@code bias}. Kernels: {@link
 * GatBlockOps}.
 *
 * <p>All loops are plain Java over heap arrays on a {@link ModelLoops} pool, each output element
 * computed by one chunk in a fixed order, so replicas fed the same batches stay bit-identical
 * whatever the thread count. Not thread-safe.
 */
public final class GatModel implements GnnModel {

    private static final int ROW_GRAIN = 64;

    private final ModelConfig config;
    private final int numLayers;
    private final ModelParameters params;
    private final ModelLoops loops;
    private final PhaseTimer timer = new PhaseTimer();

    /** Per layer, the forward pass's state for the backward pass: its input rows as used. */
    private final float[][] x;

    /** Per layer, the buffer of its input rows with the step's dropout mask applied. */
    private final float[][] dropped;

    private final float[][] g;
    private final float[][] srcScore;
    private final float[][] dstScore;
    private final float[][] alpha;
    private final float[][] attScale;
    private final float[][] act;
    private float[] logits = new float[0];

    /** A freshly initialized model: Glorot-uniform weights and attention, zero biases. */
    public GatModel(ModelConfig config) {
        if (config.modelType() != ModelType.GAT) {
            throw new IllegalArgumentException(
                    "GatModel needs a config of type gat, got " + config.modelType().id());
        }
        this.config = config;
        this.numLayers = config.numLayers();
        this.params =
                new ModelParameters(
                        ModelType.GAT.architecture().tensors(config),
                        config.seed(),
                        config.weightDecay());
        int maxIn = 1;
        for (int j = 0; j < numLayers; j++) {
            maxIn = Math.max(maxIn, Math.max(config.layerIn(j), heads(j) * channels(j)));
        }
        this.loops = new ModelLoops(maxIn, maxIn);
        this.x = new float[numLayers][0];
        this.dropped = new float[numLayers][0];
        this.g = new float[numLayers][0];
        this.srcScore = new float[numLayers][0];
        this.dstScore = new float[numLayers][0];
        this.alpha = new float[numLayers][0];
        this.attScale = new float[numLayers][0];
        this.act = new float[numLayers][0];
    }

    /** Rebuilds a model from a {@link #snapshot()}; training then continues bit-identically. */
    public static GatModel restore(ModelConfig config, ModelState state) {
        GatModel model = new GatModel(config);
        model.params.restore(state);
        return model;
    }

    private int heads(int layer) {
        return layer == numLayers - 1 ? config.outHeads() : config.heads();
    }

    private int channels(int layer) {
        return layer == numLayers - 1 ? config.numClasses() : config.hidden();
    }

    private boolean concat(int layer) {
        return layer < numLayers - 1;
    }

    /** Offsets in the flat vector of layer {@code j}'s {@code W, att_src, att_dst, bias}. */
    private int[] offsets(int j) {
        int w = params.layerOffset(j);
        int hc = heads(j) * channels(j);
        int aSrc = w + config.layerIn(j) * hc;
        int aDst = aSrc + hc;
        return new int[] {w, aSrc, aDst, aDst + hc};
    }

    @Override
    public ModelConfig config() {
        return config;
    }

    @Override
    public long step() {
        return params.step();
    }

    @Override
    public TrainResult trainStep(MiniBatch batch) {
        Gradients gr = computeGradients(batch);
        applyGradients(gr.grad());
        return new TrainResult(gr.loss(), gr.correct(), gr.numSeeds());
    }

    @Override
    public Gradients computeGradients(MiniBatch batch) {
        timer.start();
        BatchValidator.validate(batch, config, true);
        forward(batch, true);
        SoftmaxLoss.Stats stats =
                SoftmaxLoss.compute(logits, batch, config.numClasses(), true, null);
        timer.mark("loss");
        float[] grad = new float[params.size()];
        float[] dz = logits;
        LoopPool pool = loops.pool();
        for (int j = numLayers - 1; j >= 0; j--) {
            int hop = numLayers - j;
            int heads = heads(j);
            int ch = channels(j);
            int hc = heads * ch;
            int in = config.layerIn(j);
            int nDst = batch.numDst(hop);
            int nSrc = batch.numSrc(hop);
            int outW = concat(j) ? hc : ch;
            int[] off = offsets(j);
            float[] p = params.values;
            float[] dzj = dz;
            for (int c = 0; c < outW; c++) {
                float s = 0f;
                for (int i = 0; i < nDst; i++) {
                    s += dzj[i * outW + c];
                }
                grad[off[3] + c] = s;
            }
            float[] dLogit = new float[GatBlockOps.slots(batch, hop) * heads];
            float[] dDst = new float[nDst * heads];
            boolean dropped = config.attentionDropout() > 0.0;
            float[] gj = g[j];
            float[] ss = srcScore[j];
            float[] ds = dstScore[j];
            float[] al = alpha[j];
            float[] sc = attScale[j];
            boolean cat = concat(j);
            pool.forEach(
                    nDst,
                    ROW_GRAIN,
                    (from, to, w) ->
                            GatBlockOps.attentionBackward(
                                    batch, hop, heads, ch, gj, ss, ds, al, sc, dropped, cat, dzj,
                                    dLogit, dDst, from, to));
            float[] dSrc = new float[nSrc * heads];
            GatBlockOps.scatterScores(batch, hop, heads, dLogit, dSrc);
            timer.mark("attention_backward", j);
            float[] dg = new float[nSrc * hc];
            pool.forEach(
                    hc,
                    ModelLoops.columnGrain(hc, pool.threads()),
                    (c0, c1, w) ->
                            GatBlockOps.projectionBackward(
                                    batch, hop, heads, ch, nSrc, gj, al, sc, dropped, cat, dzj,
                                    dSrc, dDst, p, off[1], off[2], dg, grad, off[1], off[2], c0,
                                    c1));
            timer.mark("projection_backward", j);
            float[] xj = x[j];
            pool.forEach(
                    in,
                    ModelLoops.columnGrain(in, pool.threads()),
                    (k0, k1, w) ->
                            GatBlockOps.weightGrad(xj, in, nSrc, dg, hc, grad, off[0], k0, k1));
            timer.mark("weight_grad", j);
            if (j > 0) {
                float[] dx = new float[nSrc * in];
                Dropout drop = dropout(j);
                float[] prev = act[j - 1];
                pool.forEach(
                        nSrc,
                        ROW_GRAIN,
                        (from, to, w) ->
                                GatBlockOps.inputGrad(
                                        dg,
                                        hc,
                                        p,
                                        off[0],
                                        in,
                                        drop,
                                        prev,
                                        dx,
                                        from,
                                        to,
                                        loops.scale(w)));
                timer.mark("input_grad", j);
                dz = dx;
            }
        }
        return new Gradients(
                grad,
                stats.lossSum() / Math.max(1, stats.labelled()),
                stats.correct(),
                stats.labelled());
    }

    @Override
    public void applyGradients(float[] flatGrad) {
        if (flatGrad.length != params.size()) {
            throw new IllegalArgumentException(
                    "gradient has " + flatGrad.length + " entries, model has " + params.size());
        }
        timer.start();
        params.update(flatGrad, config.learningRateAt(params.step()));
        timer.mark("adam");
    }

    @Override
    public EvalResult evaluate(MiniBatch batch) {
        timer.start();
        BatchValidator.validate(batch, config, false);
        forward(batch, false);
        int[] predictions = new int[batch.numSeeds()];
        SoftmaxLoss.Stats stats =
                SoftmaxLoss.compute(logits, batch, config.numClasses(), false, predictions);
        return new EvalResult(stats.lossSum(), stats.correct(), stats.labelled(), predictions);
    }

    private Dropout dropout(int layer) {
        return Dropout.of(config.seed(), params.step(), layer, config.dropout());
    }

    private Dropout attentionDropout(int layer) {
        return Dropout.of(config.seed(), params.step(), -1 - layer, config.attentionDropout());
    }

    private void forward(MiniBatch batch, boolean training) {
        for (int j = 0; j < numLayers; j++) {
            int hop = numLayers - j;
            float[] src = j == 0 ? batch.features : act[j - 1];
            float[] z = layer(j, batch, hop, src, training);
            if (j < numLayers - 1) {
                act[j] = GnnModelBase.grow(act[j], z.length);
                float[] a = act[j];
                loops.pool()
                        .forEach(
                                z.length,
                                GnnModelBase.ELEMENT_GRAIN,
                                (from, to, w) -> GatBlockOps.elu(z, a, from, to));
            } else {
                logits = z;
            }
            timer.mark("activation", j);
        }
    }

    /**
     * Layer {@code j} on hop {@code hop} of {@code b} from source rows {@code src}: its output
     * before the activation ({@code nDst} rows), keeping what the backward pass reads.
     */
    private float[] layer(int j, MiniBatch b, int hop, float[] src, boolean training) {
        int heads = heads(j);
        int ch = channels(j);
        int hc = heads * ch;
        int in = config.layerIn(j);
        int nSrc = b.numSrc(hop);
        int nDst = b.numDst(hop);
        int[] off = offsets(j);
        float[] p = params.values;
        LoopPool pool = loops.pool();
        float[] input = src;
        Dropout drop = training ? dropout(j) : null;
        if (drop != null) {
            dropped[j] = GnnModelBase.grow(dropped[j], nSrc * in);
            float[] masked = dropped[j];
            pool.forEach(
                    nSrc,
                    ROW_GRAIN,
                    (from, to, w) ->
                            BlockOps.applyDropout(src, in, drop, masked, from, to, loops.scale(w)));
            input = masked;
        }
        x[j] = input;
        float[] xs = input;
        g[j] = GnnModelBase.grow(g[j], nSrc * hc);
        float[] gj = g[j];
        pool.forEach(
                nSrc,
                ROW_GRAIN,
                (from, to, w) -> GatBlockOps.project(xs, in, p, off[0], hc, gj, from, to));
        timer.mark("build_input", j);
        srcScore[j] = GnnModelBase.grow(srcScore[j], nSrc * heads);
        dstScore[j] = GnnModelBase.grow(dstScore[j], nDst * heads);
        float[] ss = srcScore[j];
        float[] ds = dstScore[j];
        pool.forEach(
                nSrc,
                ROW_GRAIN,
                (from, to, w) -> {
                    GatBlockOps.scores(gj, heads, ch, p, off[1], ss, from, to);
                    GatBlockOps.scores(gj, heads, ch, p, off[2], ds, from, Math.min(to, nDst));
                });
        int slots = GatBlockOps.slots(b, hop) * heads;
        alpha[j] = GnnModelBase.grow(alpha[j], slots);
        Dropout attDrop = training ? attentionDropout(j) : null;
        if (attDrop != null) {
            attScale[j] = GnnModelBase.grow(attScale[j], slots);
        }
        float[] al = alpha[j];
        float[] sc = attScale[j];
        boolean cat = concat(j);
        float[] z = new float[nDst * (cat ? hc : ch)];
        pool.forEach(
                nDst,
                ROW_GRAIN,
                (from, to, w) ->
                        GatBlockOps.attend(
                                b,
                                hop,
                                heads,
                                ch,
                                gj,
                                ss,
                                ds,
                                attDrop,
                                al,
                                sc,
                                cat,
                                p,
                                off[3],
                                z,
                                from,
                                to,
                                loops.row(w)));
        timer.mark("attend", j);
        return z;
    }

    /**
     * {@inheritDoc} Destinations summed at their owner ({@link MiniBatch#summedNeighbours}) are
     * refused: attention needs every neighbour's row.
     */
    @Override
    public float[] inferLayer(int layer, MiniBatch block, float[] input) {
        checkLayer(layer);
        int in = config.layerIn(layer);
        BatchValidator.validateBlock(block, in, input);
        int nDst = block.numDst(1);
        for (int i = 0; i < nDst; i++) {
            if (block.summedNeighbours(1, i) != 0) {
                throw new IllegalArgumentException(
                        "gat cannot use neighbours aggregated at their owner (destination "
                                + i
                                + ")");
            }
        }
        if (nDst == 0) {
            return new float[0];
        }
        float[] z = layer(layer, block, 1, input, false);
        if (layer == numLayers - 1) {
            return z;
        }
        float[] out = new float[z.length];
        loops.pool()
                .forEach(
                        z.length,
                        GnnModelBase.ELEMENT_GRAIN,
                        (from, to, w) -> GatBlockOps.elu(z, out, from, to));
        return out;
    }

    /** The rows themselves: attention is not linear in them, so rounds store them unprojected. */
    @Override
    public float[] project(int layer, float[] h, int rows) {
        checkLayer(layer);
        int in = config.layerIn(layer);
        if (h.length < (long) rows * in) {
            throw new IllegalArgumentException(
                    "projection input must hold rows x " + in + " floats");
        }
        return java.util.Arrays.copyOf(h, rows * in);
    }

    @Override
    public float[] inferProjected(int layer, MiniBatch block, float[] rows) {
        return inferLayer(layer, block, rows);
    }

    private void checkLayer(int layer) {
        if (layer < 0 || layer >= numLayers) {
            throw new IllegalArgumentException(
                    "layer must be in [0, " + numLayers + "), got " + layer);
        }
    }

    @Override
    public List<ParamInfo> parameters() {
        return params.infos();
    }

    @Override
    public float[] parameterVector() {
        return params.values.clone();
    }

    @Override
    public void setParameterVector(float[] values) {
        params.set(values);
    }

    @Override
    public long checksum() {
        return params.checksum();
    }

    @Override
    public ModelState snapshot() {
        return params.snapshot();
    }

    @Override
    public void setPhaseTiming(boolean on) {
        timer.enable(on);
        timer.reset();
    }

    @Override
    public Map<String, Long> phaseNanos() {
        return timer.wallNanos();
    }

    @Override
    public Map<String, Long> phaseCpuNanos() {
        return timer.cpuNanos();
    }

    /** Releases the loop threads; the model stays usable. */
    @Override
    public void close() {
        loops.close();
    }

    /** Runs the loops on {@code threads} threads ({@code 0}: {@link Nd4jThreads#configured()}). */
    void setLoopThreads(int threads) {
        loops.setThreads(threads);
    }
}

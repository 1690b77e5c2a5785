package io.gnnstream.operators.model;

import io.gnnstream.operators.messages.MiniBatch;
import java.nio.FloatBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * What the ND4J CPU models share: a layer is a sparse step that builds one dense input row per
 * destination ({@code k} blocks of {@code in} floats and a constant 1, so one gemm against the
 * layer's flat parameter slice gives its output), ReLU between layers, dropout on every layer's
 * input during training, softmax cross-entropy over the labelled seeds and Adam over the {@link
 * ModelParameters}. An architecture supplies its {@link Architecture} (blocks, tensors) and its
 * sparse kernels: {@link #buildInput} (e.g. {@link SageBlockOps}, {@link GcnBlockOps}) and {@link
 * #scatterInputGrad} (usually the shared {@link BlockOps#scatterInputGrad}).
 *
 * <p>Parameters live in one heap vector whose per-layer slice is mirrored into native memory for
 * gemm. The sparse loops run on a {@link ModelLoops} pool with results that do not depend on the
 * thread count, so replicas fed the same batches stay bit-identical. Native and heap buffers are
 * reused across steps and only grow; {@link #close()} frees the native ones and the loop threads.
 * Not thread-safe.
 */
abstract class GnnModelBase implements GnnModel {

    /** Destination rows per chunk of the aggregation. */
    static final int ROW_GRAIN = 64;

    /** Elements per chunk of element-wise loops. */
    static final int ELEMENT_GRAIN = 1 << 16;

    final ModelConfig config;
    final int numLayers;
    final ModelParameters params;
    final ModelLoops loops;
    final PhaseTimer timer = new PhaseTimer();

    /** Blocks of {@code in} floats in a layer's dense input row, before its constant 1. */
    private final int blocks;

    private final NativeMatrix[] weights;
    private final NativeMatrix[] inputs;
    private final NativeMatrix[] outputs;
    private final NativeMatrix[] weightGrads;
    private final NativeMatrix inputGrad = new NativeMatrix();
    private final NativeMatrix projection = new NativeMatrix();
    private final NativeMatrix projectionIn = new NativeMatrix();
    private final NativeMatrix projectionOut = new NativeMatrix();
    private final NativeMatrix selector = new NativeMatrix();
    private final float[][] activations;
    private float[] sourceGrad = new float[0];
    private float[] logits = new float[0];
    private boolean weightsStale = true;

    /**
     * @param architecture the model's: its {@link Architecture#weightBlocks()} blocks of {@code in}
     *     floats per dense input row (their weights stacked above the bias in each layer's
     *     parameter slice) and its {@link Architecture#tensors} in the order of that slice
     */
    GnnModelBase(ModelConfig config, Architecture architecture) {
        this.config = config;
        this.numLayers = config.numLayers();
        this.blocks = architecture.weightBlocks();
        this.params =
                new ModelParameters(
                        architecture.tensors(config), config.seed(), config.weightDecay());
        int maxIn = 1;
        for (int j = 0; j < numLayers; j++) {
            maxIn = Math.max(maxIn, config.layerIn(j));
            if (params.layerSize(j) != inputWidth(j) * config.layerOut(j)) {
                throw new IllegalStateException("layer " + j + " tensors do not fill its slice");
            }
        }
        this.weights = matrices(numLayers);
        this.inputs = matrices(numLayers);
        this.outputs = matrices(numLayers);
        this.weightGrads = matrices(numLayers);
        this.activations = new float[numLayers - 1][0];
        this.loops = new ModelLoops(blocks * maxIn + 1, BlockOps.SCALE_ROWS * maxIn);
    }

    /**
     * Fills the dense input rows of the {@code nDst} destinations of {@code batch}'s hop {@code
     * hop} into {@code x} from the source rows {@code src} ({@code in} floats each), with the
     * step's dropout masks {@code drop} ({@code null}: none).
     */
    abstract void buildInput(
            int layer, float[] src, int in, MiniBatch batch, int hop, Dropout drop, FloatBuffer x);

    /**
     * Adds columns {@code [c0, c1)} of the input-row gradients {@code dx} to the source-row
     * gradients {@code dSrc} ({@code in} floats per source row); {@code row} is scratch.
     */
    abstract void scatterInputGrad(
            FloatBuffer dx,
            int in,
            MiniBatch batch,
            int hop,
            float[] dSrc,
            int c0,
            int c1,
            float[] row);

    /** Columns of layer {@code j}'s dense input row. */
    final int inputWidth(int j) {
        return blocks * config.layerIn(j) + 1;
    }

    @Override
    public final ModelConfig config() {
        return config;
    }

    @Override
    public final long step() {
        return params.step();
    }

    @Override
    public final TrainResult trainStep(MiniBatch batch) {
        Gradients g = computeGradients(batch);
        applyGradients(g.grad());
        return new TrainResult(g.loss(), g.correct(), g.numSeeds());
    }

    @Override
    public final Gradients computeGradients(MiniBatch batch) {
        timer.start();
        BatchValidator.validate(batch, config, true);
        timer.mark("validate");
        forward(batch, true);
        SoftmaxLoss.Stats stats =
                SoftmaxLoss.compute(logits, batch, config.numClasses(), true, null);
        float[] grad = new float[params.size()];
        int last = numLayers - 1;
        outputs[last].shape(batch.numSeeds(), config.numClasses());
        outputs[last].floats().put(0, logits, 0, batch.numSeeds() * config.numClasses());
        timer.mark("loss");
        for (int j = last; j >= 0; j--) {
            int hop = numLayers - j;
            int in = config.layerIn(j);
            int width = inputWidth(j);
            int nDst = batch.numDst(hop);
            INDArray x = inputs[j].shape(nDst, width);
            INDArray dz = outputs[j].shape(nDst, config.layerOut(j));
            INDArray dw = weightGrads[j].shape(width, config.layerOut(j));
            Nd4j.gemm(x, dz, dw, true, false, 1.0, 0.0);
            weightGrads[j].floats().get(0, grad, params.layerOffset(j), params.layerSize(j));
            timer.mark("gemm_weight_grad", j);
            if (j > 0) {
                // Layer j-1's output gradient; the input layer needs none (features are constants).
                INDArray dx = inputGrad.shape(nDst, width);
                Nd4j.gemm(
                        dz, weights[j].shape(width, config.layerOut(j)), dx, false, true, 1.0, 0.0);
                timer.mark("gemm_input_grad", j);
                int nSrc = batch.numSrc(hop);
                sourceGrad = grow(sourceGrad, nSrc * in);
                float[] dSrc = sourceGrad;
                FloatBuffer dxBuf = inputGrad.floats();
                LoopPool pool = loops.pool();
                pool.forEach(
                        nSrc * in, ELEMENT_GRAIN, (from, to, w) -> Arrays.fill(dSrc, from, to, 0f));
                pool.forEach(
                        in,
                        ModelLoops.columnGrain(in, pool.threads()),
                        (c0, c1, w) ->
                                scatterInputGrad(
                                        dxBuf, in, batch, hop, dSrc, c0, c1, loops.row(w)));
                timer.mark("scatter", j);
                outputs[j - 1].shape(nSrc, in);
                FloatBuffer dzBuf = outputs[j - 1].floats();
                float[] act = activations[j - 1];
                Dropout drop = dropout(j, true);
                pool.forEach(
                        nSrc * in,
                        ELEMENT_GRAIN,
                        (from, to, w) ->
                                BlockOps.reluDropoutBackward(
                                        dSrc, act, from, to, drop, loops.scale(w), dzBuf));
                timer.mark("activation_backward", j - 1);
            }
        }
        return new Gradients(
                grad,
                stats.lossSum() / Math.max(1, stats.labelled()),
                stats.correct(),
                stats.labelled());
    }

    @Override
    public final void applyGradients(float[] flatGrad) {
        if (flatGrad.length != params.size()) {
            throw new IllegalArgumentException(
                    "gradient has " + flatGrad.length + " entries, model has " + params.size());
        }
        timer.start();
        params.update(flatGrad, config.learningRateAt(params.step()));
        weightsStale = true;
        timer.mark("adam");
    }

    @Override
    public final EvalResult evaluate(MiniBatch batch) {
        timer.start();
        BatchValidator.validate(batch, config, false);
        forward(batch, false);
        int[] predictions = new int[batch.numSeeds()];
        SoftmaxLoss.Stats stats =
                SoftmaxLoss.compute(logits, batch, config.numClasses(), false, predictions);
        return new EvalResult(stats.lossSum(), stats.correct(), stats.labelled(), predictions);
    }

    /**
     * {@inheritDoc} Applied layer by layer to every vertex over all its in-neighbours, this gives
     * exactly the model's output on full neighbourhoods, each vertex's layer output computed once.
     */
    @Override
    public final float[] inferLayer(int layer, MiniBatch block, float[] input) {
        checkLayer(layer);
        uploadWeights();
        return infer(
                layer,
                block,
                input,
                config.layerIn(layer),
                weights[layer].shape(inputWidth(layer), config.layerOut(layer)));
    }

    @Override
    public final float[] project(int layer, float[] h, int rows) {
        checkLayer(layer);
        int in = config.layerIn(layer);
        int out = config.layerOut(layer);
        int width = blocks * out;
        if (h.length < (long) rows * in) {
            throw new IllegalArgumentException(
                    "projection input must hold rows x " + in + " floats");
        }
        float[] result = new float[rows * width];
        if (rows == 0) {
            return result;
        }
        // [W_0 | W_1 | ...]: row r of every weight block side by side.
        projection.shape(in, width);
        FloatBuffer w = projection.floats();
        int offset = params.layerOffset(layer);
        for (int b = 0; b < blocks; b++) {
            for (int r = 0; r < in; r++) {
                w.put(r * width + b * out, params.values, offset + (b * in + r) * out, out);
            }
        }
        INDArray x = projectionIn.shape(rows, in);
        projectionIn.floats().put(0, h, 0, rows * in);
        INDArray z = projectionOut.shape(rows, width);
        Nd4j.gemm(x, projection.shape(in, width), z, false, false, 1.0, 0.0);
        projectionOut.floats().get(0, result, 0, rows * width);
        return result;
    }

    @Override
    public final float[] inferProjected(int layer, MiniBatch block, float[] rows) {
        checkLayer(layer);
        int in = config.layerIn(layer);
        int out = config.layerOut(layer);
        int width = blocks * out;
        // The dense input row over projected rows holds, per aggregation b, all blocks of the
        // aggregated projections; block b of aggregation b is the layer's term b. Selecting those
        // and adding the bias is a gemm with a 0/1 matrix above the bias row.
        int selectorRows = blocks * width + 1;
        selector.shape(selectorRows, out);
        FloatBuffer sel = selector.floats();
        for (int k = 0; k < selectorRows * out; k++) {
            sel.put(k, 0f);
        }
        for (int b = 0; b < blocks; b++) {
            for (int c = 0; c < out; c++) {
                sel.put((b * width + b * out + c) * out + c, 1f);
            }
        }
        sel.put(
                (selectorRows - 1) * out,
                params.values,
                params.layerOffset(layer) + blocks * in * out,
                out);
        return infer(layer, block, rows, width, selector.shape(selectorRows, out));
    }

    private void checkLayer(int layer) {
        if (layer < 0 || layer >= numLayers) {
            throw new IllegalArgumentException(
                    "layer must be in [0, " + numLayers + "), got " + layer);
        }
    }

    /**
     * Layer {@code layer}'s output for the destinations of {@code block} from source rows of {@code
     * in} floats, with {@code w} the weights of their dense input rows.
     */
    private float[] infer(int layer, MiniBatch block, float[] input, int in, INDArray w) {
        int out = config.layerOut(layer);
        BatchValidator.validateBlock(block, in, input);
        int nDst = block.numDst(1);
        if (nDst == 0) {
            return new float[0];
        }
        int width = blocks * in + 1;
        INDArray x = inputs[layer].shape(nDst, width);
        buildInput(layer, input, in, block, 1, null, inputs[layer].floats());
        INDArray z = outputs[layer].shape(nDst, out);
        Nd4j.gemm(x, w, z, false, false, 1.0, 0.0);
        float[] result = new float[nDst * out];
        FloatBuffer zBuf = outputs[layer].floats();
        if (layer < numLayers - 1) {
            loops.pool()
                    .forEach(
                            nDst * out,
                            ELEMENT_GRAIN,
                            (from, to, wk) -> BlockOps.reluFrom(zBuf, result, from, to));
        } else {
            zBuf.get(0, result, 0, nDst * out);
        }
        return result;
    }

    @Override
    public final List<ParamInfo> parameters() {
        return params.infos();
    }

    @Override
    public final float[] parameterVector() {
        return params.values.clone();
    }

    @Override
    public final void setParameterVector(float[] values) {
        params.set(values);
        weightsStale = true;
    }

    @Override
    public final long checksum() {
        return params.checksum();
    }

    @Override
    public final ModelState snapshot() {
        return params.snapshot();
    }

    /** Takes over a {@link #snapshot()}'s state; used by the architectures' {@code restore}. */
    final <M extends GnnModelBase> M restored(M self, ModelState state) {
        params.restore(state);
        weightsStale = true;
        return self;
    }

    /**
     * Turns per-phase accounting of {@link #computeGradients}, {@link #applyGradients} and {@link
     * #evaluate} on or off (off by default; on costs a few clock reads per step) and clears it.
     */
    @Override
    public final void setPhaseTiming(boolean on) {
        timer.enable(on);
        timer.reset();
    }

    /**
     * Wall-clock nanoseconds spent per phase since {@link #setPhaseTiming} turned timing on, in
     * execution order; names end in the model layer where a phase runs per layer (e.g. {@code
     * build_input.0}).
     */
    @Override
    public final Map<String, Long> phaseNanos() {
        return timer.wallNanos();
    }

    /**
     * As {@link #phaseNanos()}, but CPU time of the calling thread: with one thread (see {@link
     * Nd4jThreads}) all work runs there, so this is the step's cost free of other processes.
     */
    @Override
    public final Map<String, Long> phaseCpuNanos() {
        return timer.cpuNanos();
    }

    /** Releases native buffers now; the model stays usable and reallocates them on demand. */
    @Override
    public final void close() {
        for (NativeMatrix[] group : new NativeMatrix[][] {weights, inputs, outputs, weightGrads}) {
            for (NativeMatrix m : group) {
                m.release();
            }
        }
        inputGrad.release();
        projection.release();
        projectionIn.release();
        projectionOut.release();
        selector.release();
        weightsStale = true;
        loops.close();
    }

    /**
     * Runs the model's Java loops (aggregation, scatter, activations) on {@code threads} threads;
     * {@code 0} (the default) follows {@link Nd4jThreads#configured()}. Results are bit-identical
     * for every thread count.
     */
    final void setLoopThreads(int threads) {
        loops.setThreads(threads);
    }

    /**
     * The step's dropout masks for layer {@code layer}'s input, or {@code null} outside training.
     */
    final Dropout dropout(int layer, boolean training) {
        return training ? Dropout.of(config.seed(), params.step(), layer, config.dropout()) : null;
    }

    private void uploadWeights() {
        if (weightsStale) {
            for (int j = 0; j < numLayers; j++) {
                weights[j].shape(inputWidth(j), config.layerOut(j));
                weights[j]
                        .floats()
                        .put(0, params.values, params.layerOffset(j), params.layerSize(j));
            }
            weightsStale = false;
            timer.mark("upload_weights");
        }
    }

    private void forward(MiniBatch batch, boolean training) {
        uploadWeights();
        for (int j = 0; j < numLayers; j++) {
            int hop = numLayers - j;
            int in = config.layerIn(j);
            int out = config.layerOut(j);
            int nDst = batch.numDst(hop);
            float[] src = j == 0 ? batch.features : activations[j - 1];
            INDArray x = inputs[j].shape(nDst, inputWidth(j));
            buildInput(j, src, in, batch, hop, dropout(j, training), inputs[j].floats());
            timer.mark("build_input", j);
            INDArray z = outputs[j].shape(nDst, out);
            Nd4j.gemm(x, weights[j].shape(inputWidth(j), out), z, false, false, 1.0, 0.0);
            timer.mark("gemm_forward", j);
            LoopPool pool = loops.pool();
            if (j < numLayers - 1) {
                activations[j] = grow(activations[j], nDst * out);
                float[] act = activations[j];
                FloatBuffer zBuf = outputs[j].floats();
                pool.forEach(
                        nDst * out,
                        ELEMENT_GRAIN,
                        (from, to, w) -> BlockOps.reluFrom(zBuf, act, from, to));
            } else {
                logits = grow(logits, nDst * out);
                outputs[j].floats().get(0, logits, 0, nDst * out);
            }
            timer.mark("activation", j);
        }
    }

    static float[] grow(float[] buffer, int size) {
        return buffer.length >= size
                ? buffer
                : new float[Math.max(size, buffer.length + buffer.length / 4)];
    }

    private static NativeMatrix[] matrices(int n) {
        NativeMatrix[] m = new NativeMatrix[n];
        for (int i = 0; i < n; i++) {
            m[i] = new NativeMatrix();
        }
        return m;
    }
}

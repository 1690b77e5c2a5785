package io.gnnstream.operators.model;

import io.gnnstream.operators.messages.MiniBatch;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * GCN (Kipf &amp; Welling, as DGL's {@code GraphConv}) on sampled blocks. Model layer {@code j}
 * consumes hop {@code L - j} of a {@link MiniBatch}; for a destination {@code v} with sampled
 * in-neighbours {@code N(v)} (one per edge of the block, repeats included) it computes
 *
 * <pre>z_v = (h_v + sum_{u in N(v)} h_u) / (|N(v)| + 1) W + b</pre>
 *
 * <p>that is, a self-loop plus <em>mean</em> normalisation over the sampled neighbourhood, as DGL's
 * {@code GraphConv(norm="right")} on the block with a self-loop added to every destination. It is
 * not the symmetric normalisation {@code 1 / sqrt((d_u + 1)(d_v + 1))} of the GCN paper: that needs
 * the degree of every source vertex, which a sampled block does not carry (it holds only the
 * sampled in-edges of its destinations), and a source's degree within the block would depend on
 * which other seeds share the batch. The mean needs only the destination's own sampled in-edges, so
 * the same layer applies to sampled training batches, full-neighbour evaluation blocks and
 * layer-wise inference alike.
 *
 * <p>ReLU between layers, dropout on every layer's input during training (counter-based masks,
 * {@link Dropout#of}), softmax cross-entropy over the labelled seeds and {@link Adam} with {@link
 * ModelConfig#learningRateAt}, exactly as in {@link SageModel}. Parameters per layer are {@code
 * layers.j.lin.weight [in, out]} and {@code layers.j.bias [out]}, Glorot-uniform weights and zero
 * biases drawn from {@link ModelConfig#seed()}. They live in one heap vector whose per-layer slice
 * {@code [W; b]} is mirrored into native memory for gemm. The sparse Java loops ({@link
 * GcnBlockOps}) run on a {@link LoopPool} with results that do not depend on the thread count, so
 * replicas fed the same batches stay bit-identical. Not thread-safe.
 */
public final class GcnModel implements GnnModel {

    /** Destination rows per chunk of the aggregation. */
    private static final int ROW_GRAIN = 64;

    /** Elements per chunk of element-wise loops. */
    private static final int ELEMENT_GRAIN = 1 << 16;

    private final ModelConfig config;
    private final int numLayers;
    private final int[] offsets;
    private final float[] params;
    private final Adam adam;

    private final NativeMatrix[] weights;
    private final NativeMatrix[] inputs;
    private final NativeMatrix[] outputs;
    private final NativeMatrix[] weightGrads;
    private final NativeMatrix inputGrad = new NativeMatrix();
    private final float[][] activations;
    private float[] sourceGrad = new float[0];
    private float[] logits = new float[0];
    private final ModelLoops loops;
    private boolean weightsStale = true;
    private final PhaseTimer timer = new PhaseTimer();

    /**
     * A freshly initialized model: Glorot-uniform weights and zero biases drawn from the seed.
     *
     * @throws IllegalArgumentException if {@code config} is not of type {@link ModelType#GCN}
     */
    public GcnModel(ModelConfig config) {
        if (config.modelType() != ModelType.GCN) {
            throw new IllegalArgumentException(
                    "GcnModel needs a config of type gcn, got " + config.modelType().id());
        }
        this.config = config;
        this.numLayers = config.numLayers();
        this.offsets = new int[numLayers + 1];
        int maxIn = 1;
        for (int j = 0; j < numLayers; j++) {
            offsets[j + 1] = offsets[j] + config.layerParameters(j);
            maxIn = Math.max(maxIn, config.layerIn(j));
        }
        this.params = new float[offsets[numLayers]];
        this.adam = new Adam(config.weightDecay(), params.length);
        this.weights = matrices(numLayers);
        this.inputs = matrices(numLayers);
        this.outputs = matrices(numLayers);
        this.weightGrads = matrices(numLayers);
        this.activations = new float[numLayers - 1][0];
        this.loops = new ModelLoops(maxIn + 1, BlockOps.SCALE_ROWS * maxIn);
        SplittableRandom random = new SplittableRandom(config.seed());
        for (int j = 0; j < numLayers; j++) {
            int in = config.layerIn(j);
            int out = config.layerOut(j);
            double limit = Math.sqrt(6.0 / (in + out));
            for (int k = offsets[j]; k < offsets[j] + in * out; k++) {
                params[k] = (float) ((2.0 * random.nextDouble() - 1.0) * limit);
            }
        }
    }

    /** Rebuilds a model from a {@link #snapshot()}; training then continues bit-identically. */
    public static GcnModel restore(ModelConfig config, ModelState state) {
        GcnModel model = new GcnModel(config);
        List<ParamInfo> infos = model.parameters();
        for (float[][] part : new float[][][] {state.params, state.adamM, state.adamV}) {
            if (part == null || part.length != infos.size()) {
                throw new IllegalArgumentException(
                        "state must hold "
                                + infos.size()
                                + " tensors per part, got "
                                + (part == null ? "null" : part.length));
            }
        }
        for (int t = 0; t < infos.size(); t++) {
            int offset = model.tensorOffset(t);
            int size = infos.get(t).values().length;
            copyTensor(state.params[t], model.params, offset, size, infos.get(t).name());
            copyTensor(state.adamM[t], model.adam.m, offset, size, infos.get(t).name());
            copyTensor(state.adamV[t], model.adam.v, offset, size, infos.get(t).name());
        }
        if (state.step < 0) {
            throw new IllegalArgumentException("state step must be >= 0, got " + state.step);
        }
        model.adam.step = state.step;
        return model;
    }

    @Override
    public ModelConfig config() {
        return config;
    }

    @Override
    public long step() {
        return adam.step;
    }

    @Override
    public TrainResult trainStep(MiniBatch batch) {
        Gradients g = computeGradients(batch);
        applyGradients(g.grad());
        return new TrainResult(g.loss(), g.correct(), g.numSeeds());
    }

    @Override
    public Gradients computeGradients(MiniBatch batch) {
        timer.start();
        BatchValidator.validate(batch, config, true);
        timer.mark("validate");
        forward(batch, true);
        SoftmaxLoss.Stats stats =
                SoftmaxLoss.compute(logits, batch, config.numClasses(), true, null);
        float[] grad = new float[params.length];
        int last = numLayers - 1;
        outputs[last].shape(batch.numSeeds(), config.numClasses());
        outputs[last].floats().put(0, logits, 0, batch.numSeeds() * config.numClasses());
        timer.mark("loss");
        for (int j = last; j >= 0; j--) {
            int hop = numLayers - j;
            int in = config.layerIn(j);
            int out = config.layerOut(j);
            int nDst = batch.numDst(hop);
            INDArray x = inputs[j].shape(nDst, in + 1);
            INDArray dz = outputs[j].shape(nDst, out);
            Nd4j.gemm(x, dz, weightGrads[j].shape(in + 1, out), true, false, 1.0, 0.0);
            weightGrads[j].floats().get(0, grad, offsets[j], offsets[j + 1] - offsets[j]);
            timer.mark("gemm_weight_grad", j);
            if (j > 0) {
                // Layer j-1's output gradient; the input layer needs none (features are constants).
                Nd4j.gemm(
                        dz,
                        weights[j].shape(in + 1, out),
                        inputGrad.shape(nDst, in + 1),
                        false,
                        true,
                        1.0,
                        0.0);
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
                                GcnBlockOps.scatterInputGrad(
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
    public void applyGradients(float[] flatGrad) {
        if (flatGrad.length != params.length) {
            throw new IllegalArgumentException(
                    "gradient has " + flatGrad.length + " entries, model has " + params.length);
        }
        timer.start();
        adam.update(params, flatGrad, config.learningRateAt(adam.step));
        weightsStale = true;
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

    /**
     * {@inheritDoc} Applied layer by layer to every vertex over all its in-neighbours, this gives
     * exactly the model's output on full neighbourhoods.
     */
    @Override
    public float[] inferLayer(int layer, MiniBatch block, float[] input) {
        if (layer < 0 || layer >= numLayers) {
            throw new IllegalArgumentException(
                    "layer must be in [0, " + numLayers + "), got " + layer);
        }
        int in = config.layerIn(layer);
        int out = config.layerOut(layer);
        BatchValidator.validateBlock(block, in, input);
        int nDst = block.numDst(1);
        if (nDst == 0) {
            return new float[0];
        }
        uploadWeights();
        INDArray x = inputs[layer].shape(nDst, in + 1);
        FloatBuffer xBuf = inputs[layer].floats();
        LoopPool pool = loops.pool();
        pool.forEach(
                nDst,
                ROW_GRAIN,
                (from, to, w) ->
                        GcnBlockOps.buildInput(
                                input,
                                in,
                                block,
                                1,
                                null,
                                xBuf,
                                from,
                                to,
                                loops.row(w),
                                loops.scale(w)));
        INDArray z = outputs[layer].shape(nDst, out);
        Nd4j.gemm(x, weights[layer].shape(in + 1, out), z, false, false, 1.0, 0.0);
        float[] result = new float[nDst * out];
        FloatBuffer zBuf = outputs[layer].floats();
        if (layer < numLayers - 1) {
            pool.forEach(
                    nDst * out,
                    ELEMENT_GRAIN,
                    (from, to, w) -> BlockOps.reluFrom(zBuf, result, from, to));
        } else {
            zBuf.get(0, result, 0, nDst * out);
        }
        return result;
    }

    /** Tensors in a fixed order: per layer {@code lin.weight [in, out], bias [out]}. */
    @Override
    public List<ParamInfo> parameters() {
        List<ParamInfo> list = new ArrayList<>(2 * numLayers);
        for (int t = 0; t < 2 * numLayers; t++) {
            int j = t / 2;
            int in = config.layerIn(j);
            int out = config.layerOut(j);
            boolean weight = t % 2 == 0;
            int offset = tensorOffset(t);
            int size = weight ? in * out : out;
            list.add(
                    new ParamInfo(
                            "layers." + j + (weight ? ".lin.weight" : ".bias"),
                            weight ? new int[] {in, out} : new int[] {out},
                            Arrays.copyOfRange(params, offset, offset + size)));
        }
        return list;
    }

    @Override
    public float[] parameterVector() {
        return params.clone();
    }

    @Override
    public void setParameterVector(float[] values) {
        if (values.length != params.length) {
            throw new IllegalArgumentException(
                    "vector has " + values.length + " entries, model has " + params.length);
        }
        System.arraycopy(values, 0, params, 0, params.length);
        weightsStale = true;
    }

    /** The same hash as {@link SageModel#checksum()}, over this model's parameter vector. */
    @Override
    public long checksum() {
        long h = 0x243F6A8885A308D3L;
        for (float p : params) {
            h = Dropout.mix(h ^ Float.floatToRawIntBits(p)) + 0x9E3779B97F4A7C15L;
        }
        return h;
    }

    @Override
    public ModelState snapshot() {
        List<ParamInfo> infos = parameters();
        ModelState s = new ModelState();
        s.step = adam.step;
        s.params = new float[infos.size()][];
        s.adamM = new float[infos.size()][];
        s.adamV = new float[infos.size()][];
        for (int t = 0; t < infos.size(); t++) {
            int offset = tensorOffset(t);
            int end = offset + infos.get(t).values().length;
            s.params[t] = infos.get(t).values();
            s.adamM[t] = Arrays.copyOfRange(adam.m, offset, end);
            s.adamV[t] = Arrays.copyOfRange(adam.v, offset, end);
        }
        return s;
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

    @Override
    public void close() {
        for (NativeMatrix[] group : new NativeMatrix[][] {weights, inputs, outputs, weightGrads}) {
            for (NativeMatrix m : group) {
                m.release();
            }
        }
        inputGrad.release();
        weightsStale = true;
        loops.close();
    }

    /**
     * Runs the model's Java loops on {@code threads} threads; {@code 0} (the default) follows
     * {@link Nd4jThreads#configured()}. Results are bit-identical for every thread count.
     */
    void setLoopThreads(int threads) {
        loops.setThreads(threads);
    }

    private void uploadWeights() {
        if (weightsStale) {
            for (int j = 0; j < numLayers; j++) {
                weights[j].shape(config.layerIn(j) + 1, config.layerOut(j));
                weights[j].floats().put(0, params, offsets[j], offsets[j + 1] - offsets[j]);
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
            INDArray x = inputs[j].shape(nDst, in + 1);
            FloatBuffer xBuf = inputs[j].floats();
            Dropout drop = dropout(j, training);
            LoopPool pool = loops.pool();
            pool.forEach(
                    nDst,
                    ROW_GRAIN,
                    (from, to, w) ->
                            GcnBlockOps.buildInput(
                                    src,
                                    in,
                                    batch,
                                    hop,
                                    drop,
                                    xBuf,
                                    from,
                                    to,
                                    loops.row(w),
                                    loops.scale(w)));
            timer.mark("build_input", j);
            INDArray z = outputs[j].shape(nDst, out);
            Nd4j.gemm(x, weights[j].shape(in + 1, out), z, false, false, 1.0, 0.0);
            timer.mark("gemm_forward", j);
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

    private Dropout dropout(int layer, boolean training) {
        return training ? Dropout.of(config.seed(), adam.step, layer, config.dropout()) : null;
    }

    /** Start of tensor {@code t} (in {@link #parameters()} order) in the flat vector. */
    private int tensorOffset(int t) {
        int j = t / 2;
        return offsets[j] + (t % 2) * config.layerIn(j) * config.layerOut(j);
    }

    private static void copyTensor(float[] from, float[] to, int offset, int size, String name) {
        if (from == null || from.length != size) {
            throw new IllegalArgumentException(
                    "state tensor "
                            + name
                            + " must have "
                            + size
                            + " entries, got "
                            + (from == null ? "null" : from.length));
        }
        System.arraycopy(from, 0, to, offset, size);
    }

    private static float[] grow(float[] buffer, int size) {
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

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
 * GraphSAGE with mean aggregation, equivalent to stacked PyG {@code SAGEConv(aggr="mean",
 * root_weight=True)} layers: {@code z = h_dst W_root + mean(h_nbrs) W_neigh + b}, ReLU between
 * layers, dropout on every layer's input during training, softmax cross-entropy over the seeds and
 * Adam. Model layer {@code j} consumes hop {@code L - j} of a {@link MiniBatch}.
 *
 * <p>Parameters live in one heap vector (master copy for Adam, snapshots and all-reduce) whose
 * per-layer slice {@code [W_root; W_neigh; b]} is mirrored into native memory for gemm. All
 * arithmetic is deterministic, so replicas fed the same batches stay bit-identical. The sparse Java
 * loops run on {@link Nd4jThreads#configured()} threads (a {@link LoopPool}) with results that do
 * not depend on the thread count. Not thread-safe; native and heap buffers are reused across steps
 * and only grow, and {@link #close()} frees the native ones and the loop threads promptly (e.g.
 * from an operator's close).
 */
public final class SageModel implements GnnModel {

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

    /** A layer's input rows with the step's dropout mask applied (training only). */
    private float[] dropped = new float[0];

    private final int maxIn;
    private float[][] rows = new float[0][];
    private float[][] scales = new float[0][];
    private LoopPool pool;
    private int loopThreads;
    private boolean weightsStale = true;
    private final PhaseTimer timer = new PhaseTimer();

    /** A freshly initialized model: Glorot-uniform weights and zero biases drawn from the seed. */
    public SageModel(ModelConfig config) {
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
        this.maxIn = maxIn;
        initialize();
    }

    /** Rebuilds a model from a {@link #snapshot()}; training then continues bit-identically. */
    public static SageModel restore(ModelConfig config, ModelState state) {
        SageModel model = new SageModel(config);
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
            model.copyTensor(state.params[t], model.params, offset, size, infos.get(t).name());
            model.copyTensor(state.adamM[t], model.adam.m, offset, size, infos.get(t).name());
            model.copyTensor(state.adamV[t], model.adam.v, offset, size, infos.get(t).name());
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

    /** Number of optimizer updates applied so far. */
    @Override
    public long step() {
        return adam.step;
    }

    /** Forward, backward and one Adam update. */
    @Override
    public TrainResult trainStep(MiniBatch batch) {
        Gradients g = computeGradients(batch);
        applyGradients(g.grad());
        return new TrainResult(g.loss(), g.correct(), g.numSeeds());
    }

    /**
     * Gradient of the mean training loss (with this step's dropout masks) without changing the
     * model; combine with other replicas' gradients and pass to {@link #applyGradients}.
     */
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
            int nDst = batch.numDst(hop);
            INDArray x = inputs[j].shape(nDst, 2 * in + 1);
            INDArray dz = outputs[j].shape(nDst, config.layerOut(j));
            INDArray dw = weightGrads[j].shape(2 * in + 1, config.layerOut(j));
            Nd4j.gemm(x, dz, dw, true, false, 1.0, 0.0);
            weightGrads[j].floats().get(0, grad, offsets[j], offsets[j + 1] - offsets[j]);
            timer.mark("gemm_weight_grad", j);
            if (j > 0) {
                // Layer j-1's output gradient; the input layer needs none (features are constants).
                INDArray dx = inputGrad.shape(nDst, 2 * in + 1);
                Nd4j.gemm(
                        dz,
                        weights[j].shape(2 * in + 1, config.layerOut(j)),
                        dx,
                        false,
                        true,
                        1.0,
                        0.0);
                timer.mark("gemm_input_grad", j);
                int nSrc = batch.numSrc(hop);
                sourceGrad = grow(sourceGrad, nSrc * in);
                float[] dSrc = sourceGrad;
                FloatBuffer dxBuf = inputGrad.floats();
                LoopPool loops = pool();
                loops.forEach(
                        nSrc * in, ELEMENT_GRAIN, (from, to, w) -> Arrays.fill(dSrc, from, to, 0f));
                loops.forEach(
                        in,
                        columnGrain(in, loops.threads()),
                        (c0, c1, w) ->
                                BlockOps.scatterInputGrad(
                                        dxBuf, in, batch, hop, dSrc, c0, c1, rows[w]));
                timer.mark("scatter", j);
                outputs[j - 1].shape(nSrc, in);
                FloatBuffer dzBuf = outputs[j - 1].floats();
                float[] act = activations[j - 1];
                Dropout drop = dropout(j, true);
                loops.forEach(
                        nSrc * in,
                        ELEMENT_GRAIN,
                        (from, to, w) ->
                                BlockOps.reluDropoutBackward(
                                        dSrc, act, from, to, drop, scales[w], dzBuf));
                timer.mark("activation_backward", j - 1);
            }
        }
        return new Gradients(
                grad,
                stats.lossSum() / Math.max(1, stats.labelled()),
                stats.correct(),
                stats.labelled());
    }

    /** One Adam step with {@code flatGrad} (in {@link #parameterVector()} layout). */
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

    /**
     * Turns per-phase accounting of {@link #computeGradients}, {@link #applyGradients} and {@link
     * #evaluate} on or off (off by default; on costs a few clock reads per step) and clears it.
     */
    @Override
    public void setPhaseTiming(boolean on) {
        timer.enable(on);
        timer.reset();
    }

    /**
     * Wall-clock nanoseconds spent per phase since {@link #setPhaseTiming} turned timing on, in
     * execution order; names end in the model layer where a phase runs per layer (e.g. {@code
     * build_input.0}).
     */
    @Override
    public Map<String, Long> phaseNanos() {
        return timer.wallNanos();
    }

    /**
     * As {@link #phaseNanos()}, but CPU time of the calling thread: with one thread (see {@link
     * Nd4jThreads}) all work runs there, so this is the step's cost free of other processes.
     */
    @Override
    public Map<String, Long> phaseCpuNanos() {
        return timer.cpuNanos();
    }

    /** Loss and predictions without dropout or update. */
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

    /** Tensors in a fixed order: per layer {@code lin_root.weight, lin_neigh.weight, bias}. */
    @Override
    public List<ParamInfo> parameters() {
        List<ParamInfo> list = new ArrayList<>(3 * numLayers);
        for (int t = 0; t < 3 * numLayers; t++) {
            int j = t / 3;
            int in = config.layerIn(j);
            int out = config.layerOut(j);
            String name =
                    "layers."
                            + j
                            + (t % 3 == 0
                                    ? ".lin_root.weight"
                                    : t % 3 == 1 ? ".lin_neigh.weight" : ".bias");
            int[] shape = t % 3 == 2 ? new int[] {out} : new int[] {in, out};
            int size = t % 3 == 2 ? out : in * out;
            int offset = tensorOffset(t);
            list.add(new ParamInfo(name, shape, Arrays.copyOfRange(params, offset, offset + size)));
        }
        return list;
    }

    /** Copy of all parameters, concatenated in {@link #parameters()} order. */
    @Override
    public float[] parameterVector() {
        return params.clone();
    }

    /** Overwrites all parameters (e.g. to adopt a leader's initialization); Adam state is kept. */
    @Override
    public void setParameterVector(float[] values) {
        if (values.length != params.length) {
            throw new IllegalArgumentException(
                    "vector has " + values.length + " entries, model has " + params.length);
        }
        System.arraycopy(values, 0, params, 0, params.length);
        weightsStale = true;
    }

    /** 64-bit hash of the bit patterns of all parameters: equal models have equal checksums. */
    @Override
    public long checksum() {
        long h = 0x243F6A8885A308D3L;
        for (float p : params) {
            h = Dropout.mix(h ^ Float.floatToRawIntBits(p)) + 0x9E3779B97F4A7C15L;
        }
        return h;
    }

    /** Releases native buffers now; the model stays usable and reallocates them on demand. */
    @Override
    public void close() {
        for (NativeMatrix[] group : new NativeMatrix[][] {weights, inputs, outputs, weightGrads}) {
            for (NativeMatrix m : group) {
                m.release();
            }
        }
        inputGrad.release();
        weightsStale = true;
        if (pool != null) {
            pool.close();
            pool = null;
        }
    }

    /**
     * Runs the model's Java loops (aggregation, scatter, activations) on {@code threads} threads;
     * {@code 0} (the default) follows {@link Nd4jThreads#configured()}. Results are bit-identical
     * for every thread count.
     */
    void setLoopThreads(int threads) {
        if (threads < 0) {
            throw new IllegalArgumentException("threads must be >= 0, got " + threads);
        }
        loopThreads = threads;
    }

    /**
     * The loop pool for the current thread setting, with scratch buffers for each of its threads.
     */
    private LoopPool pool() {
        int threads = loopThreads > 0 ? loopThreads : Nd4jThreads.configured();
        if (pool == null || pool.threads() != threads) {
            if (pool != null) {
                pool.close();
            }
            pool = new LoopPool(threads);
        }
        if (rows.length < threads) {
            rows = new float[threads][];
            scales = new float[threads][];
            for (int w = 0; w < threads; w++) {
                rows[w] = new float[2 * maxIn + 1];
                scales[w] = new float[BlockOps.SCALE_ROWS * maxIn];
            }
        }
        return pool;
    }

    /**
     * Column blocks for the scatter: one per thread (each block sweeps every row, so more blocks
     * cost memory traffic), in whole cache lines.
     */
    private static int columnGrain(int in, int threads) {
        int grain = (in + threads - 1) / threads;
        return Math.min(in, Math.max(16, (grain + 15) / 16 * 16));
    }

    /** Deep copy of the full training state. */
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

    /**
     * One layer of layer-wise full-neighbour inference (PyG's {@code SAGE.inference}): the output
     * of model layer {@code layer} (0-based) for the destinations of the one-hop {@code block},
     * whose source rows (block node order, {@code layerIn(layer)} floats each) are given in {@code
     * input}. Hidden layers return their ReLU activations, the last layer its logits; no dropout.
     * Row {@code i} of the result ({@code layerOut(layer)} floats) belongs to destination {@code
     * i}. Applied layer by layer to every vertex over all its in-neighbours, this gives exactly the
     * model's output on full neighbourhoods, each vertex's layer embedding computed once.
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
        uploadWeights();
        int nDst = block.numDst(1);
        INDArray x = inputs[layer].shape(nDst, 2 * in + 1);
        FloatBuffer xBuf = inputs[layer].floats();
        LoopPool loops = pool();
        loops.forEach(
                nDst,
                ROW_GRAIN,
                (from, to, w) ->
                        BlockOps.buildInput(
                                input, in, block, 1, null, xBuf, from, to, rows[w], scales[w]));
        INDArray z = outputs[layer].shape(nDst, out);
        Nd4j.gemm(x, weights[layer].shape(2 * in + 1, out), z, false, false, 1.0, 0.0);
        float[] result = new float[nDst * out];
        FloatBuffer zBuf = outputs[layer].floats();
        if (layer < numLayers - 1) {
            loops.forEach(
                    nDst * out,
                    ELEMENT_GRAIN,
                    (from, to, w) -> BlockOps.reluFrom(zBuf, result, from, to));
        } else {
            zBuf.get(0, result, 0, nDst * out);
        }
        return result;
    }

    private void uploadWeights() {
        if (weightsStale) {
            for (int j = 0; j < numLayers; j++) {
                weights[j].shape(2 * config.layerIn(j) + 1, config.layerOut(j));
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
            float[] layerInput = j == 0 ? batch.features : activations[j - 1];
            INDArray x = inputs[j].shape(nDst, 2 * in + 1);
            FloatBuffer xBuf = inputs[j].floats();
            Dropout drop = dropout(j, training);
            LoopPool loops = pool();
            if (drop != null) {
                // Each source row is a neighbour of about fanout/2 destinations or more: masking it
                // once costs fewer mask draws than masking it at every use (the same products).
                int nSrc = batch.numSrc(hop);
                dropped = grow(dropped, nSrc * in);
                float[] masked = dropped;
                float[] from0 = layerInput;
                loops.forEach(
                        nSrc,
                        ROW_GRAIN,
                        (from, to, w) ->
                                BlockOps.applyDropout(
                                        from0, in, drop, masked, from, to, scales[w]));
                timer.mark("dropout", j);
            }
            float[] src = drop != null ? dropped : layerInput;
            loops.forEach(
                    nDst,
                    ROW_GRAIN,
                    (from, to, w) ->
                            BlockOps.buildInput(
                                    src, in, batch, hop, null, xBuf, from, to, rows[w], scales[w]));
            timer.mark("build_input", j);
            INDArray z = outputs[j].shape(nDst, out);
            Nd4j.gemm(x, weights[j].shape(2 * in + 1, out), z, false, false, 1.0, 0.0);
            timer.mark("gemm_forward", j);
            if (j < numLayers - 1) {
                activations[j] = grow(activations[j], nDst * out);
                float[] act = activations[j];
                FloatBuffer zBuf = outputs[j].floats();
                loops.forEach(
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

    private void initialize() {
        SplittableRandom random = new SplittableRandom(config.seed());
        for (int j = 0; j < numLayers; j++) {
            int in = config.layerIn(j);
            int out = config.layerOut(j);
            double limit = Math.sqrt(6.0 / (in + out));
            for (int k = offsets[j]; k < offsets[j] + 2 * in * out; k++) {
                params[k] = (float) ((2.0 * random.nextDouble() - 1.0) * limit);
            }
        }
    }

    /** Start of tensor {@code t} (in {@link #parameters()} order) in the flat vector. */
    private int tensorOffset(int t) {
        int j = t / 3;
        int block = config.layerIn(j) * config.layerOut(j);
        return offsets[j] + (t % 3) * block;
    }

    private void copyTensor(float[] from, float[] to, int offset, int size, String name) {
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

package io.gnnstream.operators.model;

import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.model.gpu.BatchLayout;
import io.gnnstream.operators.model.gpu.DeviceBuffer;
import io.gnnstream.operators.model.gpu.GpuKernels;
import java.util.List;
import java.util.Map;

/**
 * A {@link GnnModel} whose steps run on a GPU through {@link GpuKernels}: the same layers, loss,
 * dropout masks and Adam as the CPU models ({@link SageModel}, {@link GcnModel}), with parameters
 * and Adam moments resident on the device. A step uploads the batch (one int array, one float
 * array), runs the forward and backward kernels and cuBLAS products, and downloads the gradient
 * once ({@link #computeGradients}); {@link #applyGradients} uploads the all-reduced gradient and
 * runs Adam on the device. A host mirror of the parameters and moments ({@link ModelParameters})
 * initializes the device from the seed, as the CPU models do, and is refreshed only for snapshots,
 * exports and checksums. No ND4J class is loaded. Not thread-safe; owns and closes its kernels.
 */
public final class GpuModel implements GnnModel {

    private final ModelConfig config;
    private final GpuKernels k;
    private final int mode;
    private final int blocks;
    private final int numLayers;
    private final ModelParameters params;
    private final PhaseTimer timer = new PhaseTimer();
    private final BatchLayout layout = new BatchLayout();
    private final long dParams;
    private final long dM;
    private final long dV;
    private final long dGrad;
    private final DeviceBuffer ints;
    private final DeviceBuffer features;
    private final DeviceBuffer dropped;
    private final DeviceBuffer dx;
    private final DeviceBuffer dSrc;
    private final DeviceBuffer loss;
    private final DeviceBuffer predictions;
    private final DeviceBuffer[] x;
    private final DeviceBuffer[] z;
    private final DeviceBuffer[] act;
    private final GpuInference inference;
    private long version;
    private boolean hostStale;
    private boolean closed;
    private boolean timing;
    private double[] lossHost = new double[0];
    private int[] predHost = new int[0];

    /** A freshly initialized model: the CPU model's initial parameters, on the device. */
    public GpuModel(ModelConfig config, GpuKernels kernels) {
        if (config.gcnNorm() == GcnNorm.SYM) {
            throw new IllegalArgumentException(
                    "--gcn-norm sym runs on the CPU models only; the GPU kernels normalise GCN by"
                            + " the mean (--gcn-norm mean)");
        }
        this.config = config;
        this.k = kernels;
        this.numLayers = config.numLayers();
        Architecture architecture = config.architecture();
        this.mode = architecture.gpuMode();
        this.blocks = architecture.weightBlocks();
        this.params =
                new ModelParameters(
                        architecture.tensors(config), config.seed(), config.weightDecay());
        this.ints = new DeviceBuffer(kernels);
        this.features = new DeviceBuffer(kernels);
        this.dropped = new DeviceBuffer(kernels);
        this.dx = new DeviceBuffer(kernels);
        this.dSrc = new DeviceBuffer(kernels);
        this.loss = new DeviceBuffer(kernels);
        this.predictions = new DeviceBuffer(kernels);
        this.x = buffers(numLayers);
        this.z = buffers(numLayers);
        this.act = buffers(numLayers);
        this.inference = new GpuInference(config, kernels, mode, blocks);
        long size = params.size();
        this.dParams = k.alloc(size);
        this.dM = k.alloc(size);
        this.dV = k.alloc(size);
        this.dGrad = k.alloc(size);
        uploadState();
    }

    /** Rebuilds a model from a {@link #snapshot()} of any model of this config (CPU or GPU). */
    public static GpuModel restore(ModelConfig config, ModelState state, GpuKernels kernels) {
        GpuModel model = new GpuModel(config, kernels);
        model.params.restore(state);
        model.uploadState();
        return model;
    }

    @Override
    public String deviceKind() {
        return k.deviceKind();
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
        Gradients g = computeGradients(batch);
        applyGradients(g.grad());
        return new TrainResult(g.loss(), g.correct(), g.numSeeds());
    }

    @Override
    public Gradients computeGradients(MiniBatch batch) {
        timer.start();
        BatchValidator.validate(batch, config, true);
        mark("validate");
        upload(batch, true);
        forward(batch, true);
        int last = numLayers - 1;
        int labelled = labelled(batch);
        int correct = loss(batch, z[last].ptr(), labelled, true);
        double lossSum = lossSum(batch);
        mark("loss");
        for (int j = last; j >= 0; j--) {
            int hop = numLayers - j;
            int in = config.layerIn(j);
            int width = inputWidth(j);
            int outW = config.layerOut(j);
            int nDst = batch.numDst(hop);
            k.gemm(
                    true,
                    false,
                    width,
                    outW,
                    nDst,
                    x[j].ptr(),
                    width,
                    z[j].ptr(),
                    outW,
                    at(dGrad, params.layerOffset(j)),
                    outW);
            mark("gemm_weight_grad", j);
            if (j > 0) {
                dx.ensure((long) nDst * width);
                k.gemm(
                        false,
                        true,
                        nDst,
                        width,
                        outW,
                        z[j].ptr(),
                        outW,
                        at(dParams, params.layerOffset(j)),
                        outW,
                        dx.ptr(),
                        width);
                mark("gemm_input_grad", j);
                int nSrc = batch.numSrc(hop);
                dSrc.ensure((long) nSrc * in);
                k.scatter(
                        mode,
                        dx.ptr(),
                        in,
                        intAt(layout.indptr(hop)),
                        intAt(layout.revPtr(hop)),
                        intAt(layout.revDst(hop)),
                        nDst,
                        nSrc,
                        dSrc.ptr());
                mark("scatter", j);
                Dropout drop = Dropout.of(config.seed(), params.step(), j, config.dropout());
                k.reluDropoutBackward(
                        dSrc.ptr(),
                        act[j - 1].ptr(),
                        (long) nSrc * in,
                        drop == null ? 0L : drop.key(),
                        drop == null ? 0 : drop.threshold(),
                        drop == null ? 1f : drop.scale(),
                        z[j - 1].ptr());
                mark("activation_backward", j - 1);
            }
        }
        float[] grad = new float[params.size()];
        k.downloadFloats(dGrad, grad, grad.length);
        mark("download_gradient");
        return new Gradients(grad, lossSum / Math.max(1, labelled), correct, labelled);
    }

    @Override
    public void applyGradients(float[] flatGrad) {
        if (flatGrad.length != params.size()) {
            throw new IllegalArgumentException(
                    "gradient has " + flatGrad.length + " entries, model has " + params.size());
        }
        timer.start();
        // The step count lives on the host; parameters and moments stay on the device.
        Adam adam = params.adam();
        long next = adam.step + 1;
        float stepSize = Adam.stepSize(config.learningRateAt(adam.step), next);
        k.uploadFloats(dGrad, flatGrad, 0, flatGrad.length);
        k.adam(
                dParams,
                dGrad,
                dM,
                dV,
                params.size(),
                stepSize,
                Adam.bc2Sqrt(next),
                adam.weightDecay());
        adam.step = next;
        version++;
        hostStale = true;
        mark("adam");
    }

    @Override
    public EvalResult evaluate(MiniBatch batch) {
        timer.start();
        BatchValidator.validate(batch, config, false);
        upload(batch, false);
        forward(batch, false);
        int labelled = labelled(batch);
        int correct = loss(batch, z[numLayers - 1].ptr(), labelled, false);
        int[] predicted = new int[batch.numSeeds()];
        System.arraycopy(predHost, 0, predicted, 0, predicted.length);
        return new EvalResult(lossSum(batch), correct, labelled, predicted);
    }

    @Override
    public float[] inferLayer(int layer, MiniBatch block, float[] input) {
        checkLayer(layer);
        return inference.infer(
                layer, block, input, config.layerIn(layer), at(dParams, params.layerOffset(layer)));
    }

    @Override
    public float[] project(int layer, float[] h, int rows) {
        checkLayer(layer);
        if (h.length < (long) rows * config.layerIn(layer)) {
            throw new IllegalArgumentException(
                    "projection input must hold rows x " + config.layerIn(layer) + " floats");
        }
        return inference.project(layer, h, rows, at(dParams, params.layerOffset(layer)));
    }

    @Override
    public float[] inferProjected(int layer, MiniBatch block, float[] rows) {
        checkLayer(layer);
        int in = config.layerIn(layer);
        int width = blocks * config.layerOut(layer);
        syncHost();
        long selector =
                inference.selector(
                        layer,
                        params.values,
                        params.layerOffset(layer) + blocks * in * config.layerOut(layer),
                        version);
        return inference.infer(layer, block, rows, width, selector);
    }

    private void checkLayer(int layer) {
        if (layer < 0 || layer >= numLayers) {
            throw new IllegalArgumentException(
                    "layer must be in [0, " + numLayers + "), got " + layer);
        }
    }

    private void upload(MiniBatch batch, boolean training) {
        layout.build(batch, training ? numLayers - 1 : 0);
        ints.ensure(layout.size());
        k.uploadInts(ints.ptr(), layout.ints(), 0, layout.size());
        int rows = batch.numSrc(numLayers) * config.inFeatures();
        features.ensure(rows);
        k.uploadFloats(features.ptr(), batch.features, 0, rows);
        mark("upload_batch");
    }

    private void forward(MiniBatch batch, boolean training) {
        for (int j = 0; j < numLayers; j++) {
            int hop = numLayers - j;
            int in = config.layerIn(j);
            int outW = config.layerOut(j);
            int width = inputWidth(j);
            int nDst = batch.numDst(hop);
            long src = j == 0 ? features.ptr() : act[j - 1].ptr();
            Dropout drop =
                    training ? Dropout.of(config.seed(), params.step(), j, config.dropout()) : null;
            if (drop != null) {
                long count = (long) batch.numSrc(hop) * in;
                dropped.ensure(count);
                k.dropout(src, dropped.ptr(), count, drop.key(), drop.threshold(), drop.scale());
                src = dropped.ptr();
                mark("dropout", j);
            }
            x[j].ensure((long) nDst * width);
            k.aggregate(
                    mode,
                    src,
                    in,
                    intAt(layout.indptr(hop)),
                    intAt(layout.indices(hop)),
                    layout.summed() >= 0 && hop == 1 ? intAt(layout.summed()) : 0L,
                    nDst,
                    x[j].ptr());
            mark("build_input", j);
            z[j].ensure((long) nDst * outW);
            k.gemm(
                    false,
                    false,
                    nDst,
                    outW,
                    width,
                    x[j].ptr(),
                    width,
                    at(dParams, params.layerOffset(j)),
                    outW,
                    z[j].ptr(),
                    outW);
            mark("gemm_forward", j);
            if (j < numLayers - 1) {
                act[j].ensure((long) nDst * outW);
                k.relu(z[j].ptr(), act[j].ptr(), (long) nDst * outW);
                mark("activation", j);
            }
        }
    }

    /** Runs the loss kernel; leaves per-seed losses and predictions on the host; correct count. */
    private int loss(MiniBatch batch, long logits, int labelled, boolean gradient) {
        int seeds = batch.numSeeds();
        loss.ensure(2L * seeds);
        predictions.ensure(seeds);
        k.softmaxLoss(
                logits,
                intAt(layout.labels()),
                seeds,
                config.numClasses(),
                labelled,
                gradient,
                loss.ptr(),
                predictions.ptr());
        if (lossHost.length < seeds) {
            lossHost = new double[seeds];
            predHost = new int[seeds];
        }
        k.downloadDoubles(loss.ptr(), lossHost, seeds);
        k.downloadInts(predictions.ptr(), predHost, seeds);
        int correct = 0;
        for (int i = 0; i < seeds; i++) {
            correct += batch.labels[i] >= 0 && predHost[i] == batch.labels[i] ? 1 : 0;
        }
        return correct;
    }

    /** The labelled seeds' losses summed in seed order, as the CPU loss sums them. */
    private double lossSum(MiniBatch batch) {
        double sum = 0;
        for (int i = 0; i < batch.numSeeds(); i++) {
            if (batch.labels[i] >= 0) {
                sum += lossHost[i];
            }
        }
        return sum;
    }

    private static int labelled(MiniBatch batch) {
        int labelled = 0;
        for (int i = 0; i < batch.numSeeds(); i++) {
            labelled += batch.labels[i] < 0 ? 0 : 1;
        }
        return labelled;
    }

    private int inputWidth(int j) {
        return blocks * config.layerIn(j) + 1;
    }

    private long intAt(int offset) {
        return at(ints.ptr(), offset);
    }

    private static long at(long ptr, long elements) {
        return ptr + 4L * elements;
    }

    /** Copies the host mirror (parameters, moments) to the device. */
    private void uploadState() {
        Adam adam = params.adam();
        k.uploadFloats(dParams, params.values, 0, params.size());
        k.uploadFloats(dM, adam.m, 0, params.size());
        k.uploadFloats(dV, adam.v, 0, params.size());
        version++;
        hostStale = false;
    }

    /** Brings the host mirror up to date with the device. */
    private void syncHost() {
        if (hostStale) {
            Adam adam = params.adam();
            k.downloadFloats(dParams, params.values, params.size());
            k.downloadFloats(dM, adam.m, params.size());
            k.downloadFloats(dV, adam.v, params.size());
            hostStale = false;
        }
    }

    @Override
    public List<ParamInfo> parameters() {
        syncHost();
        return params.infos();
    }

    @Override
    public float[] parameterVector() {
        syncHost();
        return params.values.clone();
    }

    @Override
    public void setParameterVector(float[] values) {
        syncHost();
        params.set(values);
        k.uploadFloats(dParams, params.values, 0, params.size());
        version++;
    }

    @Override
    public long checksum() {
        syncHost();
        return params.checksum();
    }

    @Override
    public ModelState snapshot() {
        syncHost();
        return params.snapshot();
    }

    /**
     * {@inheritDoc} While on, every phase waits for the device before it is marked, so that each
     * phase's time is its own kernels' (and the steps are slower by the waits).
     */
    @Override
    public void setPhaseTiming(boolean on) {
        timing = on;
        timer.enable(on);
        timer.reset();
    }

    private void mark(String phase) {
        if (timing) {
            k.synchronize();
            timer.mark(phase);
        }
    }

    private void mark(String phase, int layer) {
        if (timing) {
            k.synchronize();
            timer.mark(phase, layer);
        }
    }

    @Override
    public Map<String, Long> phaseNanos() {
        return timer.wallNanos();
    }

    @Override
    public Map<String, Long> phaseCpuNanos() {
        return timer.cpuNanos();
    }

    /**
     * Frees every device buffer and the kernels' context (once); unlike the CPU models, the model
     * is unusable afterwards.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (DeviceBuffer[] group : new DeviceBuffer[][] {x, z, act}) {
            for (DeviceBuffer b : group) {
                b.release();
            }
        }
        for (DeviceBuffer b :
                new DeviceBuffer[] {ints, features, dropped, dx, dSrc, loss, predictions}) {
            b.release();
        }
        inference.release();
        for (long p : new long[] {dParams, dM, dV, dGrad}) {
            k.free(p);
        }
        k.close();
    }

    private DeviceBuffer[] buffers(int n) {
        DeviceBuffer[] b = new DeviceBuffer[n];
        for (int i = 0; i < n; i++) {
            b[i] = new DeviceBuffer(k);
        }
        return b;
    }
}

package io.gnnstream.operators.model;

import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.model.gpu.GpuKernels;
import java.util.List;
import java.util.Map;

/** Skeleton: replaced by the implementation. */
public final class GpuModel implements GnnModel {

    private final ModelConfig config;
    private final GpuKernels kernels;

    public GpuModel(ModelConfig config, GpuKernels kernels) {
        this.config = config;
        this.kernels = kernels;
    }

    public static GpuModel restore(ModelConfig config, ModelState state, GpuKernels kernels) {
        return new GpuModel(config, kernels);
    }

    @Override
    public String deviceKind() {
        return kernels.deviceKind();
    }

    @Override
    public ModelConfig config() {
        return config;
    }

    @Override
    public long step() {
        throw new UnsupportedOperationException();
    }

    @Override
    public TrainResult trainStep(MiniBatch batch) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Gradients computeGradients(MiniBatch batch) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void applyGradients(float[] flatGrad) {
        throw new UnsupportedOperationException();
    }

    @Override
    public EvalResult evaluate(MiniBatch batch) {
        throw new UnsupportedOperationException();
    }

    @Override
    public float[] inferLayer(int layer, MiniBatch block, float[] input) {
        throw new UnsupportedOperationException();
    }

    @Override
    public float[] project(int layer, float[] h, int rows) {
        throw new UnsupportedOperationException();
    }

    @Override
    public float[] inferProjected(int layer, MiniBatch block, float[] rows) {
        throw new UnsupportedOperationException();
    }

    @Override
    public List<ParamInfo> parameters() {
        throw new UnsupportedOperationException();
    }

    @Override
    public float[] parameterVector() {
        throw new UnsupportedOperationException();
    }

    @Override
    public void setParameterVector(float[] values) {
        throw new UnsupportedOperationException();
    }

    @Override
    public long checksum() {
        throw new UnsupportedOperationException();
    }

    @Override
    public ModelState snapshot() {
        throw new UnsupportedOperationException();
    }

    @Override
    public void setPhaseTiming(boolean on) {}

    @Override
    public Map<String, Long> phaseNanos() {
        return Map.of();
    }

    @Override
    public Map<String, Long> phaseCpuNanos() {
        return Map.of();
    }

    @Override
    public void close() {
        kernels.close();
    }
}

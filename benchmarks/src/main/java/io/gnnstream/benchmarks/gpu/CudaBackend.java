package io.gnnstream.benchmarks.gpu;

import io.gnnstream.operators.model.GnnModel;
import io.gnnstream.operators.model.GpuModel;
import io.gnnstream.operators.model.ModelConfig;
import io.gnnstream.operators.model.gpu.CudaKernels;

/** {@link GpuModel}s on CUDA device {@code device}, each with a context of its own. */
final class CudaBackend implements ModelBackend {

    private final int device;

    CudaBackend(int device) {
        this.device = device;
    }

    @Override
    public String deviceKind() {
        try (CudaKernels kernels = CudaKernels.open(device)) {
            return kernels.deviceKind();
        }
    }

    @Override
    public GnnModel open(ModelConfig config) {
        CudaKernels kernels = CudaKernels.open(device);
        try {
            return new GpuModel(config, kernels);
        } catch (RuntimeException | Error e) {
            kernels.close();
            throw e;
        }
    }
}

package io.gnnstream.benchmarks.gpu;

import io.gnnstream.operators.model.GnnModel;
import io.gnnstream.operators.model.ModelConfig;

/**
 * Where the GPU check's models come from: the CUDA backend ({@link CudaBackend}) or, in tests,
 * ND4J.
 */
interface ModelBackend {

    /**
     * What the models run on, as {@link GnnModel#deviceKind()} says it.
     *
     * @throws io.gnnstream.operators.model.gpu.GpuUnavailableException if there is no such device
     */
    String deviceKind();

    /** A fresh model of {@code config}, holding its own device context; the caller closes it. */
    GnnModel open(ModelConfig config);
}

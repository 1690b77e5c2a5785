package io.gnnstream.operators.model;

import io.gnnstream.operators.messages.MiniBatch;

/**
 * One GPU step, snapshot and restore on the host kernels: what {@link GpuStepImportsTest} runs in a
 * class loader without ND4J or Flink.
 */
public final class GpuStepProbe implements Runnable {

    @Override
    public void run() {
        ModelConfig cfg =
                ModelConfig.builder()
                        .inFeatures(6)
                        .hidden(8)
                        .numClasses(3)
                        .numLayers(2)
                        .dropout(0.5)
                        .seed(3)
                        .build();
        TestGraphs.Graph g = TestGraphs.random(40, 6, 3, 5, 6, 2);
        MiniBatch b =
                TestGraphs.sample(g, TestGraphs.seeds(0, 3, 8, 40), new int[] {3, 2}, true, 1);
        try (GpuModel model = new GpuModel(cfg, new HostKernels())) {
            model.trainStep(b);
            try (GpuModel copy = GpuModel.restore(cfg, model.snapshot(), new HostKernels())) {
                if (copy.checksum() != model.checksum()) {
                    throw new AssertionError("restored model differs");
                }
            }
        }
    }
}

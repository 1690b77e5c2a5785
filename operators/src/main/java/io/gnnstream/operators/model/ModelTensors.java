package io.gnnstream.operators.model;

import java.util.ArrayList;
import java.util.List;

/**
 * The named tensors of each architecture per layer, in the order of its parameter slice: what the
 * CPU models and {@link GpuModel} lay out alike (and what exports are named by).
 */
final class ModelTensors {

    private ModelTensors() {}

    /** The tensors of {@code config}'s architecture. */
    static List<List<ModelParameters.Tensor>> of(ModelConfig config) {
        return switch (config.modelType()) {
            case SAGE -> sage(config);
            case GCN -> gcn(config);
        };
    }

    /** SAGE, per layer: {@code lin_root.weight, lin_neigh.weight, bias}. */
    static List<List<ModelParameters.Tensor>> sage(ModelConfig config) {
        List<List<ModelParameters.Tensor>> layers = new ArrayList<>();
        for (int j = 0; j < config.numLayers(); j++) {
            int in = config.layerIn(j);
            int out = config.layerOut(j);
            String prefix = "layers." + j;
            layers.add(
                    List.of(
                            ModelParameters.Tensor.weight(prefix + ".lin_root.weight", in, out),
                            ModelParameters.Tensor.weight(prefix + ".lin_neigh.weight", in, out),
                            ModelParameters.Tensor.bias(prefix + ".bias", out)));
        }
        return layers;
    }

    /** GCN, per layer: {@code lin.weight, bias}. */
    static List<List<ModelParameters.Tensor>> gcn(ModelConfig config) {
        List<List<ModelParameters.Tensor>> layers = new ArrayList<>();
        for (int j = 0; j < config.numLayers(); j++) {
            int out = config.layerOut(j);
            layers.add(
                    List.of(
                            ModelParameters.Tensor.weight(
                                    "layers." + j + ".lin.weight", config.layerIn(j), out),
                            ModelParameters.Tensor.bias("layers." + j + ".bias", out)));
        }
        return layers;
    }
}

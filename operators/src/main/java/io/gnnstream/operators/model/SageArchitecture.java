package io.gnnstream.operators.model;

import io.gnnstream.operators.model.gpu.GpuKernels;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@link SageModel}'s {@link Architecture}: a root and a neighbour weight per layer ({@code
 * lin_root.weight, lin_neigh.weight, bias}), the neighbour term a mean over the sampled neighbours
 * ({@code root(v) + sum_u neigh(u) / degree}), so owners can sum their part of it.
 */
final class SageArchitecture implements Architecture {

    @Override
    public String id() {
        return "sage";
    }

    @Override
    public String description() {
        return "GraphSAGE-mean (PyG SAGEConv aggr=mean, root_weight=True)";
    }

    @Override
    public int weightBlocks() {
        return 2;
    }

    @Override
    public boolean hasRootWeight() {
        return true;
    }

    /** Per layer: {@code lin_root.weight, lin_neigh.weight, bias}. */
    @Override
    public List<List<ModelParameters.Tensor>> tensors(ModelConfig config) {
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

    /**
     * PyG's {@code GraphSAGE}: {@code SAGEConv(aggr="mean")} layers, whose {@code lin_l} (with the
     * bias) takes the neighbours' mean and {@code lin_r} the root; ReLU between layers.
     */
    @Override
    public PygModel pyg(ModelConfig config) {
        Map<String, Object> kwargs = PygModel.basicKwargs(config, config.hidden(), "relu");
        kwargs.put("aggr", "mean");
        List<PygModel.Conv> convs = new ArrayList<>();
        List<PygModel.Entry> tensors = new ArrayList<>();
        for (int j = 0; j < config.numLayers(); j++) {
            convs.add(
                    new PygModel.Conv(
                            "SAGEConv",
                            PygModel.convKwargs(
                                    config.layerIn(j), config.layerOut(j), "aggr", "mean")));
            String ours = "layers." + j + ".";
            String theirs = "convs." + j + ".";
            tensors.add(
                    new PygModel.Entry(
                            ours + "lin_root.weight",
                            theirs + "lin_r.weight",
                            PygModel.Layout.TRANSPOSED));
            tensors.add(
                    new PygModel.Entry(
                            ours + "lin_neigh.weight",
                            theirs + "lin_l.weight",
                            PygModel.Layout.TRANSPOSED));
            tensors.add(
                    new PygModel.Entry(
                            ours + "bias", theirs + "lin_l.bias", PygModel.Layout.AS_IS));
        }
        return new PygModel("GraphSAGE", kwargs, convs, "relu", null, tensors);
    }

    @Override
    public GnnModel create(ModelConfig config) {
        return new SageModel(config);
    }

    @Override
    public GnnModel restore(ModelConfig config, ModelState state) {
        return SageModel.restore(config, state);
    }

    @Override
    public int gpuMode() {
        return GpuKernels.SAGE;
    }

    /** Multiplies by {@code 1f / degree}, as {@link SageBlockOps#buildInput} scales its mean. */
    @Override
    public void scaleOwnedSum(float[] sum, int length, int degree) {
        float inv = 1f / degree;
        for (int c = 0; c < length; c++) {
            sum[c] *= inv;
        }
    }

    /** The neighbours' mean: the destination's own row has its own weight. */
    @Override
    public float pseudoNeighbour(float own, float sum, int count) {
        return sum / count;
    }

    @Override
    public String toString() {
        return id();
    }
}

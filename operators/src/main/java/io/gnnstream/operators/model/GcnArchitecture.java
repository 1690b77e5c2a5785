package io.gnnstream.operators.model;

import io.gnnstream.operators.model.gpu.GpuKernels;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@link GcnModel}'s {@link Architecture}: one weight per layer ({@code lin.weight, bias}) applied
 * to the mean of the destination's own row and its sampled neighbours' ({@code (h_v + sum_u h_u) /
 * (degree + 1)}); its rows have no root part, so owners do not sum them.
 */
final class GcnArchitecture implements Architecture {

    @Override
    public boolean hasGcnNorm() {
        return true;
    }

    @Override
    public String id() {
        return "gcn";
    }

    @Override
    public String description() {
        return "GCN with self-loop and mean normalisation over the sampled in-neighbours "
                + "(DGL GraphConv norm=right on the block with a self-loop per destination)";
    }

    @Override
    public int weightBlocks() {
        return 1;
    }

    @Override
    public boolean hasRootWeight() {
        return false;
    }

    /** Per layer: {@code lin.weight, bias}. */
    @Override
    public List<List<ModelParameters.Tensor>> tensors(ModelConfig config) {
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

    /**
     * PyG's {@code GCN} of {@code GCNConv(normalize=False)} layers, ReLU between them: the loader
     * adds a self loop per vertex and passes the edge weights of {@link ModelConfig#gcnNorm()}
     * ({@link PygModel#edgeWeights()}), which make each layer this model's.
     */
    @Override
    public PygModel pyg(ModelConfig config) {
        Map<String, Object> kwargs = PygModel.basicKwargs(config, config.hidden(), "relu");
        kwargs.put("normalize", false);
        List<PygModel.Conv> convs = new ArrayList<>();
        List<PygModel.Entry> tensors = new ArrayList<>();
        for (int j = 0; j < config.numLayers(); j++) {
            convs.add(
                    new PygModel.Conv(
                            "GCNConv",
                            PygModel.convKwargs(
                                    config.layerIn(j), config.layerOut(j), "normalize", false)));
            tensors.add(
                    new PygModel.Entry(
                            "layers." + j + ".lin.weight",
                            "convs." + j + ".lin.weight",
                            PygModel.Layout.TRANSPOSED));
            tensors.add(
                    new PygModel.Entry(
                            "layers." + j + ".bias",
                            "convs." + j + ".bias",
                            PygModel.Layout.AS_IS));
        }
        return new PygModel("GCN", kwargs, convs, "relu", config.gcnNorm().id(), tensors);
    }

    @Override
    public GnnModel create(ModelConfig config) {
        return new GcnModel(config);
    }

    @Override
    public GnnModel restore(ModelConfig config, ModelState state) {
        return GcnModel.restore(config, state);
    }

    @Override
    public int gpuMode() {
        return GpuKernels.GCN;
    }

    /** Unsupported: a GCN row is one block that destinations and sources read alike. */
    @Override
    public void scaleOwnedSum(float[] sum, int length, int degree) {
        throw new UnsupportedOperationException("GCN rows have no root part to add owned sums to");
    }

    /**
     * The row {@code r} with {@code (own + r) / 2 = (own + sum) / (count + 1)}: the layer takes the
     * mean of the vertex and its neighbours.
     */
    @Override
    public float pseudoNeighbour(float own, float sum, int count) {
        return 2 * (own + sum) / (count + 1) - own;
    }

    @Override
    public String toString() {
        return id();
    }
}

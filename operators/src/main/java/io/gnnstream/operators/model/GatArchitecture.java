package io.gnnstream.operators.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@link GatModel}'s {@link Architecture}: per layer {@code lin.weight [in, H*C]}, {@code att_src
 * [H, C]}, {@code att_dst [H, C]} and a bias ({@code H*C} on concatenating hidden layers, {@code C}
 * on the averaging last layer), PyG {@code GATConv}'s names. Attention is not linear in the source
 * rows, so rounds store and send the rows themselves ({@link #projectsRows()} false, no root part)
 * and the trainer attends over all of a destination's neighbours; there are no GPU kernels and no
 * incremental predictions for it.
 */
final class GatArchitecture implements Architecture {

    @Override
    public String id() {
        return "gat";
    }

    @Override
    public String description() {
        return "GAT (PyG GATConv with self-loops, concatenated heads, averaged output heads, ELU)";
    }

    /** One: {@code lin.weight}; the layer is not a product of dense input rows (unused). */
    @Override
    public int weightBlocks() {
        return 1;
    }

    @Override
    public boolean hasRootWeight() {
        return false;
    }

    @Override
    public boolean projectsRows() {
        return false;
    }

    @Override
    public boolean hasHeads() {
        return true;
    }

    @Override
    public boolean gpuKernels() {
        return false;
    }

    @Override
    public boolean incrementalPredictions() {
        return false;
    }

    @Override
    public List<List<ModelParameters.Tensor>> tensors(ModelConfig config) {
        List<List<ModelParameters.Tensor>> layers = new ArrayList<>();
        int last = config.numLayers() - 1;
        for (int j = 0; j <= last; j++) {
            int heads = j == last ? config.outHeads() : config.heads();
            int ch = j == last ? config.numClasses() : config.hidden();
            String prefix = "layers." + j;
            layers.add(
                    List.of(
                            ModelParameters.Tensor.weight(
                                    prefix + ".lin.weight", config.layerIn(j), heads * ch),
                            ModelParameters.Tensor.weight(prefix + ".att_src", heads, ch),
                            ModelParameters.Tensor.weight(prefix + ".att_dst", heads, ch),
                            ModelParameters.Tensor.bias(prefix + ".bias", config.layerOut(j))));
        }
        return layers;
    }

    /**
     * {@code GATConv} layers (self loops added, LeakyReLU slope 0.2), concatenated heads on hidden
     * layers, averaged on the last, ELU between them. PyG's {@code GAT} gives its last layer the
     * hidden layers' head count, so it is the class only where {@code outHeads} equals {@code
     * heads} (or there is one layer); otherwise the loader stacks the convs itself.
     */
    @Override
    public PygModel pyg(ModelConfig config) {
        int last = config.numLayers() - 1;
        boolean basic = last == 0 || config.heads() == config.outHeads();
        Map<String, Object> kwargs =
                PygModel.basicKwargs(config, config.hidden() * config.heads(), "elu");
        kwargs.put("heads", last == 0 ? config.outHeads() : config.heads());
        List<PygModel.Conv> convs = new ArrayList<>();
        List<PygModel.Entry> tensors = new ArrayList<>();
        for (int j = 0; j <= last; j++) {
            convs.add(
                    new PygModel.Conv(
                            "GATConv",
                            PygModel.convKwargs(
                                    config.layerIn(j),
                                    j == last ? config.numClasses() : config.hidden(),
                                    "heads",
                                    j == last ? config.outHeads() : config.heads(),
                                    "concat",
                                    j < last)));
            String ours = "layers." + j + ".";
            String theirs = "convs." + j + ".";
            tensors.add(
                    new PygModel.Entry(
                            ours + "lin.weight",
                            theirs + "lin.weight",
                            PygModel.Layout.TRANSPOSED));
            tensors.add(
                    new PygModel.Entry(
                            ours + "att_src", theirs + "att_src", PygModel.Layout.LEADING_ONE));
            tensors.add(
                    new PygModel.Entry(
                            ours + "att_dst", theirs + "att_dst", PygModel.Layout.LEADING_ONE));
            tensors.add(new PygModel.Entry(ours + "bias", theirs + "bias", PygModel.Layout.AS_IS));
        }
        return new PygModel(basic ? "GAT" : null, kwargs, convs, "elu", null, tensors);
    }

    @Override
    public GnnModel create(ModelConfig config) {
        return new GatModel(config);
    }

    @Override
    public GnnModel restore(ModelConfig config, ModelState state) {
        return GatModel.restore(config, state);
    }

    /** Unsupported: GAT has no GPU kernels ({@code --device cuda} is refused at start). */
    @Override
    public int gpuMode() {
        throw new UnsupportedOperationException("gat has no GPU kernels");
    }

    /** Unsupported: attention cannot be pre-aggregated at the owner. */
    @Override
    public void scaleOwnedSum(float[] sum, int length, int degree) {
        throw new UnsupportedOperationException("gat rows cannot be summed at their owner");
    }

    /** Unsupported: incremental predictions are refused for gat at start. */
    @Override
    public float pseudoNeighbour(float own, float sum, int count) {
        throw new UnsupportedOperationException("gat has no incremental predictions");
    }

    @Override
    public String toString() {
        return id();
    }
}

package io.gnnstream.operators.model;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A model in the form {@code torch_geometric.nn} loads it ({@link Architecture#pyg}, written by
 * {@link PygExport}): the PyG model class and its constructor arguments, each layer's conv class
 * and arguments, the activation between layers, the edge weights a {@code GCNConv(normalize=False)}
 * needs, and which {@code state_dict} entry each of the model's tensors becomes in which layout.
 *
 * @param className a model of {@code torch_geometric.nn.models} (the {@code BasicGNN} family) that
 *     {@code kwargs} build exactly, or null when none does: the loader then stacks {@code convs} in
 *     a module whose {@code state_dict} has the same keys ({@code convs.<j>.…})
 * @param kwargs the constructor arguments of {@code className} (also given when it is null)
 * @param convs each layer's conv of {@code torch_geometric.nn}, in layer order
 * @param act the activation between layers, a name PyG's {@code activation_resolver} knows
 * @param edgeWeights null, or the edge weights the loader passes to every layer ({@code "mean"}:
 *     {@code 1 / (s_i + 1)} on each of destination {@code i}'s {@code s_i} in-edges and on a self
 *     loop it adds; {@code "sym"}: {@code 1 / sqrt(d_i d_u)} with {@code d = s + 1}, {@code 1 /
 *     d_i} on the self loop)
 * @param tensors the state_dict entries, in the order of {@link GnnModel#parameters()}
 */
public record PygModel(
        String className,
        Map<String, Object> kwargs,
        List<Conv> convs,
        String act,
        String edgeWeights,
        List<Entry> tensors) {

    /** A conv of {@code torch_geometric.nn} ({@code SAGEConv}, …) and its constructor arguments. */
    public record Conv(String className, Map<String, Object> kwargs) {}

    /** How a tensor of ours (weights {@code [in, out]}) is laid out in PyG's state_dict. */
    public enum Layout {
        /** Unchanged (biases). */
        AS_IS,
        /** {@code [in, out]} becomes {@code [out, in]}, a {@code torch.nn.Linear}'s weight. */
        TRANSPOSED,
        /** A leading axis of 1 added ({@code GATConv}'s {@code att_src [1, H, C]}). */
        LEADING_ONE
    }

    /** Our tensor {@code name} is the state_dict entry {@code pygName} in {@code layout}. */
    public record Entry(String name, String pygName, Layout layout) {

        /** The entry's shape for our tensor of shape {@code shape}. */
        public int[] pygShape(int[] shape) {
            return switch (layout) {
                case AS_IS -> shape.clone();
                case TRANSPOSED -> new int[] {shape[1], shape[0]};
                case LEADING_ONE -> {
                    int[] s = new int[shape.length + 1];
                    s[0] = 1;
                    System.arraycopy(shape, 0, s, 1, shape.length);
                    yield s;
                }
            };
        }

        /**
         * The entry's values (row-major) for our tensor's {@code values} of shape {@code shape}.
         */
        public float[] pygValues(int[] shape, float[] values) {
            if (layout != Layout.TRANSPOSED) {
                return values.clone();
            }
            int in = shape[0];
            int out = shape[1];
            float[] t = new float[values.length];
            for (int i = 0; i < in; i++) {
                for (int o = 0; o < out; o++) {
                    t[o * in + i] = values[i * out + o];
                }
            }
            return t;
        }
    }

    /** The arguments every BasicGNN model takes, for {@code config} with activation {@code act}. */
    static Map<String, Object> basicKwargs(ModelConfig config, int hiddenChannels, String act) {
        Map<String, Object> kwargs = new LinkedHashMap<>();
        kwargs.put("in_channels", config.inFeatures());
        kwargs.put("hidden_channels", hiddenChannels);
        kwargs.put("num_layers", config.numLayers());
        kwargs.put("out_channels", config.numClasses());
        kwargs.put("act", act);
        return kwargs;
    }

    /** Conv arguments: {@code in_channels}, {@code out_channels}, then {@code more} in pairs. */
    static Map<String, Object> convKwargs(int in, int out, Object... more) {
        Map<String, Object> kwargs = new LinkedHashMap<>();
        kwargs.put("in_channels", in);
        kwargs.put("out_channels", out);
        for (int k = 0; k < more.length; k += 2) {
            kwargs.put((String) more[k], more[k + 1]);
        }
        return kwargs;
    }
}

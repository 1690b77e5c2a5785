package io.gnnstream.operators.model;

import io.gnnstream.operators.messages.MiniBatch;

/**
 * Straightforward double-precision forward pass of one model type, written from its definition and
 * independent of the model's fused layout; ground truth for forward, gradient and layer-wise
 * inference checks. An implementation gives one layer's rule ({@link #layer}); the passes over a
 * sampled {@link MiniBatch} and over a whole graph are shared.
 */
interface ReferenceModel {

    /** The reference for {@code type}. */
    static ReferenceModel of(ModelType type) {
        return switch (type) {
            case SAGE -> new ReferenceSage();
            case GCN -> new ReferenceGcn();
        };
    }

    /**
     * One destination's output of a layer before its activation: {@code self} is the destination's
     * own input row, {@code nbrs} its in-neighbours' rows ({@code in} values each), and the layer's
     * tensors start at {@code params[offset]} in the model's flat layout.
     */
    double[] layer(double[] params, int offset, int in, int out, double[] self, double[][] nbrs);

    /**
     * How many values of the flat parameter vector a layer from {@code in} to {@code out} takes.
     */
    int layerSize(int in, int out);

    /**
     * Mean cross-entropy over the labelled seeds; dropout masks as the model draws them at {@code
     * step}.
     */
    default double loss(
            ModelConfig cfg, double[] params, MiniBatch b, long step, boolean training) {
        double[][] logits = logits(cfg, params, b, step, training);
        double sum = 0;
        int labelled = 0;
        for (int i = 0; i < b.numSeeds(); i++) {
            if (b.labels[i] == MiniBatch.NO_LABEL) {
                continue;
            }
            double max = Double.NEGATIVE_INFINITY;
            for (double l : logits[i]) {
                max = Math.max(max, l);
            }
            double s = 0;
            for (double l : logits[i]) {
                s += Math.exp(l - max);
            }
            sum += max + Math.log(s) - logits[i][b.labels[i]];
            labelled++;
        }
        return sum / Math.max(1, labelled);
    }

    /** The seeds' logits: model layer {@code j} over hop {@code L - j}'s sampled in-edges. */
    default double[][] logits(
            ModelConfig cfg, double[] params, MiniBatch b, long step, boolean training) {
        int layers = cfg.numLayers();
        double[][] h = new double[b.numNodes()][b.featureDim];
        for (int v = 0; v < b.numNodes(); v++) {
            for (int c = 0; c < b.featureDim; c++) {
                h[v][c] = b.features[v * b.featureDim + c];
            }
        }
        int offset = 0;
        for (int j = 0; j < layers; j++) {
            int hop = layers - j;
            int in = cfg.layerIn(j);
            int out = cfg.layerOut(j);
            Dropout drop = training ? Dropout.of(cfg.seed(), step, j, cfg.dropout()) : null;
            float[] scale = new float[1];
            double[][] x = new double[b.numSrc(hop)][in];
            for (int u = 0; u < x.length; u++) {
                for (int c = 0; c < in; c++) {
                    double s = 1.0;
                    if (drop != null) {
                        drop.fillScales((long) u * in + c, 1, scale);
                        s = scale[0];
                    }
                    x[u][c] = h[u][c] * s;
                }
            }
            double[][] z = new double[b.numDst(hop)][];
            for (int i = 0; i < z.length; i++) {
                int start = b.edgeStart(hop, i);
                double[][] nbrs = new double[b.edgeEnd(hop, i) - start][];
                for (int k = 0; k < nbrs.length; k++) {
                    nbrs[k] = x[b.indices[start + k]];
                }
                z[i] = activate(layer(params, offset, in, out, x[i], nbrs), j < layers - 1);
            }
            offset += layerSize(in, out);
            h = z;
        }
        return h;
    }

    /**
     * Every layer's output over a whole graph with all in-neighbours and no dropout: {@code [j][v]}
     * is vertex {@code v}'s output of layer {@code j} (ReLU for hidden layers, the last the
     * logits).
     */
    default double[][][] dense(ModelConfig cfg, double[] params, TestGraphs.Graph g) {
        int n = g.inNbrs().length;
        int f = g.featureDim();
        double[][] h = new double[n][f];
        for (int v = 0; v < n; v++) {
            for (int c = 0; c < f; c++) {
                h[v][c] = g.features()[v * f + c];
            }
        }
        double[][][] all = new double[cfg.numLayers()][][];
        int offset = 0;
        for (int j = 0; j < cfg.numLayers(); j++) {
            double[][] next = new double[n][];
            for (int v = 0; v < n; v++) {
                int[] in = g.inNbrs()[v];
                double[][] nbrs = new double[in.length][];
                for (int k = 0; k < in.length; k++) {
                    nbrs[k] = h[in[k]];
                }
                double[] z = layer(params, offset, cfg.layerIn(j), cfg.layerOut(j), h[v], nbrs);
                next[v] = activate(z, j < cfg.numLayers() - 1);
            }
            offset += layerSize(cfg.layerIn(j), cfg.layerOut(j));
            all[j] = next;
            h = next;
        }
        return all;
    }

    private static double[] activate(double[] z, boolean relu) {
        if (relu) {
            for (int o = 0; o < z.length; o++) {
                z[o] = Math.max(z[o], 0.0);
            }
        }
        return z;
    }

    /** {@code v} widened to double. */
    static double[] toDouble(float[] v) {
        double[] d = new double[v.length];
        for (int i = 0; i < v.length; i++) {
            d[i] = v[i];
        }
        return d;
    }
}

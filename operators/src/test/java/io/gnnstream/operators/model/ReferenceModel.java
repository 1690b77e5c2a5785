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
            case GAT -> new ReferenceGat();
        };
    }

    /**
     * Layer {@code j} of {@code cfg} for one destination: by default {@link #layer(double[], int,
     * int, int, double[], double[][])}. {@code self[k]} marks the neighbours that are the
     * destination itself; {@code attention} (nullable) is the step's attention dropout, whose masks
     * of this destination start at element {@code maskBase}.
     */
    default double[] layer(
            ModelConfig cfg,
            int j,
            double[] params,
            int offset,
            double[] own,
            double[][] nbrs,
            boolean[] self,
            Dropout attention,
            long maskBase) {
        return layer(params, offset, cfg.layerIn(j), cfg.layerOut(j), own, nbrs);
    }

    /** Values of layer {@code j} of {@code cfg}: by default {@link #layerSize(int, int)}. */
    default int layerSize(ModelConfig cfg, int j) {
        return layerSize(cfg.layerIn(j), cfg.layerOut(j));
    }

    /** The activation between layers: ReLU by default. */
    default double activate(double z) {
        return Math.max(z, 0.0);
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
            Dropout attention =
                    training ? Dropout.of(cfg.seed(), step, -1 - j, cfg.attentionDropout()) : null;
            double[][] z = new double[b.numDst(hop)][];
            for (int i = 0; i < z.length; i++) {
                int start = b.edgeStart(hop, i);
                double[][] nbrs = new double[b.edgeEnd(hop, i) - start][];
                boolean[] self = new boolean[nbrs.length];
                for (int k = 0; k < nbrs.length; k++) {
                    nbrs[k] = x[b.indices[start + k]];
                    self[k] = b.indices[start + k] == i;
                }
                long maskBase = (long) (start - b.edgeStart(hop, 0) + i) * heads(cfg, j);
                z[i] =
                        activate(
                                layer(
                                        cfg, j, params, offset, x[i], nbrs, self, attention,
                                        maskBase),
                                j < layers - 1);
            }
            offset += layerSize(cfg, j);
            h = z;
        }
        return h;
    }

    /**
     * Every layer's output over a whole graph with all in-neighbours and no dropout: {@code [j][v]}
     * is vertex {@code v}'s output of layer {@code j} ({@link #activate(double)} for hidden layers,
     * the last the logits).
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
                boolean[] self = new boolean[in.length];
                for (int k = 0; k < in.length; k++) {
                    nbrs[k] = h[in[k]];
                    self[k] = in[k] == v;
                }
                double[] z = layer(cfg, j, params, offset, h[v], nbrs, self, null, 0);
                next[v] = activate(z, j < cfg.numLayers() - 1);
            }
            offset += layerSize(cfg, j);
            all[j] = next;
            h = next;
        }
        return all;
    }

    private double[] activate(double[] z, boolean hidden) {
        if (hidden) {
            for (int o = 0; o < z.length; o++) {
                z[o] = activate(z[o]);
            }
        }
        return z;
    }

    /** Attention heads of layer {@code j} (1 without attention). */
    private static int heads(ModelConfig cfg, int j) {
        return j == cfg.numLayers() - 1 ? cfg.outHeads() : cfg.heads();
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

package io.gnnstream.operators.model;

import io.gnnstream.operators.messages.MiniBatch;

/**
 * Straightforward double-precision GCN forward pass written from the definition {@code z_v = (h_v +
 * sum_{u in N(v)} h_u) / (|N(v)| + 1) W + b} over each hop's sampled in-edges, independent of the
 * model's fused layout; ground truth for forward and gradient checks.
 */
final class ReferenceGcn {

    private ReferenceGcn() {}

    /**
     * Mean cross-entropy over the labelled seeds; dropout masks as the model draws them at {@code
     * step}.
     */
    static double loss(ModelConfig cfg, double[] params, MiniBatch b, long step, boolean training) {
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

    static double[][] logits(
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
            int weight = offset;
            int bias = weight + in * out;
            offset = bias + out;
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
            double[][] z = new double[b.numDst(hop)][out];
            for (int i = 0; i < z.length; i++) {
                int start = b.edgeStart(hop, i);
                int end = b.edgeEnd(hop, i);
                double norm = 1.0 / (end - start + 1);
                double[] agg = new double[in];
                for (int c = 0; c < in; c++) {
                    agg[c] = x[i][c] * norm;
                }
                for (int k = start; k < end; k++) {
                    for (int c = 0; c < in; c++) {
                        agg[c] += x[b.indices[k]][c] * norm;
                    }
                }
                for (int o = 0; o < out; o++) {
                    double acc = params[bias + o];
                    for (int c = 0; c < in; c++) {
                        acc += agg[c] * params[weight + c * out + o];
                    }
                    z[i][o] = j < layers - 1 ? Math.max(acc, 0.0) : acc;
                }
            }
            h = z;
        }
        return h;
    }
}

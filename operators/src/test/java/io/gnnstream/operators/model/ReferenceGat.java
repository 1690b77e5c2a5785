package io.gnnstream.operators.model;

/**
 * GAT from the definition (PyG {@code GATConv} with self-loops): per head {@code h}, {@code z_i =
 * sum_{j in {i} + N(i)} alpha_ij W x_j}, {@code alpha_i = softmax_j(LeakyReLU_0.2(a_src . W x_j +
 * a_dst . W x_i))} times the attention dropout scale; heads concatenated on hidden layers, averaged
 * on the last; a bias; ELU between layers. Neighbours that are the destination itself are left out
 * (the self-loop replaces them).
 */
final class ReferenceGat implements ReferenceModel {

    @Override
    public int layerSize(int in, int out) {
        throw new UnsupportedOperationException("GAT layers depend on their heads");
    }

    @Override
    public double[] layer(
            double[] params, int offset, int in, int out, double[] self, double[][] nbrs) {
        throw new UnsupportedOperationException("GAT layers depend on their heads");
    }

    private static int heads(ModelConfig cfg, int j) {
        return j == cfg.numLayers() - 1 ? cfg.outHeads() : cfg.heads();
    }

    private static int channels(ModelConfig cfg, int j) {
        return j == cfg.numLayers() - 1 ? cfg.numClasses() : cfg.hidden();
    }

    @Override
    public int layerSize(ModelConfig cfg, int j) {
        int hc = heads(cfg, j) * channels(cfg, j);
        return cfg.layerIn(j) * hc + 2 * hc + cfg.layerOut(j);
    }

    @Override
    public double activate(double z) {
        return z > 0 ? z : Math.expm1(z);
    }

    @Override
    public double[] layer(
            ModelConfig cfg,
            int j,
            double[] params,
            int offset,
            double[] own,
            double[][] nbrs,
            boolean[] self,
            Dropout attention,
            long maskBase) {
        int heads = heads(cfg, j);
        int ch = channels(cfg, j);
        int hc = heads * ch;
        int in = cfg.layerIn(j);
        int aSrc = offset + in * hc;
        int aDst = aSrc + hc;
        int bias = aDst + hc;
        double[][] rows = new double[nbrs.length + 1][];
        rows[0] = own;
        System.arraycopy(nbrs, 0, rows, 1, nbrs.length);
        double[][] proj = new double[rows.length][hc];
        for (int t = 0; t < rows.length; t++) {
            for (int c = 0; c < hc; c++) {
                double s = 0;
                for (int k = 0; k < in; k++) {
                    s += rows[t][k] * params[offset + k * hc + c];
                }
                proj[t][c] = s;
            }
        }
        double[] acc = new double[hc];
        float[] scale = new float[1];
        for (int h = 0; h < heads; h++) {
            double dst = 0;
            for (int c = 0; c < ch; c++) {
                dst += proj[0][h * ch + c] * params[aDst + h * ch + c];
            }
            double[] e = new double[rows.length];
            double max = Double.NEGATIVE_INFINITY;
            for (int t = 0; t < rows.length; t++) {
                if (t > 0 && self[t - 1]) {
                    continue;
                }
                double src = 0;
                for (int c = 0; c < ch; c++) {
                    src += proj[t][h * ch + c] * params[aSrc + h * ch + c];
                }
                double v = src + dst;
                e[t] = v > 0 ? v : 0.2 * v;
                max = Math.max(max, e[t]);
            }
            double sum = 0;
            for (int t = 0; t < rows.length; t++) {
                if (t > 0 && self[t - 1]) {
                    continue;
                }
                e[t] = Math.exp(e[t] - max);
                sum += e[t];
            }
            for (int t = 0; t < rows.length; t++) {
                if (t > 0 && self[t - 1]) {
                    continue;
                }
                double a = e[t] / sum;
                if (attention != null) {
                    attention.fillScales(maskBase + (long) t * heads + h, 1, scale);
                    a *= scale[0];
                }
                for (int c = 0; c < ch; c++) {
                    acc[h * ch + c] += a * proj[t][h * ch + c];
                }
            }
        }
        boolean concat = j < cfg.numLayers() - 1;
        double[] z = new double[concat ? hc : ch];
        for (int c = 0; c < z.length; c++) {
            double v;
            if (concat) {
                v = acc[c];
            } else {
                v = 0;
                for (int h = 0; h < heads; h++) {
                    v += acc[h * ch + c];
                }
                v /= heads;
            }
            z[c] = v + params[bias + c];
        }
        return z;
    }
}

package io.gnnstream.operators.model;

/**
 * GraphSAGE-mean from the PyG definition {@code z_v = h_v W_root + mean_{u in N(v)} h_u W_neigh +
 * b} (a mean of zero rows for a vertex without in-neighbours).
 */
final class ReferenceSage implements ReferenceModel {

    /** Per layer: {@code W_root [in, out]}, {@code W_neigh [in, out]}, {@code b [out]}. */
    @Override
    public int layerSize(int in, int out) {
        return (2 * in + 1) * out;
    }

    @Override
    public double[] layer(
            double[] params, int offset, int in, int out, double[] self, double[][] nbrs) {
        int root = offset;
        int neigh = root + in * out;
        int bias = neigh + in * out;
        double[] mean = new double[in];
        for (double[] u : nbrs) {
            for (int c = 0; c < in; c++) {
                mean[c] += u[c] / nbrs.length;
            }
        }
        double[] z = new double[out];
        for (int o = 0; o < out; o++) {
            double acc = params[bias + o];
            for (int c = 0; c < in; c++) {
                acc += self[c] * params[root + c * out + o] + mean[c] * params[neigh + c * out + o];
            }
            z[o] = acc;
        }
        return z;
    }
}

package io.gnnstream.operators.model;

/**
 * GCN from the definition {@code z_v = (h_v + sum_{u in N(v)} h_u) / (|N(v)| + 1) W + b}: a
 * self-loop and mean normalisation over the (sampled) in-neighbours.
 */
final class ReferenceGcn implements ReferenceModel {

    /** Per layer: {@code W [in, out]}, {@code b [out]}. */
    @Override
    public int layerSize(int in, int out) {
        return (in + 1) * out;
    }

    @Override
    public double[] layer(
            double[] params, int offset, int in, int out, double[] self, double[][] nbrs) {
        int weight = offset;
        int bias = weight + in * out;
        double norm = 1.0 / (nbrs.length + 1);
        double[] agg = new double[in];
        for (int c = 0; c < in; c++) {
            agg[c] = self[c] * norm;
        }
        for (double[] u : nbrs) {
            for (int c = 0; c < in; c++) {
                agg[c] += u[c] * norm;
            }
        }
        double[] z = new double[out];
        for (int o = 0; o < out; o++) {
            double acc = params[bias + o];
            for (int c = 0; c < in; c++) {
                acc += agg[c] * params[weight + c * out + o];
            }
            z[o] = acc;
        }
        return z;
    }
}

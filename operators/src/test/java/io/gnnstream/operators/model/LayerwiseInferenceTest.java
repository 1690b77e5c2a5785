package io.gnnstream.operators.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Layer-wise full-neighbour inference against a dense double-precision reference. */
class LayerwiseInferenceTest {

    private static final int N = 60;
    private static final int F = 5;

    @ParameterizedTest(name = "layers={0} chunk={1}")
    @CsvSource({"1,7", "2,7", "2,60", "3,13"})
    void matchesDenseReference(int layers, int chunk) {
        TestGraphs.Graph g = TestGraphs.random(N, F, 3, 6, 5, 3);
        ModelConfig cfg =
                ModelConfig.builder()
                        .inFeatures(F)
                        .hidden(6)
                        .numClasses(3)
                        .numLayers(layers)
                        .dropout(0.5)
                        .learningRate(0.01)
                        .seed(9)
                        .build();
        try (SageModel model = new SageModel(cfg)) {
            float[] params = new float[cfg.numParameters()];
            SplittableRandom random = new SplittableRandom(5);
            for (int i = 0; i < params.length; i++) {
                params[i] = (float) (random.nextDouble() - 0.5);
            }
            model.setParameterVector(params);
            LayerwiseInference.Outputs outputs = LayerwiseInference.run(model, graph(g), chunk);
            double[][] expected = dense(cfg, params, g);
            float[] logits = outputs.logits();
            for (int v = 0; v < N; v++) {
                for (int c = 0; c < 3; c++) {
                    assertEquals(
                            expected[v][c], logits[v * 3 + c], 1e-5, "vertex " + v + " class " + c);
                }
            }
        }
    }

    @Test
    void rejectsAGraphOfAnotherFeatureWidth() {
        TestGraphs.Graph g = TestGraphs.random(N, F, 3, 6, 5, 3);
        ModelConfig cfg =
                ModelConfig.builder()
                        .inFeatures(F + 1)
                        .hidden(6)
                        .numClasses(3)
                        .numLayers(2)
                        .dropout(0)
                        .learningRate(0.01)
                        .seed(9)
                        .build();
        try (SageModel model = new SageModel(cfg)) {
            assertThrows(
                    IllegalArgumentException.class,
                    () -> LayerwiseInference.run(model, graph(g), 8));
        }
    }

    static LayerwiseInference.Graph graph(TestGraphs.Graph g) {
        int n = g.inNbrs().length;
        int[] offsets = new int[n + 1];
        for (int v = 0; v < n; v++) {
            offsets[v + 1] = offsets[v] + g.inNbrs()[v].length;
        }
        int[] neighbours = new int[offsets[n]];
        for (int v = 0; v < n; v++) {
            System.arraycopy(g.inNbrs()[v], 0, neighbours, offsets[v], g.inNbrs()[v].length);
        }
        return new LayerwiseInference.Graph(n, offsets, neighbours, g.features(), g.featureDim());
    }

    /**
     * Every layer as dense matrices over the whole graph: {@code relu(H W_root + mean_nbrs(H)
     * W_neigh + b)}.
     */
    private static double[][] dense(ModelConfig cfg, float[] params, TestGraphs.Graph g) {
        int n = g.inNbrs().length;
        double[][] h = new double[n][F];
        for (int v = 0; v < n; v++) {
            for (int c = 0; c < F; c++) {
                h[v][c] = g.features()[v * F + c];
            }
        }
        int offset = 0;
        for (int j = 0; j < cfg.numLayers(); j++) {
            int in = cfg.layerIn(j);
            int out = cfg.layerOut(j);
            int root = offset;
            int neigh = root + in * out;
            int bias = neigh + in * out;
            offset = bias + out;
            double[][] next = new double[n][out];
            for (int v = 0; v < n; v++) {
                double[] mean = new double[in];
                int[] nbrs = g.inNbrs()[v];
                for (int u : nbrs) {
                    for (int c = 0; c < in; c++) {
                        mean[c] += h[u][c] / nbrs.length;
                    }
                }
                for (int o = 0; o < out; o++) {
                    double z = params[bias + o];
                    for (int c = 0; c < in; c++) {
                        z +=
                                h[v][c] * params[root + c * out + o]
                                        + mean[c] * params[neigh + c * out + o];
                    }
                    next[v][o] = j < cfg.numLayers() - 1 ? Math.max(0, z) : z;
                }
            }
            h = next;
        }
        return h;
    }
}

package io.gnnstream.operators.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gnnstream.operators.messages.MiniBatch;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** GCN layer-wise full-neighbour inference against a dense double-precision reference. */
class GcnLayerwiseInferenceTest {

    private static final int N = 60;
    private static final int F = 5;

    private static ModelConfig config(int layers) {
        return ModelConfig.builder()
                .modelType(ModelType.GCN)
                .inFeatures(F)
                .hidden(6)
                .numClasses(3)
                .numLayers(layers)
                .dropout(0.5)
                .learningRate(0.01)
                .seed(9)
                .build();
    }

    private static float[] randomParams(int n) {
        float[] params = new float[n];
        SplittableRandom random = new SplittableRandom(5);
        for (int i = 0; i < params.length; i++) {
            params[i] = (float) (random.nextDouble() - 0.5);
        }
        return params;
    }

    @ParameterizedTest(name = "layers={0} chunk={1}")
    @CsvSource({"1,7", "2,7", "2,60", "3,13"})
    void matchesDenseReference(int layers, int chunk) {
        TestGraphs.Graph g = TestGraphs.random(N, F, 3, 6, 5, 3);
        ModelConfig cfg = config(layers);
        try (GnnModel model = GnnModel.create(cfg)) {
            float[] params = randomParams(cfg.numParameters());
            model.setParameterVector(params);
            LayerwiseInference.Outputs outputs =
                    LayerwiseInference.run(model, LayerwiseInferenceTest.graph(g), chunk);
            double[][][] expected = dense(cfg, params, g);
            for (int j = 0; j < layers; j++) {
                int out = cfg.layerOut(j);
                float[] got = outputs.layers()[j];
                for (int v = 0; v < N; v++) {
                    for (int c = 0; c < out; c++) {
                        assertEquals(
                                expected[j][v][c],
                                got[v * out + c],
                                1e-5,
                                "layer " + j + " vertex " + v + " column " + c);
                    }
                }
            }
        }
    }

    /** A block with no destinations (an empty chunk of a round) gives an empty result. */
    @Test
    void emptyBlockGivesNoRows() {
        try (GcnModel model = new GcnModel(config(2))) {
            MiniBatch b = new MiniBatch();
            b.numLayers = 1;
            b.nodeCounts = new int[] {0, 0};
            b.indptr = new int[] {0};
            b.indptrOffsets = new int[] {0};
            b.indices = new int[0];
            b.indicesOffsets = new int[] {0};
            assertEquals(0, model.inferLayer(1, b, new float[0]).length);
        }
    }

    /**
     * Every layer over the whole graph: {@code act((H_v + sum_{u->v} H_u) / (deg(v) + 1) W + b)}.
     */
    private static double[][][] dense(ModelConfig cfg, float[] params, TestGraphs.Graph g) {
        int n = g.inNbrs().length;
        double[][] h = new double[n][F];
        for (int v = 0; v < n; v++) {
            for (int c = 0; c < F; c++) {
                h[v][c] = g.features()[v * F + c];
            }
        }
        double[][][] all = new double[cfg.numLayers()][][];
        int offset = 0;
        for (int j = 0; j < cfg.numLayers(); j++) {
            int in = cfg.layerIn(j);
            int out = cfg.layerOut(j);
            int weight = offset;
            int bias = weight + in * out;
            offset = bias + out;
            double[][] next = new double[n][out];
            for (int v = 0; v < n; v++) {
                int[] nbrs = g.inNbrs()[v];
                double[] agg = h[v].clone();
                for (int u : nbrs) {
                    for (int c = 0; c < in; c++) {
                        agg[c] += h[u][c];
                    }
                }
                for (int o = 0; o < out; o++) {
                    double z = params[bias + o];
                    for (int c = 0; c < in; c++) {
                        z += agg[c] / (nbrs.length + 1) * params[weight + c * out + o];
                    }
                    next[v][o] = j < cfg.numLayers() - 1 ? Math.max(0, z) : z;
                }
            }
            all[j] = next;
            h = next;
        }
        return all;
    }
}

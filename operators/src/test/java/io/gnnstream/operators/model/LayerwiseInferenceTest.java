package io.gnnstream.operators.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.gnnstream.operators.messages.MiniBatch;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/** Every model type's layer-wise full-neighbour inference against a dense reference. */
class LayerwiseInferenceTest {

    private static final int N = 60;
    private static final int F = 5;

    private static ModelConfig config(ModelCase c, int inFeatures, int layers) {
        return c.config()
                .inFeatures(inFeatures)
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

    /** Layers, destinations per chunk. */
    private static Stream<Arguments> cases() {
        return ModelCase.crossed(
                new Object[] {1, 7},
                new Object[] {2, 7},
                new Object[] {2, 60},
                new Object[] {3, 13});
    }

    @ParameterizedTest(name = "{0} layers={1} chunk={2}")
    @MethodSource("cases")
    void matchesDenseReference(ModelCase c, int layers, int chunk) {
        TestGraphs.Graph g = TestGraphs.random(N, F, 3, 6, 5, 3);
        ModelConfig cfg = config(c, F, layers);
        try (GnnModel model = GnnModel.create(cfg)) {
            float[] params = randomParams(cfg.numParameters());
            model.setParameterVector(params);
            LayerwiseInference.Outputs outputs = LayerwiseInference.run(model, graph(g), chunk);
            double[][][] expected = c.reference().dense(cfg, ReferenceModel.toDouble(params), g);
            assertSame(outputs.layers()[layers - 1], outputs.logits());
            for (int j = 0; j < layers; j++) {
                int out = cfg.layerOut(j);
                float[] got = outputs.layers()[j];
                for (int v = 0; v < N; v++) {
                    for (int k = 0; k < out; k++) {
                        assertEquals(
                                expected[j][v][k],
                                got[v * out + k],
                                1e-5,
                                "layer " + j + " vertex " + v + " column " + k);
                    }
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(ModelCase.ALL)
    void rejectsAGraphOfAnotherFeatureWidth(ModelCase c) {
        TestGraphs.Graph g = TestGraphs.random(N, F, 3, 6, 5, 3);
        try (GnnModel model = GnnModel.create(config(c, F + 1, 2))) {
            assertThrows(
                    IllegalArgumentException.class,
                    () -> LayerwiseInference.run(model, graph(g), 8));
        }
    }

    /** A block with no destinations (an empty chunk of a round) gives an empty result. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(ModelType.class)
    void emptyBlockGivesNoRows(ModelType type) {
        try (GnnModel model = GnnModel.create(config(ModelCase.of(type), F, 2))) {
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
}

package io.gnnstream.operators.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.operators.messages.MiniBatch;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every model type's forward pass and gradients against an independent reference and central finite
 * differences.
 */
class GradientCheckTest {

    private static ModelConfig config(ModelCase c, int layers, double dropout) {
        return c.config()
                .inFeatures(5)
                .hidden(6)
                .numClasses(3)
                .numLayers(layers)
                .dropout(dropout)
                .learningRate(0.01)
                .seed(42)
                .build();
    }

    /** Tiny graph where every third node has no in-neighbours; optionally some seeds unlabelled. */
    private static MiniBatch batch(int layers, boolean dedup, boolean unlabelled) {
        TestGraphs.Graph g = TestGraphs.random(40, 5, 3, 4, 3, 7);
        int[] fanouts =
                layers == 1 ? new int[] {3} : layers == 2 ? new int[] {3, 2} : new int[] {2, 2, 2};
        MiniBatch b = TestGraphs.sample(g, new int[] {0, 1, 2, 4, 5, 9}, fanouts, dedup, 11);
        if (unlabelled) {
            b.labels[1] = MiniBatch.NO_LABEL;
            b.labels[4] = MiniBatch.NO_LABEL;
        }
        return b;
    }

    /** Layers, dropout, deduplicated sampling, two seeds unlabelled. */
    private static Stream<Arguments> forwardCases() {
        return ModelCase.crossed(
                new Object[] {1, 0.0, true, false},
                new Object[] {2, 0.0, true, false},
                new Object[] {2, 0.0, false, false},
                new Object[] {2, 0.4, true, false},
                new Object[] {3, 0.3, true, false},
                new Object[] {2, 0.3, true, true});
    }

    private static Stream<Arguments> gradientCases() {
        return Stream.concat(
                forwardCases(), ModelCase.crossed(new Object[] {3, 0.0, false, false}));
    }

    /** For a config of 5 features, 6 hidden and 3 classes in two layers. */
    private static Stream<Arguments> layouts() {
        return Stream.of(
                Arguments.of(
                        ModelCase.of(ModelType.SAGE),
                        List.of(
                                tensor("layers.0.lin_root.weight", 5, 6),
                                tensor("layers.0.lin_neigh.weight", 5, 6),
                                tensor("layers.0.bias", 6),
                                tensor("layers.1.lin_root.weight", 6, 3),
                                tensor("layers.1.lin_neigh.weight", 6, 3),
                                tensor("layers.1.bias", 3)),
                        2 * 5 * 6 + 6 + 2 * 6 * 3 + 3),
                Arguments.of(
                        ModelCase.of(ModelType.GCN),
                        List.of(
                                tensor("layers.0.lin.weight", 5, 6),
                                tensor("layers.0.bias", 6),
                                tensor("layers.1.lin.weight", 6, 3),
                                tensor("layers.1.bias", 3)),
                        5 * 6 + 6 + 6 * 3 + 3),
                Arguments.of(
                        ModelCase.of(ModelType.GAT),
                        List.of(
                                tensor("layers.0.lin.weight", 5, 12),
                                tensor("layers.0.att_src", 2, 6),
                                tensor("layers.0.att_dst", 2, 6),
                                tensor("layers.0.bias", 12),
                                tensor("layers.1.lin.weight", 12, 6),
                                tensor("layers.1.att_src", 2, 3),
                                tensor("layers.1.att_dst", 2, 3),
                                tensor("layers.1.bias", 3)),
                        5 * 12 + 2 * 12 + 12 + 12 * 6 + 2 * 6 + 3));
    }

    private record Tensor(String name, int[] shape) {}

    private static Tensor tensor(String name, int... shape) {
        return new Tensor(name, shape);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("layouts")
    void parameterLayoutAndFactory(ModelCase c, List<Tensor> expected, int numParameters) {
        ModelConfig cfg = config(c, 2, 0.0);
        try (GnnModel model = GnnModel.create(cfg)) {
            assertEquals(c.modelClass(), model.getClass());
            List<ParamInfo> params = model.parameters();
            assertEquals(expected.size(), params.size());
            for (int t = 0; t < params.size(); t++) {
                assertEquals(expected.get(t).name(), params.get(t).name());
                assertArrayEquals(expected.get(t).shape(), params.get(t).shape(), "shape of " + t);
            }
            assertEquals(numParameters, cfg.numParameters());
            assertEquals(numParameters, model.parameterVector().length);
            for (ParamInfo p : params) {
                if (p.name().endsWith(".bias")) {
                    for (float b : p.values()) {
                        assertEquals(0f, b, "biases start at zero");
                    }
                } else {
                    double limit = Math.sqrt(6.0 / (p.shape()[0] + p.shape()[1]));
                    for (float w : p.values()) {
                        assertTrue(Math.abs(w) <= limit && w != 0f, "Glorot-uniform weight " + w);
                    }
                }
            }
        }
        if (c.type() == ModelType.GCN) {
            assertThrows(
                    IllegalArgumentException.class,
                    () -> new GcnModel(ModelConfig.builder().inFeatures(5).numClasses(3).build()));
        }
    }

    @ParameterizedTest(name = "{0} layers={1} dropout={2} dedup={3} unlabelled={4}")
    @MethodSource("forwardCases")
    void forwardMatchesReference(
            ModelCase c, int layers, double dropout, boolean dedup, boolean unlabelled) {
        ModelConfig cfg = config(c, layers, dropout);
        try (GnnModel model = GnnModel.create(cfg)) {
            MiniBatch b = batch(layers, dedup, unlabelled);
            double[] p = ReferenceModel.toDouble(model.parameterVector());
            double expectedEval = c.reference().loss(cfg, p, b, 0, false);
            EvalResult eval = model.evaluate(b);
            assertEquals(
                    expectedEval, eval.lossSum() / eval.numSeeds(), 1e-5 * Math.abs(expectedEval));
            double[][] logits = c.reference().logits(cfg, p, b, 0, false);
            for (int i = 0; i < b.numSeeds(); i++) {
                int best = 0;
                for (int k = 1; k < cfg.numClasses(); k++) {
                    best = logits[i][k] > logits[i][best] ? k : best;
                }
                assertEquals(best, eval.predictions()[i], "prediction of seed " + i);
            }
            double expectedTrain = c.reference().loss(cfg, p, b, 0, true);
            assertEquals(
                    expectedTrain,
                    model.computeGradients(b).loss(),
                    1e-5 * Math.abs(expectedTrain));
            if (dropout > 0) {
                assertTrue(
                        Math.abs(expectedTrain - expectedEval) > 1e-3,
                        "dropout must change the loss");
            }
        }
    }

    /** Analytic gradients vs central differences of the double-precision reference, per tensor. */
    @ParameterizedTest(name = "{0} layers={1} dropout={2} dedup={3} unlabelled={4}")
    @MethodSource("gradientCases")
    void gradientsMatchReferenceFiniteDifferences(
            ModelCase c, int layers, double dropout, boolean dedup, boolean unlabelled) {
        ModelConfig cfg = config(c, layers, dropout);
        try (GnnModel model = GnnModel.create(cfg)) {
            MiniBatch b = batch(layers, dedup, unlabelled);
            Gradients g = model.computeGradients(b);
            assertEquals(unlabelled ? 4 : 6, g.numSeeds(), "labelled seeds");
            double[] p = ReferenceModel.toDouble(model.parameterVector());
            double[] fd = new double[p.length];
            double h = 1e-5;
            for (int k = 0; k < p.length; k++) {
                double keep = p[k];
                p[k] = keep + h;
                double plus = c.reference().loss(cfg, p, b, 0, true);
                p[k] = keep - h;
                double minus = c.reference().loss(cfg, p, b, 0, true);
                p[k] = keep;
                fd[k] = (plus - minus) / (2 * h);
            }
            assertTensorsClose(model.parameters(), g.grad(), fd, 1e-3, 1e-6);
        }
    }

    /**
     * GAT with attention dropout (and input dropout) in one to three layers: gradients of every
     * tensor against central differences of the reference drawing the same masks.
     */
    @ParameterizedTest(name = "layers={0} heads={1} outHeads={2}")
    @CsvSource({"1,1,3", "2,3,2", "3,2,2"})
    void gatGradientsWithAttentionDropoutMatchFiniteDifferences(
            int layers, int heads, int outHeads) {
        ModelConfig cfg =
                ModelConfig.builder()
                        .modelType(ModelType.GAT)
                        .inFeatures(5)
                        .hidden(4)
                        .heads(heads)
                        .outHeads(outHeads)
                        .attentionDropout(0.4)
                        .numClasses(3)
                        .numLayers(layers)
                        .dropout(0.2)
                        .seed(7)
                        .build();
        ReferenceModel reference = ReferenceModel.of(ModelType.GAT);
        try (GnnModel model = GnnModel.create(cfg)) {
            MiniBatch b = batch(layers, false, false);
            Gradients g = model.computeGradients(b);
            double[] p = ReferenceModel.toDouble(model.parameterVector());
            double expected = reference.loss(cfg, p, b, 0, true);
            assertEquals(expected, g.loss(), 1e-5 * Math.abs(expected));
            assertTrue(
                    Math.abs(expected - reference.loss(cfg, p, b, 0, false)) > 1e-3,
                    "dropout must change the loss");
            double[] fd = new double[p.length];
            double h = 1e-5;
            for (int k = 0; k < p.length; k++) {
                double keep = p[k];
                p[k] = keep + h;
                double plus = reference.loss(cfg, p, b, 0, true);
                p[k] = keep - h;
                double minus = reference.loss(cfg, p, b, 0, true);
                p[k] = keep;
                fd[k] = (plus - minus) / (2 * h);
            }
            assertTensorsClose(model.parameters(), g.grad(), fd, 1e-3, 1e-6);
        }
    }

    /** The model's own float32 loss, differentiated numerically (coarser step, looser bound). */
    @ParameterizedTest(name = "{0}")
    @MethodSource(ModelCase.ALL)
    void gradientsMatchFloat32FiniteDifferencesWithIsolatedNodes(ModelCase c) {
        ModelConfig cfg = config(c, 2, 0.0);
        try (GnnModel model = GnnModel.create(cfg)) {
            MiniBatch b = batch(2, true, false);
            int isolated = 0;
            for (int i = 0; i < b.numDst(2); i++) {
                isolated += b.edgeStart(2, i) == b.edgeEnd(2, i) ? 1 : 0;
            }
            assertTrue(isolated > 0, "the check must cover nodes without neighbours");
            float[] grad = model.computeGradients(b).grad();
            float[] p = model.parameterVector();
            double[] fd = new double[p.length];
            float h = 1e-2f;
            for (int k = 0; k < p.length; k++) {
                float keep = p[k];
                p[k] = keep + h;
                model.setParameterVector(p);
                double plus = model.evaluate(b).lossSum();
                p[k] = keep - h;
                model.setParameterVector(p);
                double minus = model.evaluate(b).lossSum();
                p[k] = keep;
                fd[k] = (plus - minus) / (2.0 * h * b.numSeeds());
            }
            model.setParameterVector(p);
            assertArrayEquals(grad, model.computeGradients(b).grad(), "restored parameters");
            assertTensorsClose(model.parameters(), grad, fd, 2e-2, 2e-4);
        }
    }

    /** Per tensor: max |analytic - numeric| <= atol + rtol * max |numeric|. */
    private static void assertTensorsClose(
            List<ParamInfo> tensors, float[] grad, double[] fd, double rtol, double atol) {
        int offset = 0;
        for (ParamInfo t : tensors) {
            double maxErr = 0;
            double maxRef = 0;
            for (int k = offset; k < offset + t.values().length; k++) {
                maxErr = Math.max(maxErr, Math.abs(grad[k] - fd[k]));
                maxRef = Math.max(maxRef, Math.abs(fd[k]));
            }
            assertTrue(maxRef > 1e-4, t.name() + " gradient is trivially zero");
            assertTrue(
                    maxErr <= atol + rtol * maxRef,
                    t.name() + ": max error " + maxErr + " vs max |gradient| " + maxRef);
            offset += t.values().length;
        }
        assertEquals(grad.length, offset);
    }
}

package io.gnnstream.operators.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.operators.messages.MiniBatch;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Forward pass and gradients against an independent reference and central finite differences. */
class GradientCheckTest {

    private static ModelConfig config(int layers, double dropout) {
        return ModelConfig.builder()
                .inFeatures(5)
                .hidden(6)
                .numClasses(3)
                .numLayers(layers)
                .dropout(dropout)
                .learningRate(0.01)
                .seed(42)
                .build();
    }

    /** Tiny graph where every third node has no in-neighbours, sampled with deduplication. */
    private static MiniBatch batch(int layers, boolean dedup) {
        TestGraphs.Graph g = TestGraphs.random(40, 5, 3, 4, 3, 7);
        int[] fanouts =
                layers == 1 ? new int[] {3} : layers == 2 ? new int[] {3, 2} : new int[] {2, 2, 2};
        return TestGraphs.sample(g, new int[] {0, 1, 2, 4, 5, 9}, fanouts, dedup, 11);
    }

    private static double[] toDouble(float[] v) {
        double[] d = new double[v.length];
        for (int i = 0; i < v.length; i++) {
            d[i] = v[i];
        }
        return d;
    }

    @ParameterizedTest(name = "layers={0} dropout={1} dedup={2}")
    @CsvSource({"1,0.0,true", "2,0.0,true", "2,0.0,false", "2,0.4,true", "3,0.3,true"})
    void forwardMatchesReference(int layers, double dropout, boolean dedup) {
        ModelConfig cfg = config(layers, dropout);
        SageModel model = new SageModel(cfg);
        MiniBatch b = batch(layers, dedup);
        double[] p = toDouble(model.parameterVector());
        double expectedEval = ReferenceSage.loss(cfg, p, b, 0, false);
        EvalResult eval = model.evaluate(b);
        assertEquals(expectedEval, eval.lossSum() / eval.numSeeds(), 1e-5 * Math.abs(expectedEval));
        double[][] logits = ReferenceSage.logits(cfg, p, b, 0, false);
        for (int i = 0; i < b.numSeeds(); i++) {
            int best = 0;
            for (int c = 1; c < cfg.numClasses(); c++) {
                best = logits[i][c] > logits[i][best] ? c : best;
            }
            assertEquals(best, eval.predictions()[i], "prediction of seed " + i);
        }
        double expectedTrain = ReferenceSage.loss(cfg, p, b, 0, true);
        assertEquals(
                expectedTrain, model.computeGradients(b).loss(), 1e-5 * Math.abs(expectedTrain));
        if (dropout > 0) {
            assertTrue(
                    Math.abs(expectedTrain - expectedEval) > 1e-3, "dropout must change the loss");
        }
    }

    /** Analytic gradients vs central differences of the double-precision reference, per tensor. */
    @ParameterizedTest(name = "layers={0} dropout={1} dedup={2}")
    @CsvSource({"1,0.0,true", "2,0.0,true", "2,0.0,false", "2,0.4,true", "3,0.3,true"})
    void gradientsMatchReferenceFiniteDifferences(int layers, double dropout, boolean dedup) {
        ModelConfig cfg = config(layers, dropout);
        SageModel model = new SageModel(cfg);
        MiniBatch b = batch(layers, dedup);
        float[] grad = model.computeGradients(b).grad();
        double[] p = toDouble(model.parameterVector());
        double[] fd = new double[p.length];
        double h = 1e-5;
        for (int k = 0; k < p.length; k++) {
            double keep = p[k];
            p[k] = keep + h;
            double plus = ReferenceSage.loss(cfg, p, b, 0, true);
            p[k] = keep - h;
            double minus = ReferenceSage.loss(cfg, p, b, 0, true);
            p[k] = keep;
            fd[k] = (plus - minus) / (2 * h);
        }
        assertTensorsClose(model.parameters(), grad, fd, 1e-3, 1e-6);
    }

    /** The model's own float32 loss, differentiated numerically (coarser step, looser bound). */
    @Test
    void gradientsMatchFloat32FiniteDifferencesWithIsolatedNodes() {
        ModelConfig cfg = config(2, 0.0);
        SageModel model = new SageModel(cfg);
        MiniBatch b = batch(2, true);
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

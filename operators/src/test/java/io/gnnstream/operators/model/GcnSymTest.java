package io.gnnstream.operators.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.operators.messages.MiniBatch;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code --gcn-norm sym}: layer-wise inference equals a dense {@code D^-1/2 (A+I) D^-1/2 X W + b}
 * (ReLU between layers) on a small graph; the sym kernel's gradients equal finite differences of
 * its loss; and a batch without degrees is refused.
 */
@Timeout(60)
class GcnSymTest {

    private static ModelConfig config(int layers, double dropout) {
        return ModelConfig.builder()
                .modelType(ModelType.GCN)
                .inFeatures(5)
                .hidden(6)
                .numClasses(3)
                .numLayers(layers)
                .dropout(dropout)
                .learningRate(0.01)
                .seed(42)
                .build()
                .withGcnNorm(GcnNorm.SYM);
    }

    @Test
    void layerwiseInferenceEqualsTheDenseSymmetricNormalisation() {
        TestGraphs.Graph t = TestGraphs.random(30, 5, 3, 4, 5, 3);
        int n = t.inNbrs().length;
        int[] offsets = new int[n + 1];
        for (int v = 0; v < n; v++) {
            offsets[v + 1] = offsets[v] + t.inNbrs()[v].length;
        }
        int[] neighbours = new int[offsets[n]];
        for (int v = 0; v < n; v++) {
            System.arraycopy(t.inNbrs()[v], 0, neighbours, offsets[v], t.inNbrs()[v].length);
        }
        LayerwiseInference.Graph g =
                new LayerwiseInference.Graph(n, offsets, neighbours, t.features(), 5);
        // Dense A_hat = D^-1/2 (A + I) D^-1/2 with d = in-degree + 1 (repeated edges counted).
        double[][] a = new double[n][n];
        for (int v = 0; v < n; v++) {
            a[v][v] += 1;
            for (int u : t.inNbrs()[v]) {
                a[v][u] += 1;
            }
        }
        double[] d = new double[n];
        for (int v = 0; v < n; v++) {
            d[v] = t.inNbrs()[v].length + 1;
        }
        for (int v = 0; v < n; v++) {
            for (int u = 0; u < n; u++) {
                a[v][u] /= Math.sqrt(d[v] * d[u]);
            }
        }
        ModelConfig cfg = config(2, 0.5);
        try (GnnModel model = GnnModel.create(cfg)) {
            float[] logits = LayerwiseInference.run(model, g, 7, -1).logits();
            List<ParamInfo> p = model.parameters();
            double[][] h = new double[n][5];
            for (int v = 0; v < n; v++) {
                for (int c = 0; c < 5; c++) {
                    h[v][c] = t.features()[v * 5 + c];
                }
            }
            for (int j = 0; j < 2; j++) {
                float[] w = p.get(2 * j).values();
                float[] b = p.get(2 * j + 1).values();
                int in = cfg.layerIn(j);
                int out = cfg.layerOut(j);
                double[][] next = new double[n][out];
                for (int v = 0; v < n; v++) {
                    for (int o = 0; o < out; o++) {
                        double z = b[o];
                        for (int u = 0; u < n; u++) {
                            if (a[v][u] == 0) {
                                continue;
                            }
                            for (int c = 0; c < in; c++) {
                                z += a[v][u] * h[u][c] * w[c * out + o];
                            }
                        }
                        next[v][o] = j == 0 ? Math.max(0, z) : z;
                    }
                }
                h = next;
            }
            double worst = 0;
            for (int v = 0; v < n; v++) {
                for (int o = 0; o < 3; o++) {
                    worst = Math.max(worst, Math.abs(h[v][o] - logits[v * 3 + o]));
                }
            }
            assertTrue(worst < 1e-5, "largest logit difference " + worst);

            try (GnnModel mean =
                    GnnModel.create(
                            ModelConfig.builder()
                                    .modelType(ModelType.GCN)
                                    .inFeatures(5)
                                    .hidden(6)
                                    .numClasses(3)
                                    .numLayers(2)
                                    .dropout(0.5)
                                    .learningRate(0.01)
                                    .seed(42)
                                    .build())) {
                assertArrayEquals(model.parameterVector(), mean.parameterVector());
                assertNotEquals(
                        java.util.Arrays.toString(logits),
                        java.util.Arrays.toString(LayerwiseInference.run(mean, g, 7, -1).logits()),
                        "sym and mean differ");
            }
        }
    }

    private static MiniBatch batch(TestGraphs.Graph g) {
        MiniBatch b =
                TestGraphs.sample(g, new int[] {0, 1, 2, 4, 5, 9}, new int[] {3, 2}, true, 11);
        b.degrees = new int[b.numNodes()];
        for (int i = 0; i < b.numNodes(); i++) {
            b.degrees[i] = g.inNbrs()[(int) b.nodeIds[i]].length + 1;
        }
        return b;
    }

    @Test
    void gradientsMatchFloat32FiniteDifferences() {
        TestGraphs.Graph g = TestGraphs.random(40, 5, 3, 6, 3, 7);
        MiniBatch b = batch(g);
        try (GnnModel model = GnnModel.create(config(2, 0.0))) {
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
            double maxErr = 0;
            double maxRef = 0;
            for (int k = 0; k < p.length; k++) {
                maxErr = Math.max(maxErr, Math.abs(grad[k] - fd[k]));
                maxRef = Math.max(maxRef, Math.abs(fd[k]));
            }
            assertTrue(maxRef > 1e-4, "trivially zero gradient");
            assertTrue(maxErr <= 2e-4 + 2e-2 * maxRef, "max error " + maxErr + " of " + maxRef);
        }
    }

    @Test
    void configManifestAndRefusals() {
        ModelConfig cfg = config(2, 0.0);
        assertEquals(GcnNorm.SYM, cfg.gcnNorm());
        assertEquals("sym", cfg.toMap().get("gcnNorm"));
        assertNotEquals(cfg, cfg.withGcnNorm(GcnNorm.MEAN));
        assertThrows(
                IllegalArgumentException.class,
                () ->
                        ModelConfig.builder()
                                .inFeatures(5)
                                .numClasses(3)
                                .build()
                                .withGcnNorm(GcnNorm.SYM),
                "sym needs gcn");
        assertEquals(GcnNorm.MEAN, GcnNorm.parse("MEAN"));
        assertThrows(IllegalArgumentException.class, () -> GcnNorm.parse("both"));
        TestGraphs.Graph g = TestGraphs.random(40, 5, 3, 6, 3, 7);
        MiniBatch b = batch(g);
        b.degrees = null;
        try (GnnModel model = GnnModel.create(cfg)) {
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> model.evaluate(b));
            assertTrue(e.getMessage().contains("--gcn-norm sym needs every node's degree"));
        }
    }
}

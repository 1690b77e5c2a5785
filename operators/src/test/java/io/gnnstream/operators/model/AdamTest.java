package io.gnnstream.operators.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Adam against the textbook form of torch.optim.Adam (L2 decay, bias-corrected moments), in double.
 */
class AdamTest {

    @Test
    void matchesTorchAdamFormulas() {
        double lr = 0.01;
        double wd = 0.05;
        int n = 50;
        Random r = new Random(1);
        float[] p = new float[n];
        double[] ref = new double[n];
        double[] m = new double[n];
        double[] v = new double[n];
        for (int i = 0; i < n; i++) {
            p[i] = (float) r.nextGaussian();
            ref[i] = p[i];
        }
        Adam adam = new Adam(wd, n);
        for (int t = 1; t <= 20; t++) {
            float[] g = new float[n];
            for (int i = 0; i < n; i++) {
                g[i] = (float) (r.nextGaussian() * (i % 5 == 0 ? 1e-3 : 1.0));
            }
            adam.update(p, g, lr);
            for (int i = 0; i < n; i++) {
                double gi = g[i] + wd * ref[i];
                m[i] = 0.9 * m[i] + 0.1 * gi;
                v[i] = 0.999 * v[i] + 0.001 * gi * gi;
                double mHat = m[i] / (1 - Math.pow(0.9, t));
                double vHat = v[i] / (1 - Math.pow(0.999, t));
                ref[i] -= lr * mHat / (Math.sqrt(vHat) + 1e-8);
            }
        }
        assertEquals(20, adam.step);
        for (int i = 0; i < n; i++) {
            assertEquals(ref[i], p[i], 1e-5, "parameter " + i);
        }
    }

    @Test
    void firstStepMovesEachParameterByLearningRate() {
        float[] p = {1f, -2f, 0.5f};
        Adam adam = new Adam(0.0, 3);
        adam.update(p, new float[] {3f, -1e-3f, 0f}, 0.1);
        assertEquals(0.9f, p[0], 1e-6f);
        assertEquals(-1.9f, p[1], 1e-4f);
        assertEquals(0.5f, p[2], 0f);
    }
}

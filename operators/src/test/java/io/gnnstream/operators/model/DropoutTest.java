package io.gnnstream.operators.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DropoutTest {

    /** Keep rate within 5 standard deviations of 1 - p, and kept elements carry 1 / (1 - p). */
    @ParameterizedTest(name = "p={0}")
    @ValueSource(doubles = {0.5, 0.1, 0.2, 0.3, 0.75, 0.9, 1.0 / 65536, 0.99999})
    void keepRateAndScale(double p) {
        Dropout d = Dropout.of(3, 7, 1, p);
        int n = 1 << 20;
        float[] s = new float[n];
        d.fillScales(12345, n, s);
        float scale = (float) (1.0 / (1.0 - p));
        long kept = 0;
        for (float v : s) {
            assertTrue(v == 0f || v == scale, "multiplier " + v);
            kept += v == 0f ? 0 : 1;
        }
        double q = 1.0 - Math.round(p * 65536) / 65536.0;
        double sd = Math.sqrt(n * q * (1 - q));
        assertEquals(n * q, kept, 5 * sd + 1, "kept " + kept + " of " + n);
    }

    @Test
    void noDropoutIsNull() {
        assertNull(Dropout.of(1, 2, 3, 0.0));
    }

    /** Any split of a range, at any offset, gives each element the multiplier it gets alone. */
    @Test
    void elementsDependOnlyOnTheirIndex() {
        Dropout d = Dropout.of(11, 5, 0, 0.3);
        int n = 1000;
        long first = (1L << 33) + 3;
        float[] single = new float[1];
        float[] expected = new float[n];
        for (int e = 0; e < n; e++) {
            d.fillScales(first + e, 1, single);
            expected[e] = single[0];
        }
        for (int split : new int[] {0, 1, 5, 7, 8, 9, 63, 64, 65, 200, 999}) {
            float[] got = new float[n + 10];
            d.fillScales(first, split, got, 10);
            d.fillScales(first + split, n - split, got, 10 + split);
            float[] part = new float[n];
            System.arraycopy(got, 10, part, 0, n);
            assertArrayEquals(expected, part, "split at " + split);
        }
    }

    @Test
    void masksDifferBySeedStepAndLayerAndAreReproducible() {
        int n = 4096;
        float[] a = fill(Dropout.of(1, 2, 0, 0.5), n);
        assertArrayEquals(a, fill(Dropout.of(1, 2, 0, 0.5), n));
        assertNotEquals(0, mismatches(a, fill(Dropout.of(2, 2, 0, 0.5), n)));
        assertNotEquals(0, mismatches(a, fill(Dropout.of(1, 3, 0, 0.5), n)));
        assertNotEquals(0, mismatches(a, fill(Dropout.of(1, 2, 1, 0.5), n)));
    }

    /**
     * Neighbouring elements and words are uncorrelated: pairs agree about half the time at p = 0.5.
     */
    @Test
    void adjacentElementsAreIndependent() {
        int n = 1 << 18;
        float[] s = fill(Dropout.of(9, 1, 0, 0.5), n);
        for (int lag : new int[] {1, 8, 64, 4096}) {
            int agree = 0;
            for (int e = 0; e + lag < n; e++) {
                agree += (s[e] == 0f) == (s[e + lag] == 0f) ? 1 : 0;
            }
            double frac = (double) agree / (n - lag);
            assertEquals(0.5, frac, 0.01, "lag " + lag);
        }
    }

    private static float[] fill(Dropout d, int n) {
        float[] s = new float[n];
        d.fillScales(0, n, s);
        return s;
    }

    private static int mismatches(float[] a, float[] b) {
        int m = 0;
        for (int i = 0; i < a.length; i++) {
            m += a[i] == b[i] ? 0 : 1;
        }
        return m;
    }
}

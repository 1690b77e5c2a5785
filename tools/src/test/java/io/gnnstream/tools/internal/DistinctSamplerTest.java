package io.gnnstream.tools.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class DistinctSamplerTest {

    @Test
    void drawsSortedDistinctValuesInRangeOnBothPaths() {
        DistinctSampler sampler = new DistinctSampler();
        SplittableRandom rng = new SplittableRandom(3);
        int[][] cases = {
            {0, 0}, {0, 5}, {1, 1}, {3, 10}, {5, 10}, {6, 10}, {10, 10}, {999, 1000}, {200, 100_000}
        };
        for (int[] c : cases) {
            int k = c[0];
            int m = c[1];
            int[] sample = sampler.sample(rng, k, m);
            for (int i = 0; i < k; i++) {
                assertTrue(sample[i] >= 0 && sample[i] < m, "in range");
                assertTrue(
                        i == 0 || sample[i] > sample[i - 1],
                        "ascending and distinct for k=" + k + ", m=" + m);
            }
        }
    }

    @Test
    void isUniformOverValues() {
        DistinctSampler sampler = new DistinctSampler();
        SplittableRandom rng = new SplittableRandom(5);
        int m = 20;
        int rounds = 20_000;
        for (int k : new int[] {4, 15}) {
            int[] hits = new int[m];
            for (int r = 0; r < rounds; r++) {
                int[] sample = sampler.sample(rng, k, m);
                for (int i = 0; i < k; i++) {
                    hits[sample[i]]++;
                }
            }
            double expected = (double) rounds * k / m;
            for (int h : hits) {
                assertEquals(expected, h, 0.05 * expected, "k=" + k);
            }
        }
    }

    @Test
    void rejectsImpossibleRequests() {
        DistinctSampler sampler = new DistinctSampler();
        assertThrows(
                IllegalArgumentException.class,
                () -> sampler.sample(new SplittableRandom(1), 4, 3));
    }
}

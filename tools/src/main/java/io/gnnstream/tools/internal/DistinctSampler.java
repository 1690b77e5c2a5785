package io.gnnstream.tools.internal;

import java.util.Arrays;
import java.util.random.RandomGenerator;

/**
 * Uniform random k-subsets of {@code [0, m)}, returned sorted, in O(k log k) time and O(k) reused
 * memory. Small subsets are drawn with replacement and de-duplicated by sorting, re-drawing only
 * the shortfall (by symmetry the result is a uniform subset); a subset larger than half of the
 * range is the complement of a uniform small one, so a hub whose in-degree nearly exhausts its
 * candidates never degenerates into endless rejections. No hash set is needed.
 */
public final class DistinctSampler {

    private int[] draws = new int[64];
    private int[] complement = new int[64];

    /**
     * Draws {@code k} distinct values of {@code [0, m)}; they are the first {@code k} entries of
     * the returned array, ascending, valid until the next call.
     */
    public int[] sample(RandomGenerator rng, int k, int m) {
        if (k < 0 || k > m) {
            throw new IllegalArgumentException(
                    "cannot draw " + k + " distinct values from [0, " + m + ")");
        }
        if (2L * k <= m) {
            return drawSorted(rng, k, m);
        }
        int excluded = m - k;
        int[] skip = drawSorted(rng, excluded, m);
        complement = ensure(complement, k);
        int out = 0;
        int s = 0;
        for (int value = 0; value < m; value++) {
            if (s < excluded && skip[s] == value) {
                s++;
            } else {
                complement[out++] = value;
            }
        }
        return complement;
    }

    private int[] drawSorted(RandomGenerator rng, int k, int m) {
        draws = ensure(draws, k);
        int unique = 0;
        while (unique < k) {
            for (int i = unique; i < k; i++) {
                draws[i] = rng.nextInt(m);
            }
            Arrays.sort(draws, 0, k);
            unique = 1;
            for (int i = 1; i < k; i++) {
                if (draws[i] != draws[unique - 1]) {
                    draws[unique++] = draws[i];
                }
            }
        }
        return draws;
    }

    private static int[] ensure(int[] buffer, int size) {
        return buffer.length >= size ? buffer : new int[Math.max(size, buffer.length * 2)];
    }
}

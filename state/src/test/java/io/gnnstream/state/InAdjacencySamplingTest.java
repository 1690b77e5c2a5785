package io.gnnstream.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Statistics of the slot choice behind {@link InAdjacency#sample}; the RocksDB path is tested in
 * operators.
 */
class InAdjacencySamplingTest {

    @Test
    void choosesDistinctSortedSlotsInRange() {
        SplittableRandom random = new SplittableRandom(1);
        for (int trial = 0; trial < 1000; trial++) {
            int n = 1 + random.nextInt(500);
            int k = 1 + random.nextInt(n);
            int[] slots = InAdjacency.chooseSlots(n, k, random);
            assertEquals(k, slots.length);
            Set<Integer> seen = new HashSet<>();
            for (int i = 0; i < k; i++) {
                assertTrue(slots[i] >= 0 && slots[i] < n);
                assertTrue(seen.add(slots[i]), "duplicate slot");
                if (i > 0) {
                    assertTrue(slots[i - 1] < slots[i]);
                }
            }
        }
    }

    /**
     * Every slot is chosen with probability k/n: chi-square over 50 slots, 49 degrees of freedom.
     */
    @Test
    void everySlotIsEquallyLikely() {
        int n = 50;
        int k = 10;
        int draws = 40_000;
        long[] counts = new long[n];
        SplittableRandom random = new SplittableRandom(7);
        for (int d = 0; d < draws; d++) {
            for (int s : InAdjacency.chooseSlots(n, k, random)) {
                counts[s]++;
            }
        }
        double expected = (double) draws * k / n;
        double chi2 = 0;
        for (long c : counts) {
            chi2 += (c - expected) * (c - expected) / expected;
        }
        // 99.9th percentile of chi-square with 49 degrees of freedom is about 85.4.
        assertTrue(chi2 < 85.4, "chi-square " + chi2);
    }

    /**
     * Pairs are uniform too (a k-subset, not just uniform marginals): chi-square over all pairs of
     * 8 slots.
     */
    @Test
    void everyPairIsEquallyLikely() {
        int n = 8;
        int draws = 56_000;
        long[][] pairs = new long[n][n];
        SplittableRandom random = new SplittableRandom(11);
        for (int d = 0; d < draws; d++) {
            int[] s = InAdjacency.chooseSlots(n, 2, random);
            pairs[s[0]][s[1]]++;
        }
        double expected = draws / 28.0;
        double chi2 = 0;
        for (int i = 0; i < n; i++) {
            for (int j = i + 1; j < n; j++) {
                chi2 += (pairs[i][j] - expected) * (pairs[i][j] - expected) / expected;
            }
        }
        // 99.9th percentile of chi-square with 27 degrees of freedom is about 55.5.
        assertTrue(chi2 < 55.5, "chi-square " + chi2);
    }
}

package io.gnnstream.tools.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import org.junit.jupiter.api.Test;

class FeistelPermutationTest {

    @Test
    void isABijectionWithItsInverse() {
        for (int n : new int[] {1, 2, 3, 7, 64, 1000, 4097}) {
            FeistelPermutation p = new FeistelPermutation(n, 11);
            boolean[] hit = new boolean[n];
            for (int x = 0; x < n; x++) {
                long y = p.apply(x);
                assertFalse(hit[(int) y], "value " + y + " hit twice for n=" + n);
                hit[(int) y] = true;
                assertEquals(x, p.inverse(y));
            }
        }
    }

    @Test
    void dependsOnTheSeedAndMovesMostValues() {
        int n = 10_000;
        FeistelPermutation a = new FeistelPermutation(n, 1);
        FeistelPermutation b = new FeistelPermutation(n, 2);
        int fixed = 0;
        int same = 0;
        for (int x = 0; x < n; x++) {
            fixed += a.apply(x) == x ? 1 : 0;
            same += a.apply(x) == b.apply(x) ? 1 : 0;
        }
        assertNotEquals(n, same);
        assertEquals(0, fixed, 10);
        assertEquals(0, same, 10);
    }
}

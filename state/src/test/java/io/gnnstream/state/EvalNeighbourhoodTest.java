package io.gnnstream.state;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** The bottom-k neighbourhood of {@link EvalNeighbourhood} against a sort, and its stability. */
class EvalNeighbourhoodTest {

    @Test
    void holdsEveryNeighbourInOrderUpToTheFanout() {
        long[] ids = {9, 4, 7, 4};
        assertArrayEquals(new int[] {0, 1, 2, 3}, EvalNeighbourhood.select(1, ids, 4));
        assertArrayEquals(new int[] {0, 1, 2, 3}, EvalNeighbourhood.select(1, ids, 100));
        assertArrayEquals(new int[] {0, 1, 2, 3}, EvalNeighbourhood.select(1, ids, -1));
        assertSame(ids, EvalNeighbourhood.neighbours(1, ids, -1));
        assertEquals(0, EvalNeighbourhood.select(1, new long[0], 3).length);
        assertEquals(0, EvalNeighbourhood.select(1, ids, 0).length);
    }

    /** The rank is a fixed function of the two ids: predictions of later builds depend on it. */
    @Test
    void theRankIsAFixedHashOfTheTwoIds() {
        assertEquals(0L, EvalNeighbourhood.rank(0, 0));
        assertEquals(
                Mix.mix64(Mix.mix64(3) + 5 * 0x9E3779B97F4A7C15L), EvalNeighbourhood.rank(3, 5));
        assertEquals(6869446166584666695L, EvalNeighbourhood.rank(1, 2));
        assertNotEquals(EvalNeighbourhood.rank(1, 2), EvalNeighbourhood.rank(2, 1));
        Set<Long> ranks = new HashSet<>();
        for (long u = 0; u < 100_000; u++) {
            ranks.add(EvalNeighbourhood.rank(77, u));
        }
        assertEquals(100_000, ranks.size(), "distinct neighbours of a vertex never tie");
    }

    @Test
    void selectsTheFanoutOfSmallestRankInAscendingOrder() {
        SplittableRandom random = new SplittableRandom(3);
        for (int trial = 0; trial < 300; trial++) {
            long vertex = random.nextLong(1_000_000);
            int n = 1 + random.nextInt(400);
            int k = random.nextInt(n + 5);
            long[] ids = random.longs(n, 0, 1_000_000).toArray();
            assertArrayEquals(bySort(vertex, ids, k), EvalNeighbourhood.neighbours(vertex, ids, k));
            int[] chosen = EvalNeighbourhood.select(vertex, ids, k);
            assertEquals(Math.min(n, k), chosen.length);
        }
    }

    @Test
    void dependsOnTheSetOfNeighboursOnly() {
        SplittableRandom random = new SplittableRandom(5);
        long[] ids = LongStream.range(0, 3000).map(i -> i * 7 + 11).toArray();
        long[] expected = EvalNeighbourhood.neighbours(42, ids, 100);
        for (int trial = 0; trial < 20; trial++) {
            long[] shuffled = ids.clone();
            for (int i = shuffled.length - 1; i > 0; i--) {
                int j = random.nextInt(i + 1);
                long t = shuffled[i];
                shuffled[i] = shuffled[j];
                shuffled[j] = t;
            }
            assertArrayEquals(expected, EvalNeighbourhood.neighbours(42, shuffled, 100));
        }
        assertTrue(
                !Arrays.equals(expected, EvalNeighbourhood.neighbours(43, ids, 100)),
                "another vertex ranks the same neighbours otherwise");
    }

    @Test
    void anAddedOrRemovedNeighbourChangesAtMostOneMemberInAndOneOut() {
        SplittableRandom random = new SplittableRandom(9);
        long vertex = 1234;
        int k = 16;
        long[] ids = random.longs(200, 0, 1L << 40).distinct().toArray();
        int changed = 0;
        for (int step = 0; step < 500; step++) {
            long[] next;
            if (random.nextBoolean()) {
                next = Arrays.copyOf(ids, ids.length + 1);
                next[ids.length] = random.nextLong(1L << 40) | (1L << 41);
            } else {
                int drop = random.nextInt(ids.length);
                next = new long[ids.length - 1];
                System.arraycopy(ids, 0, next, 0, drop);
                System.arraycopy(ids, drop + 1, next, drop, ids.length - drop - 1);
            }
            Set<Long> before = set(EvalNeighbourhood.neighbours(vertex, ids, k));
            Set<Long> after = set(EvalNeighbourhood.neighbours(vertex, next, k));
            Set<Long> in = new HashSet<>(after);
            in.removeAll(before);
            Set<Long> out = new HashSet<>(before);
            out.removeAll(after);
            assertTrue(in.size() <= 1 && out.size() <= 1, "in " + in + ", out " + out);
            changed += in.size() + out.size() > 0 ? 1 : 0;
            ids = next;
        }
        assertTrue(changed > 0 && changed < 250, "changed " + changed + " times of 500");
    }

    /** A repeated id (a list that holds it twice) ties with itself and stays next to itself. */
    @Test
    void repeatedIdsTieAndSortBySmallerId() {
        long[] ids = LongStream.range(0, 50).flatMap(i -> LongStream.of(i, i)).toArray();
        long[] chosen = EvalNeighbourhood.neighbours(5, ids, 20);
        assertArrayEquals(bySort(5, ids, 20), chosen);
        for (int i = 0; i < chosen.length; i += 2) {
            assertEquals(chosen[i], chosen[i + 1]);
        }
    }

    /** Hub-sized lists, with and without repeated ids, and the bound of their selection. */
    @Test
    void selectsFromHubSizedListsAndBoundsTheSelection() {
        SplittableRandom random = new SplittableRandom(11);
        for (int trial = 0; trial < 40; trial++) {
            long vertex = random.nextLong(1L << 40);
            int n = 4_097 + random.nextInt(20_000);
            int k = 1 + random.nextInt(n - 1);
            long[] ids =
                    trial % 4 == 0
                            ? random.longs(n, 0, n / 2).toArray()
                            : random.longs(n, 0, 1L << 40).toArray();
            long[] expected = bySort(vertex, ids, k);
            assertArrayEquals(expected, EvalNeighbourhood.neighbours(vertex, ids, k));
            int[] chosen = EvalNeighbourhood.select(vertex, ids, k);
            for (int i = 0; i < k; i++) {
                assertEquals(expected[i], ids[chosen[i]]);
            }
            long[] members = EvalNeighbourhood.members(vertex, ids, k);
            long[] sortedExpected = expected.clone();
            Arrays.sort(members);
            Arrays.sort(sortedExpected);
            assertArrayEquals(sortedExpected, members, "the same neighbours, in another order");
        }
    }

    /** The reference: sort every neighbour by (rank, id) and keep the first {@code k}. */
    private static long[] bySort(long vertex, long[] ids, int k) {
        if (k >= ids.length) {
            return ids.clone();
        }
        return Arrays.stream(ids)
                .boxed()
                .sorted(
                        Comparator.<Long>comparingLong(u -> EvalNeighbourhood.rank(vertex, u))
                                .thenComparingLong(u -> u))
                .limit(k)
                .mapToLong(Long::longValue)
                .toArray();
    }

    private static Set<Long> set(long[] values) {
        Set<Long> s = new HashSet<>();
        for (long v : values) {
            s.add(v);
        }
        return s;
    }
}

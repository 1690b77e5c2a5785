package io.gnnstream.operators.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.state.EvalNeighbourhood;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class HubSelectionChangeTest {

    private static final int FANOUT = 8;

    /** Against the selections before and after, drawn afresh, for batches of either kind. */
    @Test
    void entersAndLeavesAsTheSelectionsDiffer() {
        SplittableRandom random = new SplittableRandom(7);
        int changed = 0;
        for (int trial = 0; trial < 2_000; trial++) {
            long w = random.nextLong(1_000);
            Set<Long> list = new LinkedHashSet<>();
            int degree = FANOUT + 2 + random.nextInt(40);
            while (list.size() < degree) {
                list.add(random.nextLong(10_000));
            }
            long[] before = list.stream().mapToLong(Long::longValue).toArray();
            boolean added = random.nextBoolean();
            int n = 1 + random.nextInt(Math.min(5, degree - FANOUT - 1));
            Set<Long> batch = new LinkedHashSet<>();
            while (batch.size() < n) {
                long u = added ? 10_000 + random.nextLong(10_000) : before[random.nextInt(degree)];
                batch.add(u);
            }
            long[] sources = batch.stream().mapToLong(Long::longValue).toArray();
            long[] after =
                    added
                            ? LongStream.concat(Arrays.stream(before), Arrays.stream(sources))
                                    .toArray()
                            : Arrays.stream(before).filter(u -> !batch.contains(u)).toArray();
            long[] hoodBefore = sorted(EvalNeighbourhood.neighbours(w, before, FANOUT));
            long[] hoodAfter = sorted(EvalNeighbourhood.neighbours(w, after, FANOUT));

            HubSelectionChange c =
                    HubSelectionChange.of(w, after, sources, added, bound(w, hoodBefore), FANOUT);

            assertTrue(c.consistent());
            assertArrayEquals(
                    Arrays.stream(hoodAfter)
                            .filter(u -> Arrays.binarySearch(hoodBefore, u) < 0)
                            .toArray(),
                    sorted(c.entering()));
            assertArrayEquals(
                    Arrays.stream(hoodBefore)
                            .filter(u -> Arrays.binarySearch(hoodAfter, u) < 0)
                            .toArray(),
                    sorted(c.leaving()));
            assertEquals(bound(w, hoodAfter), c.bound());
            changed += c.entering().length > 0 ? 1 : 0;
            long[] shortOfIt =
                    Arrays.stream(hoodBefore)
                            .map(u -> EvalNeighbourhood.rank(w, u))
                            .sorted()
                            .toArray();
            long shortBound = shortOfIt[FANOUT - 2];
            if (Arrays.stream(sources).anyMatch(u -> EvalNeighbourhood.rank(w, u) <= shortBound)) {
                // A bound that is not the selection's (one member short of it) is found out.
                assertFalse(
                        HubSelectionChange.of(w, after, sources, added, shortBound, FANOUT)
                                .consistent());
            }
        }
        assertTrue(changed > 200, "batches that changed a selection: " + changed);
    }

    private static long bound(long w, long[] hood) {
        return Arrays.stream(hood).map(u -> EvalNeighbourhood.rank(w, u)).max().orElseThrow();
    }

    private static long[] sorted(long[] ids) {
        long[] s = ids.clone();
        Arrays.sort(s);
        return s;
    }
}

package io.gnnstream.operators.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.state.EvalNeighbourhood;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class HubSelectionsTest {

    private static final int FANOUT = 8;

    /**
     * A hub's list takes random batches of additions and removals; each batch applied to the cached
     * entry says what {@link HubSelectionChange#of} says from the whole list, and an entry dropped
     * for too few ranks is made again from the list.
     */
    @Test
    void eachBatchChangesTheSelectionAsAPassOverTheListSays() {
        SplittableRandom random = new SplittableRandom(11);
        HubSelections hubs = new HubSelections(FANOUT, 1 << 20);
        int hits = 0;
        int refills = 0;
        int changed = 0;
        for (int hub = 0; hub < 40; hub++) {
            long w = random.nextLong(1_000);
            LinkedHashSet<Long> list = new LinkedHashSet<>();
            // Some lists fit the entry whole (complete), others hold far more than it.
            int degree = FANOUT + 2 + random.nextInt(hub % 2 == 0 ? 40 : 400);
            while (list.size() < degree) {
                list.add(random.nextLong(100_000));
            }
            hubs.fill(w, toArray(list));
            for (int step = 0; step < 300; step++) {
                // Every fourth hub mostly loses in-neighbours, draining its entry's extra ranks.
                boolean added =
                        random.nextInt(10) < (hub % 4 == 1 ? 2 : 5) || list.size() <= FANOUT + 6;
                int n = 1 + random.nextInt(5);
                LinkedHashSet<Long> batch = new LinkedHashSet<>();
                List<Long> members = new ArrayList<>(list);
                while (batch.size() < n) {
                    batch.add(
                            added
                                    ? 100_000 + random.nextLong(100_000)
                                    : members.get(random.nextInt(members.size())));
                }
                batch.removeIf(u -> added && list.contains(u));
                if (batch.isEmpty()) {
                    continue;
                }
                long boundBefore = bound(w, toArray(list));
                if (added) {
                    list.addAll(batch);
                } else {
                    list.removeAll(batch);
                }
                long[] sources = toArray(batch);
                long[] after = toArray(list);
                HubSelectionChange expected =
                        HubSelectionChange.of(w, after, sources, added, boundBefore, FANOUT);
                HubSelectionChange cached = hubs.apply(w, sources, added);
                if (cached == null) {
                    hubs.fill(w, after);
                    refills++;
                    continue;
                }
                hits++;
                assertEquals(boundBefore, cached.boundBefore());
                assertEquals(expected.bound(), cached.bound());
                assertArrayEquals(sorted(expected.entering()), sorted(cached.entering()));
                assertArrayEquals(sorted(expected.leaving()), sorted(cached.leaving()));
                assertEquals(0, cached.ranked());
                changed += cached.entering().length > 0 ? 1 : 0;
            }
        }
        assertTrue(hits > 5_000, "batches applied to an entry: " + hits);
        assertTrue(refills > 5, "entries made again: " + refills);
        assertTrue(changed > 1_000, "batches that changed a selection: " + changed);
    }

    @Test
    void anUnknownHubOrAForgottenOneHasNoEntry() {
        HubSelections hubs = new HubSelections(FANOUT, 1 << 20);
        long[] list = new long[20];
        Arrays.setAll(list, i -> 100 + i);
        assertNull(hubs.apply(1, new long[] {7}, true));
        hubs.fill(1, list);
        assertNotNull(hubs.apply(1, new long[] {7}, true));
        hubs.forget(1);
        assertNull(hubs.apply(1, new long[] {8}, true));
        // A list of no more than the fanout is no hub's: no entry.
        hubs.fill(2, Arrays.copyOf(list, FANOUT));
        assertNull(hubs.apply(2, new long[] {9}, true));
    }

    @Test
    void entriesBeyondTheBudgetAreDroppedEldestFirst() {
        long entry = HubSelections.ENTRY_OVERHEAD_BYTES + 16L * (FANOUT + 64 + 1);
        HubSelections hubs = new HubSelections(FANOUT, 2 * entry);
        long[] list = new long[20];
        Arrays.setAll(list, i -> 100 + i);
        hubs.fill(1, list);
        hubs.fill(2, list);
        assertNotNull(hubs.apply(1, new long[] {7}, true)); // 1 is now the latest used
        hubs.fill(3, list);
        assertNull(hubs.apply(2, new long[] {7}, true));
        assertNotNull(hubs.apply(1, new long[] {8}, true));
        assertNotNull(hubs.apply(3, new long[] {7}, true));
    }

    @Test
    void aBatchThatCouldPushMembersOutOfTheEntryDropsIt() {
        HubSelections hubs = new HubSelections(FANOUT, 1 << 20);
        long[] list = new long[20];
        Arrays.setAll(list, i -> 100 + i);
        hubs.fill(1, list);
        long[] batch = new long[65];
        Arrays.setAll(batch, i -> 1_000 + i);
        assertNull(hubs.apply(1, batch, true));
        assertNull(hubs.apply(1, new long[] {7}, true));
    }

    private static long bound(long w, long[] list) {
        return Arrays.stream(EvalNeighbourhood.neighbours(w, list, FANOUT))
                .map(u -> EvalNeighbourhood.rank(w, u))
                .max()
                .getAsLong();
    }

    private static long[] toArray(java.util.Collection<Long> c) {
        return c.stream().mapToLong(Long::longValue).toArray();
    }

    private static long[] sorted(long[] a) {
        long[] s = a.clone();
        Arrays.sort(s);
        return s;
    }
}

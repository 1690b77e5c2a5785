package io.gnnstream.operators.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FeatureCacheDirectoryTest {

    @Test
    void placesVerticesInItsOwnSlotsAndEvictsTheUnusedFirst() {
        FeatureCacheDirectory d = new FeatureCacheDirectory(10, 3, 9L);
        Set<Integer> slots = new HashSet<>();
        for (long v = 1; v <= 3; v++) {
            assertEquals(-1, d.lookup(v));
            slots.add(d.assign(v));
        }
        assertEquals(Set.of(10, 11, 12), slots, "the slots from firstSlot on");
        int slotOf2 = d.lookup(2);
        int slotOf4 = d.assign(4);
        assertNotEquals(slotOf2, slotOf4, "vertex 2 was used since the hand passed: not evicted");
        assertEquals(-1, d.lookup(1), "vertex 1 was not: evicted for vertex 4");
        assertEquals(slotOf4, d.lookup(4));
        assertEquals(slotOf2, d.lookup(2));
        assertEquals(3, d.size());
    }

    /** A grouped lookup finds the same slots and counts its hits as uses, as single lookups do. */
    @Test
    void lookupAllFindsTheSlotsAndCountsItsHitsAsUses() {
        FeatureCacheDirectory d = new FeatureCacheDirectory(10, 40, 9L);
        for (long v = 0; v < 40; v++) {
            d.assign(v * 3);
        }
        long[] vertices = new long[60];
        for (int i = 0; i < vertices.length; i++) {
            vertices[i] = i;
        }
        int[] slots = d.lookupAll(vertices);
        for (int i = 0; i < vertices.length; i++) {
            assertEquals(i % 3 == 0 ? d.lookup(i) : -1, slots[i], "vertex " + i);
        }
        FeatureCacheDirectory fresh = new FeatureCacheDirectory(0, 2, 1L);
        fresh.assign(1);
        fresh.assign(2);
        fresh.lookupAll(new long[] {2});
        fresh.assign(3);
        assertEquals(-1, fresh.lookup(1), "vertex 1 unused: evicted");
        assertNotEquals(-1, fresh.lookup(2), "vertex 2 was looked up: kept");
    }

    @Test
    void forgetsAnInvalidatedVertexAndReusesItsSlot() {
        FeatureCacheDirectory d = new FeatureCacheDirectory(0, 2, 1L);
        int slot = d.assign(7);
        d.assign(8);
        d.invalidate(7);
        d.invalidate(99);
        assertEquals(-1, d.lookup(7));
        assertEquals(1, d.size());
        assertEquals(slot, d.assign(9), "the freed slot comes first");
        assertEquals(1L, d.epoch());
    }

    /**
     * Attributes that change all the time (invalidate, then assign again) reuse the freed slots:
     * the slots ever filled stay at the most vertices held at once, not the whole budget.
     */
    @Test
    void changingAttributesReuseFreedSlotsBeforeUntouchedOnes() {
        FeatureCacheDirectory d = new FeatureCacheDirectory(0, 1000, 1L);
        Set<Integer> used = new HashSet<>();
        for (long v = 0; v < 10; v++) {
            used.add(d.assign(v));
        }
        for (int round = 0; round < 500; round++) {
            long v = round % 10;
            d.invalidate(v);
            used.add(d.assign(v));
        }
        assertEquals(10, used.size(), "slots ever filled: " + used);
        used.add(d.assign(10));
        assertEquals(11, used.size(), "a new vertex with none freed: the hand's next slot");
    }

    @Test
    void subtasksShareTheSlotsInDisjointRangesWithTheirOwnEpochs() {
        Set<Integer> slots = new HashSet<>();
        Set<Long> epochs = new HashSet<>();
        for (int subtask = 0; subtask < 3; subtask++) {
            FeatureCacheDirectory d = FeatureCacheDirectory.shareOf(10, 3, subtask);
            epochs.add(d.epoch());
            for (long v = 0; v < 3; v++) {
                slots.add(d.assign(v));
            }
        }
        assertEquals(Set.of(0, 1, 2, 3, 4, 5, 6, 7, 8), slots);
        assertEquals(3, epochs.size());
        assertNull(FeatureCacheDirectory.shareOf(2, 3, 0), "fewer slots than subtasks: no cache");
    }

    @Test
    void rejectsAnEmptyRangeAndTheEpochOfNoCache() {
        assertThrows(IllegalArgumentException.class, () -> new FeatureCacheDirectory(0, 0, 1L));
        assertThrows(IllegalArgumentException.class, () -> new FeatureCacheDirectory(0, 4, 0L));
    }
}

package io.gnnstream.operators.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class VertexValueCacheTest {

    private static final long ONE_BYTE_ENTRY = VertexValueCache.costOf(new byte[1]);

    @Test
    void evictsTheLeastRecentlyUsedValuesBeyondItsBudget() {
        VertexValueCache cache = new VertexValueCache(2 * ONE_BYTE_ENTRY);
        cache.put(1, new byte[] {1});
        cache.put(2, new byte[] {2});
        cache.get(1);
        cache.put(3, new byte[] {3});
        assertEquals(2, cache.size());
        assertNull(cache.get(2), "2 was used least recently");
        assertArrayEquals(new byte[] {1}, cache.get(1));
        assertArrayEquals(new byte[] {3}, cache.get(3));
        assertEquals(2 * ONE_BYTE_ENTRY, cache.bytes());
    }

    @Test
    void aTakenValueLeavesTheCache() {
        VertexValueCache cache = new VertexValueCache(2 * ONE_BYTE_ENTRY);
        cache.put(1, new byte[] {1});
        cache.put(2, new byte[] {2});
        assertArrayEquals(new byte[] {1}, cache.take(1));
        assertNull(cache.take(1));
        assertNull(cache.get(1));
        assertEquals(1, cache.size());
        assertEquals(ONE_BYTE_ENTRY, cache.bytes());
        assertArrayEquals(new byte[] {2}, cache.get(2));
    }

    @Test
    void trimmingEvictsTheLeastRecentlyUsedUntilUnderTheGivenBytes() {
        VertexValueCache cache = new VertexValueCache(3 * ONE_BYTE_ENTRY);
        cache.put(1, new byte[] {1});
        cache.put(2, new byte[] {2});
        cache.put(3, new byte[] {3});
        cache.get(2);
        cache.trimTo(2 * ONE_BYTE_ENTRY);
        assertEquals(2, cache.size());
        assertNull(cache.get(1), "1 was the first unused entry the hand found");
        assertArrayEquals(new byte[] {2}, cache.get(2));
        cache.trimTo(-1);
        assertEquals(0, cache.size());
        assertEquals(0, cache.bytes());
    }

    @Test
    void aLargeValueEvictsAsManySmallOnesAsItNeeds() {
        VertexValueCache cache = new VertexValueCache(3 * ONE_BYTE_ENTRY);
        cache.put(1, new byte[] {1});
        cache.put(2, new byte[] {2});
        cache.put(3, new byte[] {3});
        cache.put(4, new byte[(int) ONE_BYTE_ENTRY + 1]);
        assertNull(cache.get(1));
        assertNull(cache.get(2));
        assertArrayEquals(new byte[] {3}, cache.get(3));
        assertTrue(cache.bytes() <= 3 * ONE_BYTE_ENTRY, "over budget: " + cache.bytes());
    }

    @Test
    void aValueLargerThanTheBudgetIsNotCachedAndDropsItsStaleEntry() {
        VertexValueCache cache = new VertexValueCache(ONE_BYTE_ENTRY);
        cache.put(1, new byte[] {1});
        cache.put(1, new byte[2]);
        assertNull(cache.get(1), "the old value of 1 is stale after a write");
        assertEquals(0, cache.bytes());
    }

    @Test
    void replaceOnlyUpdatesValuesAlreadyCached() {
        VertexValueCache cache = new VertexValueCache(4 * ONE_BYTE_ENTRY);
        cache.put(1, new byte[] {1});
        cache.replace(1, new byte[] {9});
        cache.replace(2, new byte[] {2});
        assertArrayEquals(new byte[] {9}, cache.get(1));
        assertNull(cache.get(2), "a write must not pull a value into the cache");
        assertEquals(ONE_BYTE_ENTRY, cache.bytes());
    }

    @Test
    void invalidateDropsTheEntryAndItsBytes() {
        VertexValueCache cache = new VertexValueCache(4 * ONE_BYTE_ENTRY);
        cache.put(1, new byte[] {1});
        cache.put(2, new byte[] {2});
        cache.invalidate(1);
        cache.invalidate(7);
        assertNull(cache.get(1));
        assertEquals(1, cache.size());
        assertEquals(ONE_BYTE_ENTRY, cache.bytes());
    }

    @Test
    void zeroBudgetCachesNothingAndANegativeOneIsRejected() {
        VertexValueCache cache = new VertexValueCache(0);
        cache.put(1, new byte[] {1});
        assertNull(cache.get(1));
        assertThrows(IllegalArgumentException.class, () -> new VertexValueCache(-1));
    }

    @Test
    void aValueInUseSurvivesAScanOfValuesUsedOnce() {
        VertexValueCache cache = new VertexValueCache(8 * ONE_BYTE_ENTRY);
        cache.put(0, new byte[] {0});
        for (long v = 1; v < 1_000; v++) {
            cache.put(v, new byte[] {1});
            assertArrayEquals(
                    new byte[] {0}, cache.get(0), "hot entry evicted after " + v + " puts");
        }
        assertTrue(cache.bytes() <= 8 * ONE_BYTE_ENTRY);
    }

    /**
     * Random operations against a plain map: a hit is never stale and the byte count stays exact.
     */
    @Test
    void neverReturnsAStaleValueAndKeepsItsByteCountExact() {
        SplittableRandom random = new SplittableRandom(11);
        long budget = 40 * ONE_BYTE_ENTRY;
        VertexValueCache cache = new VertexValueCache(budget);
        Map<Long, byte[]> latest = new HashMap<>();
        for (int op = 0; op < 50_000; op++) {
            long v = random.nextInt(100);
            switch (random.nextInt(4)) {
                case 0 -> {
                    byte[] value = new byte[1 + random.nextInt(20)];
                    value[0] = (byte) op;
                    cache.put(v, value);
                    latest.put(v, value);
                }
                case 1 -> {
                    byte[] value = new byte[] {(byte) op};
                    cache.replace(v, value);
                    latest.put(v, value);
                }
                case 2 -> {
                    cache.invalidate(v);
                    latest.remove(v);
                }
                default -> {
                    byte[] hit = cache.get(v);
                    if (hit != null) {
                        assertTrue(
                                hit == latest.get(v),
                                "stale value for " + v + " after " + op + " operations");
                    }
                }
            }
            assertTrue(cache.bytes() <= budget, "over budget: " + cache.bytes());
        }
        long charged = 0;
        for (long v = 0; v < 100; v++) {
            byte[] hit = cache.get(v);
            if (hit != null) {
                charged += VertexValueCache.costOf(hit);
            }
        }
        assertEquals(charged, cache.bytes());
    }

    /**
     * {@code putAll} and {@code getAll} behave as the same puts and gets one at a time: two caches
     * fed the same operations, one in batches, hold and return the same values.
     */
    @Test
    void batchedPutsAndGetsMatchSingleOnes() {
        SplittableRandom random = new SplittableRandom(5);
        VertexValueCache single = new VertexValueCache(300 * ONE_BYTE_ENTRY);
        VertexValueCache batched = new VertexValueCache(300 * ONE_BYTE_ENTRY);
        for (int round = 0; round < 2_000; round++) {
            int n = random.nextInt(1, 40);
            long[] vertices = new long[n + 3];
            byte[][] values = new byte[n + 3][];
            for (int i = 0; i < n; i++) {
                vertices[i] = random.nextInt(1_000);
                values[i] = new byte[1 + random.nextInt(3)];
            }
            if (random.nextBoolean()) {
                for (int i = 0; i < n; i++) {
                    single.put(vertices[i], values[i]);
                }
                batched.putAll(vertices, values, n);
            } else {
                byte[][] got = new byte[n + 3][];
                batched.getAll(vertices, 1, n, got);
                assertTrue(got[0] == null && got[n] == null, "outside the range");
                for (int i = 1; i < n; i++) {
                    assertTrue(single.get(vertices[i]) == got[i], "vertex " + vertices[i]);
                }
            }
            assertEquals(single.size(), batched.size());
            assertEquals(single.bytes(), batched.bytes());
        }
        long[] all = new long[1_000];
        for (int v = 0; v < all.length; v++) {
            all[v] = v;
        }
        byte[][] got = new byte[all.length][];
        batched.getAll(all, 0, all.length, got);
        for (int v = 0; v < all.length; v++) {
            assertTrue(single.get(v) == got[v], "vertex " + v);
        }
        assertNull(single.get(Long.MIN_VALUE));
        single.put(Long.MIN_VALUE, new byte[1]);
        assertNull(single.get(Long.MIN_VALUE), "never cached");
    }
}

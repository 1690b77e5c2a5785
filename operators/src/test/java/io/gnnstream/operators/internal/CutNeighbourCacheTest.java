package io.gnnstream.operators.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CutNeighbourCacheTest {

    /** Two sites of two partitions each; a vertex's site is its id modulo 2 here. */
    private static final StoreSites SITES = new StoreSites(4, 2);

    private final Map<Long, long[]> stored = new HashMap<>();
    private int loads;
    private final CutNeighbourCache.Load load = u -> {
        loads++;
        return stored.get(u);
    };
    private final CutNeighbourCache.Store store = (u, neighbours) -> {
        if (neighbours == null) {
            stored.remove(u);
        } else {
            stored.put(u, neighbours);
        }
    };

    private CutNeighbourCache cache(long capacity) {
        return new CutNeighbourCache(SITES, v -> (int) (v % 2), capacity, false);
    }

    @Test
    void aSiteIsReportedAtItsFirstAndLastNeighbourOnly() throws Exception {
        CutNeighbourCache cache = cache(100);
        CutNeighbourCache.Entry e = cache.get(0, load);
        assertEquals(-1, cache.add(0, e, 2), "a neighbour in the source's own site");
        assertEquals(1, cache.add(0, e, 3), "the first neighbour in site 1");
        assertEquals(-1, cache.add(0, e, 5), "a second one");
        assertEquals(-1, cache.add(0, e, 3), "a duplicate");
        assertEquals(2, e.inSite(1));
        assertEquals(-1, cache.remove(0, e, 3));
        assertEquals(-1, cache.remove(0, e, 7), "an absent neighbour");
        assertEquals(1, cache.remove(0, e, 5), "the last neighbour in site 1");
        assertEquals(0, e.inSite(0), "the home site is never counted");
        assertArrayEquals(new long[] {2}, e.toArray());
    }

    @Test
    void changesAreWrittenBackAndReloadedWithTheirSiteCounts() throws Exception {
        CutNeighbourCache cache = cache(3);
        CutNeighbourCache.Entry e = cache.get(0, load);
        cache.add(0, e, 9);
        cache.add(0, e, 1);
        cache.add(0, e, 4);
        assertFalse(cache.full());
        cache.writeBack(store, false);
        assertArrayEquals(new long[] {1, 4, 9}, stored.get(0L), "sorted");
        assertSame(e, cache.get(0, load), "kept after a write-back without emptying");
        cache.add(0, e, 11);
        assertTrue(cache.full(), "four neighbours over a capacity of three");
        cache.writeBack(store, true);
        assertEquals(0, cache.cached());
        assertEquals(1, loads);
        CutNeighbourCache.Entry again = cache.get(0, load);
        assertEquals(2, loads, "loaded from the store after emptying");
        assertEquals(3, again.inSite(1));
        assertEquals(-1, cache.remove(0, again, 1));
        assertEquals(-1, cache.remove(0, again, 9));
        assertEquals(1, cache.remove(0, again, 11), "the reloaded counts know the site's last neighbour");
        cache.remove(0, again, 4);
        cache.writeBack(store, false);
        assertNull(stored.get(0L), "an empty entry is cleared");
    }

    @Test
    void onEmptyStateNothingIsLoadedUntilTheCacheIsFirstEmptied() throws Exception {
        stored.put(1L, new long[] {4});
        CutNeighbourCache cache = new CutNeighbourCache(SITES, v -> (int) (v % 2), 1, true);
        cache.add(0, cache.get(0, load), 4);
        assertEquals(0, loads, "a fresh job's state holds nothing to load");
        cache.writeBack(store, true);
        assertEquals(1, cache.get(1, load).inSite(0), "loaded once the cache was emptied");
        assertEquals(1, loads);
    }
}

package io.gnnstream.operators;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.flink.configuration.MemorySize;
import org.junit.jupiter.api.Test;

class RecordCacheTest {

    @Test
    void evictsTheLeastRecentlyUsedRecordBeyondItsCapacity() {
        RecordCache cache = new RecordCache(2);
        cache.put(1, new byte[] {1});
        cache.put(2, new byte[] {2});
        cache.get(1);
        cache.put(3, new byte[] {3});
        assertEquals(2, cache.size());
        assertNull(cache.get(2), "2 was used least recently");
        assertArrayEquals(new byte[] {1}, cache.get(1));
        assertArrayEquals(new byte[] {3}, cache.get(3));
    }

    @Test
    void replaceOnlyUpdatesRecordsAlreadyCached() {
        RecordCache cache = new RecordCache(4);
        cache.put(1, new byte[] {1});
        cache.replace(1, new byte[] {9});
        cache.replace(2, new byte[] {2});
        assertArrayEquals(new byte[] {9}, cache.get(1));
        assertNull(cache.get(2), "a write must not pull a record into the cache");
    }

    @Test
    void zeroCapacityCachesNothing() {
        RecordCache cache = new RecordCache(0);
        cache.put(1, new byte[] {1});
        assertNull(cache.get(1));
    }

    @Test
    void capacityFollowsTheMemoryBudget() {
        int cora = GraphStoreOperator.recordCacheCapacity(MemorySize.parse("64mb"), 1433);
        assertTrue(cora > 2708, "the default budget holds all of Cora, got " + cora);
        assertEquals(0, GraphStoreOperator.recordCacheCapacity(MemorySize.ZERO, 128));
    }
}

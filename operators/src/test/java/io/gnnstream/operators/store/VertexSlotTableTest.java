package io.gnnstream.operators.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class VertexSlotTableTest {

    /**
     * Random puts, overwrites and removals over a small key range (long probe runs, wrapping around
     * the array, growth) agree with a hash map after every operation.
     */
    @Test
    void agreesWithAHashMapUnderRandomPutsAndRemovals() {
        SplittableRandom random = new SplittableRandom(7);
        VertexSlotTable table = new VertexSlotTable(5_000);
        Map<Long, Integer> reference = new HashMap<>();
        for (int op = 0; op < 200_000; op++) {
            long key = random.nextLong(-3_000, 3_000) * 1_024;
            if (random.nextInt(3) == 0) {
                Integer removed = reference.remove(key);
                assertEquals(removed == null ? -1 : removed, table.remove(key), "remove " + key);
            } else if (reference.size() < 5_000 || reference.containsKey(key)) {
                int value = random.nextInt(1 << 20);
                reference.put(key, value);
                table.put(key, value);
            }
            long probe = random.nextLong(-3_000, 3_000) * 1_024;
            assertEquals(reference.getOrDefault(probe, -1), table.get(probe), "get " + probe);
            assertEquals(reference.size(), table.size());
        }
        for (Map.Entry<Long, Integer> e : reference.entrySet()) {
            assertEquals(e.getValue(), table.get(e.getKey()));
        }
    }

    /**
     * Grouped lookups give what single ones give: present and absent keys, long probe runs, ranges
     * that start and end inside a group, and {@link Long#MIN_VALUE}, which is never a key.
     */
    @Test
    void getAllAgreesWithGet() {
        SplittableRandom random = new SplittableRandom(3);
        VertexSlotTable table = new VertexSlotTable(4_000);
        for (int i = 0; i < 4_000; i++) {
            table.put(random.nextLong(0, 6_000) * 1_024, i);
        }
        long[] keys = new long[1_000];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = random.nextLong(0, 6_000) * 1_024;
        }
        keys[17] = Long.MIN_VALUE;
        int from = 5;
        int to = keys.length - VertexSlotTable.GROUP - 3;
        int[] values = new int[keys.length];
        Arrays.fill(values, -7);
        table.getAll(keys, from, to, values);
        int found = 0;
        for (int i = 0; i < keys.length; i++) {
            int expected = i < to - from ? table.get(keys[from + i]) : -7;
            assertEquals(expected, values[i], "key " + (from + i));
            found += values[i] >= 0 ? 1 : 0;
        }
        assertEquals(-1, values[17 - from]);
        assertEquals(-1, table.remove(Long.MIN_VALUE));
        assertTrue(found > 100 && found < to - from, "a mix of hits and misses: " + found);
    }

    @Test
    void holdsItsCapacityAndNoMore() {
        VertexSlotTable table = new VertexSlotTable(3);
        table.put(1, 0);
        table.put(2, 1);
        table.put(3, 2);
        table.put(3, 5);
        assertEquals(5, table.get(3), "an overwrite needs no room");
        assertThrows(IllegalStateException.class, () -> table.put(4, 3));
        assertThrows(IllegalArgumentException.class, () -> table.put(Long.MIN_VALUE, 0));
        assertThrows(IllegalArgumentException.class, () -> table.put(5, -1));
    }
}

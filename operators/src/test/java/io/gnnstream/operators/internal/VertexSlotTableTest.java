package io.gnnstream.operators.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

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

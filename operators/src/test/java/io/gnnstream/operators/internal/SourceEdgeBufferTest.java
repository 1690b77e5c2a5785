package io.gnnstream.operators.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.state.HashPartitioner;
import io.gnnstream.state.VertexPartitioner;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Grouping and order of a drain, for ids that pack into one sort key with the partition and for wider ones. */
class SourceEdgeBufferTest {

    private static final VertexPartitioner PARTITIONER = new HashPartitioner(16);

    @ParameterizedTest
    @ValueSource(longs = {1L << 40, Long.MAX_VALUE})
    void drainsEachSourceOnceInKeyOrderWithItsOperationsInArrivalOrder(long idBound) throws Exception {
        SourceEdgeBuffer buffer = new SourceEdgeBuffer(PARTITIONER, 10_000);
        SplittableRandom random = new SplittableRandom(7);
        Map<Long, List<Long>> expected = new LinkedHashMap<>();
        for (int i = 0; i < 5_000; i++) {
            long source = i % 3 == 0 ? random.nextLong(idBound) : random.nextLong(300);
            long op = random.nextLong(-1_000, 1_000);
            expected.computeIfAbsent(source, s -> new ArrayList<>()).add(op);
            assertFalse(buffer.add(source, PARTITIONER.partition(source), op));
        }
        List<Long> order = new ArrayList<>();
        Map<Long, List<Long>> drained = new LinkedHashMap<>();
        buffer.drain((source, ops, index, from, to) -> {
            order.add(source);
            List<Long> list = new ArrayList<>();
            for (int i = from; i < to; i++) {
                list.add(ops[index[i]]);
            }
            assertEquals(null, drained.put(source, list), "one group per source");
        });
        assertEquals(expected, drained);
        List<Long> keyOrder = new ArrayList<>(order);
        keyOrder.sort(Comparator.<Long>comparingInt(PARTITIONER::partition).thenComparing(Comparator.naturalOrder()));
        assertEquals(keyOrder, order, "partition, then id");
        assertEquals(0, buffer.size());
    }

    @Test
    void reportsFullAtItsCapacity() throws Exception {
        SourceEdgeBuffer buffer = new SourceEdgeBuffer(PARTITIONER, 3);
        assertFalse(buffer.add(1, PARTITIONER.partition(1), 5));
        assertFalse(buffer.add(0, PARTITIONER.partition(0), 6));
        assertTrue(buffer.add(1, PARTITIONER.partition(1), -7));
        List<String> groups = new ArrayList<>();
        buffer.drain((source, ops, index, from, to) -> groups.add(source + ":" + (to - from)));
        assertEquals(2, groups.size());
        assertTrue(groups.contains("1:2") && groups.contains("0:1"));
    }
}

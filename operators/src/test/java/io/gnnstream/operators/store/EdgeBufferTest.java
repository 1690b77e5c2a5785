package io.gnnstream.operators.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.state.HashPartitioner;
import io.gnnstream.state.VertexPartitioner;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class EdgeBufferTest {

    private static final VertexPartitioner ONE_PARTITION = new HashPartitioner(1);

    @Test
    void reportsFullAtCapacityAndDrainsPerVertexInArrivalOrder() throws Exception {
        EdgeBuffer buffer = new EdgeBuffer(4, ONE_PARTITION);
        assertFalse(buffer.add(2, 20));
        assertFalse(buffer.add(1, 10));
        assertFalse(buffer.add(1, 11));
        assertTrue(buffer.add(1, 10), "the fourth edge fills the buffer");
        List<String> written = new ArrayList<>();
        buffer.drain((dst, sources) -> written.add(dst.vertex() + ":" + Arrays.toString(sources)));
        assertEquals(List.of("1:[10, 11, 10]", "2:[20]"), written);
        assertTrue(buffer.isEmpty());
    }

    @Test
    void removalsKeepTheirPlaceAmongTheAdditions() throws Exception {
        EdgeBuffer buffer = new EdgeBuffer(100, ONE_PARTITION);
        buffer.add(1, 10);
        buffer.remove(1, 10);
        buffer.add(2, 20);
        buffer.add(1, 11);
        assertEquals(4, buffer.size());
        List<String> written = new ArrayList<>();
        buffer.drain((dst, ops) -> written.add(dst.vertex() + ":" + Arrays.toString(ops)));
        assertEquals(List.of("1:[10, -11, 11]", "2:[20]"), written, "a removal is -1 - source");
    }

    /** Vertices are written in the order of their RocksDB keys: by partition, then by id. */
    @Test
    void drainsVerticesByPartitionThenId() throws Exception {
        VertexPartitioner partitioner = new HashPartitioner(7);
        EdgeBuffer buffer = new EdgeBuffer(1_000, partitioner);
        long[] destinations = {42, 3, 977, 15, 8, 640, 101, 2, 33, 512, 7, 64};
        for (long dst : destinations) {
            buffer.add(dst, 1);
        }
        List<Long> written = new ArrayList<>();
        buffer.drain((dst, sources) -> written.add(dst.vertex()));
        List<Long> keyOrder =
                LongStream.of(destinations)
                        .boxed()
                        .sorted(
                                Comparator.<Long>comparingInt(partitioner::partition)
                                        .thenComparing(Long::longValue))
                        .collect(Collectors.toList());
        assertEquals(keyOrder, written);
    }
}

package io.gnnstream.operators;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class EdgeBufferTest {

    @Test
    void reportsFullAtCapacityAndDrainsPerVertexInArrivalOrder() throws Exception {
        EdgeBuffer buffer = new EdgeBuffer(4);
        assertFalse(buffer.add(1, 10));
        assertFalse(buffer.add(2, 20));
        assertFalse(buffer.add(1, 11));
        assertTrue(buffer.add(1, 10), "the fourth edge fills the buffer");
        List<String> written = new ArrayList<>();
        buffer.drain((dst, sources) -> written.add(dst + ":" + Arrays.toString(sources)));
        assertEquals(List.of("1:[10, 11, 10]", "2:[20]"), written);
        assertTrue(buffer.isEmpty());
    }

    @Test
    void takeRemovesOneVertexOnly() {
        EdgeBuffer buffer = new EdgeBuffer(100);
        buffer.add(1, 10);
        buffer.add(2, 20);
        buffer.add(1, 11);
        assertArrayEquals(new long[] {10, 11}, buffer.take(1));
        assertNull(buffer.take(1));
        assertEquals(1, buffer.size());
    }
}

package io.gnnstream.operators.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PendingMarksTest {

    @Test
    void takesInFirstMarkOrderAndCoalesces() {
        PendingMarks p = new PendingMarks(2);
        p.mark(0, 7, 100, 0);
        p.mark(0, 3, 101, 0);
        p.mark(0, 7, 90, 0);
        p.mark(0, 5, 102, 0);
        assertEquals(3, p.size());
        long[] v = new long[2];
        long[] t = new long[2];
        assertEquals(2, p.take(0, 2, Long.MAX_VALUE, v, t));
        assertArrayEquals(new long[] {7, 3}, v);
        assertArrayEquals(new long[] {90, 101}, t);
        assertArrayEquals(new long[] {5}, p.vertices(0));
        assertArrayEquals(new long[] {102}, p.times(0, p.vertices(0)));
    }

    @Test
    void marksWaitTheirWindowFromTheirFirstMark() {
        PendingMarks p = new PendingMarks(2);
        p.mark(0, 7, 100, 1_000);
        p.mark(0, 3, 50, 1_010);
        p.mark(0, 7, 40, 1_020); // coalesced: keeps its place and its first mark's time
        p.mark(1, 9, 10, 1_005);
        assertEquals(1_000, p.oldestMarkedAt());
        assertEquals(-1, p.readyLayer(999));
        assertEquals(0, p.readyLayer(1_000), "layer 1 waits, though its change is older");
        assertEquals(1, p.readyLayer(1_005));
        long[] v = new long[4];
        long[] t = new long[4];
        assertEquals(1, p.take(0, 4, 1_009, v, t));
        assertEquals(7, v[0]);
        assertEquals(40, t[0]);
        assertEquals(1, p.readyLayer(1_009));
        assertEquals(1, p.take(0, 4, 1_010, v, t));
        assertEquals(3, v[0]);
        assertEquals(0, p.take(0, 4, 2_000, v, t));
        assertEquals(1_005, p.oldestMarkedAt());
        assertEquals(1, p.take(1, 4, 2_000, v, t));
        assertTrue(p.isEmpty());
        assertEquals(Long.MAX_VALUE, p.oldestMarkedAt());
    }

    @Test
    void aLaterLayerWithAnOlderChangeGoesFirst() {
        PendingMarks p = new PendingMarks(3);
        assertEquals(-1, p.readyLayer(Long.MAX_VALUE));
        p.mark(1, 4, 50, 0);
        for (long v = 0; v < 100; v++) {
            p.mark(0, v, 60 + v, 0);
        }
        assertEquals(1, p.readyLayer(Long.MAX_VALUE));
        long[] v = new long[8];
        long[] t = new long[8];
        p.take(1, 8, Long.MAX_VALUE, v, t);
        assertEquals(0, p.readyLayer(Long.MAX_VALUE));
        p.take(0, 8, Long.MAX_VALUE, v, t);
        p.mark(2, 9, 61, 0);
        assertEquals(2, p.readyLayer(Long.MAX_VALUE));
        p.take(2, 8, Long.MAX_VALUE, v, t);
        assertEquals(0, p.readyLayer(Long.MAX_VALUE));
        assertEquals(92, p.size());
        assertTrue(!p.isEmpty());
    }
}

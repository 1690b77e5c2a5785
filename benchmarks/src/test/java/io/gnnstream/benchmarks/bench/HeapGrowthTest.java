package io.gnnstream.benchmarks.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class HeapGrowthTest {

    private static final String FIRST =
            "21798:\n"
                    + " num     #instances         #bytes  class name (module)\n"
                    + "-------------------------------------------------------\n"
                    + "   1:         10000        4000000  [B (java.base@17.0.9)\n"
                    + "   2:          2000          64000  java.lang.String (java.base@17.0.9)\n"
                    + "   3:           100           3200  io.gnnstream.X\n"
                    + "Total         12100        4067200\n";

    private static final String LAST =
            "21798:\n"
                    + "   1:         10500        9000000  [B (java.base@17.0.9)\n"
                    + "   2:          1000          32000  java.lang.String (java.base@17.0.9)\n"
                    + "   3:           300           9600  io.gnnstream.Y\n"
                    + "Total         11800        9041600\n";

    @Test
    void namesTheClassesThatGrewMostFirst() {
        HeapGrowth.Histogram first = HeapGrowth.parse(FIRST);
        HeapGrowth.Histogram last = HeapGrowth.parse(LAST);
        assertEquals(4067200, first.total());
        List<HeapGrowth.ClassGrowth> top = HeapGrowth.top(first, last, 3);
        assertEquals("[B", top.get(0).name());
        assertEquals(5_000_000, top.get(0).bytes());
        assertEquals(500, top.get(0).lastCount() - top.get(0).firstCount());
        assertEquals("io.gnnstream.Y", top.get(1).name());
        assertEquals(9600, top.get(1).bytes());
        assertEquals(-3200, top.get(2).bytes());
    }
}

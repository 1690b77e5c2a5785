package io.gnnstream.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.carrotsearch.hppc.LongIntHashMap;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class PartitionMapTest {

    @Test
    void writesAndReadsAnAssignment() throws IOException {
        LongIntHashMap a = new LongIntHashMap();
        a.put(7, 3);
        a.put(1, 0);
        a.put(1L << 40, 2);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new PartitionMap(4, a).write(out);
        String text = out.toString(StandardCharsets.UTF_8);
        assertTrue(
                text.startsWith(PartitionMap.HEADER + " partitions=4 vertices=3\n1,0\n7,3\n"),
                text);
        PartitionMap read = PartitionMap.read(new ByteArrayInputStream(out.toByteArray()));
        assertEquals(4, read.partitions());
        assertEquals(3, read.size());
        assertEquals(3, read.partitionOf(7));
        assertEquals(2, read.partitionOf(1L << 40));
        assertEquals(-1, read.partitionOf(8));
    }

    @Test
    void rejectsMalformedMaps() {
        assertThrows(IOException.class, () -> read("1,0\n"));
        assertThrows(IOException.class, () -> read(PartitionMap.HEADER + " vertices=1\n1,0\n"));
        assertThrows(IOException.class, () -> read(PartitionMap.HEADER + " partitions=2\n1;0\n"));
        assertThrows(IOException.class, () -> read(PartitionMap.HEADER + " partitions=2\n1,2\n"));
    }

    private static PartitionMap read(String text) throws IOException {
        return PartitionMap.read(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
    }
}

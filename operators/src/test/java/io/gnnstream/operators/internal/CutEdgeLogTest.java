package io.gnnstream.operators.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.carrotsearch.hppc.LongHashSet;
import com.carrotsearch.hppc.LongObjectHashMap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class CutEdgeLogTest {

    /** Chunks in a map, as keyed list state holds them. */
    private final Map<Integer, List<byte[]>> stored = new HashMap<>();

    private final CutEdgeLog.Chunks chunks =
            new CutEdgeLog.Chunks() {
                @Override
                public Iterable<byte[]> read(int partition) {
                    return stored.getOrDefault(partition, List.of());
                }

                @Override
                public void append(int partition, byte[] chunk) {
                    stored.computeIfAbsent(partition, p -> new ArrayList<>()).add(chunk);
                }

                @Override
                public void replace(int partition, List<byte[]> replacement) {
                    stored.put(partition, new ArrayList<>(replacement));
                }
            };

    private static long add(long v) {
        return v;
    }

    private static long remove(long v) {
        return -v - 1;
    }

    private static Set<Long> out(LongObjectHashMap<LongHashSet> edges, long source) {
        Set<Long> out = new TreeSet<>();
        if (edges.containsKey(source)) {
            edges.get(source).forEach((com.carrotsearch.hppc.procedures.LongProcedure) out::add);
        }
        return out;
    }

    @Test
    void compactionReplaysChunksAndTailInOrder() throws Exception {
        CutEdgeLog log = new CutEdgeLog(4, 1000);
        log.append(1, 10, add(20));
        log.append(1, 10, add(21));
        log.append(1, 10, add(20));
        log.append(2, 30, add(40));
        log.flush(chunks);
        assertEquals(0, log.tailSize());
        assertEquals(1, stored.get(1).size());
        log.append(1, 10, remove(20));
        log.append(1, 10, remove(22));
        log.append(1, 11, add(20));
        log.append(1, 11, remove(20));
        log.append(1, 11, add(20));
        log.flush(chunks);
        log.append(1, 10, add(0));
        assertTrue(log.hasTail(1));

        LongObjectHashMap<LongHashSet> edges = log.compact(1, chunks);
        assertEquals(
                Set.of(0L, 21L),
                out(edges, 10),
                "a duplicate counts once, a removal of an absent edge is ignored");
        assertEquals(Set.of(20L), out(edges, 11), "operations apply in their order");
        assertFalse(log.hasTail(1));
        assertEquals(1, stored.get(1).size(), "one chunk in place of the log");
        assertEquals(Set.of(40L), out(log.compact(2, chunks), 30), "partitions are apart");

        CutEdgeLog restored = new CutEdgeLog(4, 1000);
        assertEquals(
                out(edges, 10),
                out(restored.compact(1, chunks), 10),
                "the compacted chunk replays the same");
    }

    @Test
    void aSourceWithoutEdgesLeavesTheLog() throws Exception {
        CutEdgeLog log = new CutEdgeLog(2, 1000);
        log.append(0, 5, add(6));
        log.append(0, 5, remove(6));
        assertTrue(log.compact(0, chunks).isEmpty());
        assertEquals(List.of(), stored.get(0), "an empty log stores no chunk");
    }

    @Test
    void tailsAskForAFlushAndLogsForACompactionWhenTheyGrow() throws Exception {
        CutEdgeLog log = new CutEdgeLog(2, 3);
        assertFalse(log.append(0, 1, 2));
        assertFalse(log.append(0, 1, 3));
        assertTrue(log.append(1, 1, 4), "the third operation fills the tails");
        log.flush(chunks);
        for (int i = 2; i < CutEdgeLog.MIN_COMPACTION; i++) {
            log.append(0, 1, 2);
        }
        assertFalse(log.grown(0), "the two earlier operations count");
        log.append(0, 1, 2);
        assertTrue(log.grown(0), "past the minimum");
        log.compact(0, chunks);
        assertFalse(log.grown(0));
    }
}

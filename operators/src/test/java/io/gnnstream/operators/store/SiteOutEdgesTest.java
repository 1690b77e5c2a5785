package io.gnnstream.operators.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class SiteOutEdgesTest {

    private final MemoryStateStore state = new MemoryStateStore();
    private final SiteOutEdges index = new SiteOutEdges(state, state::setCurrentKey, 0, 4);

    @Test
    void stagedOperationsEndAsIfWrittenInTheirTurn() throws Exception {
        index.build(new boolean[] {true}, (owned, visitor) -> {});
        index.stage(1, 5, false);
        index.stage(1, 6, false);
        index.stage(2, 5, false);
        index.stage(1, 5, true);
        index.stage(3, 7, true); // never added
        index.stage(4, 8, false);
        index.stage(4, 8, true);
        index.stage(4, 8, false);
        index.writeStaged();
        assertArrayEquals(new long[] {6}, sorted(index.targets(1)));
        assertArrayEquals(new long[] {5}, sorted(index.targets(2)));
        assertArrayEquals(new long[0], index.targets(3));
        assertArrayEquals(new long[] {8}, index.targets(4));

        index.stage(1, 7, false);
        index.stage(1, 6, true);
        index.stage(4, 8, true);
        index.writeStaged();
        assertArrayEquals(new long[] {7}, sorted(index.targets(1)));
        assertArrayEquals(new long[0], index.targets(4));
    }

    @Test
    void readsAndDirectChangesWriteTheStagedFirstAndTheStageFills() throws Exception {
        index.build(new boolean[] {true}, (owned, visitor) -> {});
        assertFalse(index.stage(1, 5, false));
        assertFalse(index.stage(2, 5, false));
        assertFalse(index.stage(2, 6, false));
        assertArrayEquals(new long[] {5}, index.targets(1), "a read writes the staged first");
        index.stage(2, 7, false);
        index.remove(2, 6);
        assertArrayEquals(new long[] {5, 7}, sorted(index.targets(2)));
        index.stage(3, 1, false);
        index.clear(3);
        assertArrayEquals(new long[0], index.targets(3), "cleared after its staged edge");
        index.stage(4, 1, false);
        index.stage(4, 2, false);
        index.stage(4, 3, false);
        assertTrue(index.stage(4, 4, false), "the fourth change fills a stage of four");
    }

    @Test
    void stagesNothingBeforeItIsBuilt() throws Exception {
        index.stage(1, 5, false);
        index.writeStaged();
        assertArrayEquals(new long[0], index.targets(1));
    }

    private static long[] sorted(long[] values) {
        long[] copy = values.clone();
        Arrays.sort(copy);
        return copy;
    }
}

package io.gnnstream.operators.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link Lineage}: a restored run takes what its ancestors sent before the checkpoints their
 * successors restored from, and nothing of a failed branch.
 */
class LineageTest {

    @Test
    void aRestoredRunTakesWhatItsAncestorsSentBeforeTheCut() {
        Lineage first = new Lineage();
        first.current(11);
        assertTrue(first.takes(11, 3), "its own");
        assertTrue(first.takes(0, 0), "unstamped");
        assertFalse(first.takes(99, 0), "a job before it, without a checkpoint of it");

        // The first run snapshots checkpoint 10; a second run restores it.
        Lineage second = new Lineage();
        second.current(12);
        second.restore(List.of(first.snapshot(), first.snapshot()), 10);
        assertTrue(second.takes(11, 9), "sent before the first run's snapshot of 10");
        assertFalse(second.takes(11, 10), "sent after it: the failed branch");
        assertTrue(second.takes(12, 30));

        // The second run snapshots 20 and fails later; a third one, restored from 20, and a
        // run that failed before any checkpoint it could restore (13).
        Lineage third = new Lineage();
        third.current(14);
        third.restore(List.of(second.snapshot()), 20);
        assertTrue(third.takes(11, 9));
        assertFalse(third.takes(11, 15), "the first run's dead branch stays dead");
        assertTrue(third.takes(12, 19));
        assertFalse(third.takes(12, 20));
        assertFalse(third.takes(13, 0), "a run none restored from");
        assertEquals(3, third.dropped(), "records of other branches dropped");
    }

    @Test
    void theLatestAncestorsAreKept() {
        Lineage run = new Lineage();
        run.current(1);
        long last = Lineage.MAX_ANCESTORS + 6;
        for (long k = 2; k <= last; k++) {
            Lineage next = new Lineage();
            next.current(k);
            next.restore(List.of(run.snapshot()), k * 10);
            run = next;
        }
        long oldestKept = last - Lineage.MAX_ANCESTORS;
        assertTrue(run.takes(last - 1, 0), "the latest ancestor");
        assertTrue(run.takes(oldestKept, 0));
        assertFalse(run.takes(oldestKept - 1, 0), "an ancestor beyond the bound");
    }
}

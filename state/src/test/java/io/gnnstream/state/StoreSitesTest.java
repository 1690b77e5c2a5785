package io.gnnstream.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class StoreSitesTest {

    @Test
    void sitesAreContiguousRangesHeldUnderTheirFirstPartition() {
        StoreSites sites = new StoreSites(8, 3);
        int[] expectedSite = {0, 0, 0, 1, 1, 1, 2, 2};
        int[] expectedHolder = {0, 0, 0, 3, 3, 3, 6, 6};
        for (int p = 0; p < 8; p++) {
            assertEquals(expectedSite[p], sites.siteOf(p), "site of " + p);
            assertEquals(expectedHolder[p], sites.holderOf(p), "holder of " + p);
        }
        assertEquals(3, sites.holderOfSite(1));
        assertEquals(3, sites.parallelism());
    }

    @Test
    void replicasAreMadeAgainUnlessEveryOldSubtaskRecordsTheSameParallelism() {
        assertFalse(StoreSites.madeForAnother(List.of(2, 2), 2));
        assertTrue(StoreSites.madeForAnother(List.of(2, 2), 3));
        assertTrue(
                StoreSites.madeForAnother(List.of(2, -1), 2), "one old subtask had not made them");
        assertTrue(StoreSites.madeForAnother(List.of(), 2), "state without the record");
    }
}

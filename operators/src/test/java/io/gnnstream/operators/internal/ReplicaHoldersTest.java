package io.gnnstream.operators.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ReplicaHoldersTest {

    /**
     * With few sites every bit is in one word; with more than 63 sites some are in further words.
     */
    @ParameterizedTest
    @ValueSource(ints = {2, 63, 64, 200})
    void holdReleaseRecordAndRestore(int sites) {
        ReplicaHolders holders = new ReplicaHolders(4, sites);
        int last = sites - 1;
        assertTrue(holders.hold(1, 7, 0));
        assertFalse(holders.hold(1, 7, 0), "held already");
        assertTrue(holders.hold(1, 7, last));
        assertTrue(holders.holds(1, 7, last));
        assertFalse(holders.holds(2, 7, last), "partitions are apart");
        assertArrayEquals(new int[] {0, last}, holders.sites(1, 7));
        assertFalse(holders.hasRecord(1, 7));
        holders.markRecord(1, 8);
        assertTrue(holders.hasRecord(1, 8));
        assertArrayEquals(new int[0], holders.sites(1, 8), "a record is no site");
        assertTrue(holders.release(1, 7, 0));
        assertFalse(holders.release(1, 7, 0), "released already");
        assertFalse(holders.release(3, 9, last), "never held");
        assertTrue(holders.dirty(1));

        byte[] stored = holders.encode(1);
        assertFalse(holders.dirty(1));
        assertNull(holders.encode(0), "an empty partition stores nothing");
        ReplicaHolders same = new ReplicaHolders(4, sites);
        same.restore(1, stored, false);
        assertArrayEquals(new int[] {last}, same.sites(1, 7));
        assertTrue(same.hasRecord(1, 8));
        ReplicaHolders other = new ReplicaHolders(4, 3);
        other.restore(1, stored, true);
        assertArrayEquals(
                new int[0], other.sites(1, 7), "another parallelism keeps the records only");
        assertTrue(other.hasRecord(1, 8));

        holders.markRecord(1, 7);
        holders.releaseAll();
        assertArrayEquals(new int[0], holders.sites(1, 7));
        assertTrue(holders.hasRecord(1, 7) && holders.hasRecord(1, 8), "records stay");
    }
}

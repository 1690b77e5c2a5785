package io.gnnstream.operators;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.state.HashPartitioner;
import java.util.Arrays;
import java.util.stream.LongStream;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.junit.jupiter.api.Test;

class RankSitesTest {

    private static final HashPartitioner PARTITIONER = new HashPartitioner(16);

    @Test
    void aSeedBelongsToTheRankOfTheSubtaskOwningItsPartition() {
        RankSites sites = new RankSites(PARTITIONER, new JobScale(16, 4, 2, 2));
        assertTrue(sites.applies());
        for (long v = 0; v < 200; v++) {
            int subtask =
                    KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup(
                            16, 4, PARTITIONER.partition(v));
            assertEquals(subtask % 2, sites.rankOf(v), "vertex " + v);
        }
        assertFalse(
                new RankSites(PARTITIONER, new JobScale(16, 2, 3, 3)).applies(),
                "a rank without a GraphStore subtask");
    }

    @Test
    void splitCutsByOwnerInOrderAndGivesEveryRankASeed() {
        RankSites sites = new RankSites(PARTITIONER, new JobScale(16, 2, 2, 2));
        long[] seeds = LongStream.range(0, 40).map(v -> 39 - v).toArray();
        long[][] slices = sites.split(seeds);
        assertEquals(2, slices.length);
        for (int r = 0; r < 2; r++) {
            int rank = r;
            long[] own = Arrays.stream(seeds).filter(s -> sites.rankOf(s) == rank).toArray();
            assertTrue(own.length > 0);
            assertArrayEquals(own, slices[r], "rank " + r + "'s seeds in the epoch order");
        }
        assertEquals(40, slices[0].length + slices[1].length);

        long[] ofRankZero =
                LongStream.range(0, 400).filter(v -> sites.rankOf(v) == 0).limit(5).toArray();
        long[][] lopsided = sites.split(ofRankZero);
        assertArrayEquals(Arrays.copyOf(ofRankZero, 4), lopsided[0]);
        assertArrayEquals(
                new long[] {ofRankZero[4]}, lopsided[1], "the last seed of the largest slice");
    }

    @Test
    void batchIdsOfARankAreOwnedByTheAssemblerOfItsIndex() {
        RankSites sites = new RankSites(PARTITIONER, new JobScale(16, 3, 2, 2));
        long next = 0;
        for (int i = 0; i < 50; i++) {
            int rank = i % 2;
            long id = sites.batchIdFor(rank, next);
            assertTrue(id >= next);
            assertEquals(rank, KeyGroupRangeAssignment.assignKeyToParallelOperator(id, 16, 3));
            next = id + 1;
        }
    }
}

package io.gnnstream.operators.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.state.VertexKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SiteOutEdgesTest {

    private static final int HOLDER = 3;

    /**
     * Random additions and removals (of edges held or not, additions of edges held) against a
     * model, flushed at random, with few buckets so that both compactions run, and read back after
     * a copy of the state (a restore) too; without a cache of targets, with one that evicts, and
     * with one that holds them all.
     */
    @ParameterizedTest
    @ValueSource(longs = {0, 2_048, 1 << 20})
    void answersAsTheEdgesWrittenThroughCompactionsAndRestores(long cacheBytes) throws Exception {
        MemoryStateStore store = new MemoryStateStore();
        SiteOutEdges index =
                new SiteOutEdges(store, store::setCurrentKey, HOLDER, 0, cacheBytes, 4);
        index.build(new boolean[] {true}, (owned, visit) -> {}, (state, which) -> List.of());
        Map<Long, TreeSet<Long>> model = new HashMap<>();
        SplittableRandom r = new SplittableRandom(11);
        for (int i = 0; i < 20_000; i++) {
            long u = r.nextInt(60);
            long w = r.nextInt(60);
            boolean add = r.nextInt(3) > 0;
            index.stage(u, w, add);
            if (add) {
                model.computeIfAbsent(u, k -> new TreeSet<>()).add(w);
            } else if (model.containsKey(u)) {
                model.get(u).remove(w);
            }
            if (r.nextInt(50) == 0) {
                index.writeStaged();
            }
            if (r.nextInt(cacheBytes > 0 ? 20 : 200) == 0) {
                long v = r.nextInt(60);
                assertArrayEquals(expected(model, v), index.targets(v), "targets of " + v);
            }
        }
        for (long v = 0; v < 60; v++) {
            assertArrayEquals(expected(model, v), index.targets(v), "targets of " + v);
        }
        MemoryStateStore restored = store.copy();
        SiteOutEdges again =
                new SiteOutEdges(restored, restored::setCurrentKey, HOLDER, 0, cacheBytes, 64);
        again.build(
                new boolean[] {true},
                (owned, visit) -> {
                    throw new AssertionError("a built index is not built again");
                },
                (state, which) -> List.of());
        for (long v = 0; v < 60; v++) {
            assertArrayEquals(expected(model, v), again.targets(v), "restored, targets of " + v);
        }
        // Every bucket read back: those with many removals were rewritten without them, those with
        // many blocks joined.
        for (VertexKey key : restored.keys(SiteOutEdges.STATE.getName(), k -> true)) {
            restored.setCurrentKey(key);
            int records = 0;
            int removals = 0;
            int blocks = 0;
            for (long[] block : restored.getListState(SiteOutEdges.STATE).get()) {
                blocks++;
                records += block.length / 2;
                for (int i = 1; i < block.length; i += 2) {
                    removals += block[i] < 0 ? 1 : 0;
                }
            }
            assertTrue(
                    removals * SiteOutEdges.COMPACT_AT_REMOVED_SHARE < records,
                    key + ": " + removals + " removals left in " + records + " records");
            assertTrue(
                    blocks <= SiteOutEdges.COMPACT_AFTER_BLOCKS, key + ": " + blocks + " blocks");
        }
    }

    /**
     * A read caches the targets of every source in its bucket, also of one without any there, until
     * a change of that source is written.
     */
    @Test
    void aReadCachesItsBucketsSourcesUntilTheyChange() throws Exception {
        MemoryStateStore store = new MemoryStateStore();
        SiteOutEdges index = new SiteOutEdges(store, store::setCurrentKey, HOLDER, 0, 1 << 20, 1);
        index.build(new boolean[] {true}, (owned, visit) -> {}, (state, which) -> List.of());
        index.stage(7, 1, true);
        index.stage(8, 2, true);
        index.stage(7, 3, true);
        index.stage(8, 2, false);
        index.stage(8, 4, true);
        index.writeStaged();
        String blocks = SiteOutEdges.STATE.getName();
        assertArrayEquals(new long[] {1, 3}, index.targets(7));
        assertEquals(1, store.reads(blocks));
        assertArrayEquals(new long[] {4}, index.targets(8));
        assertArrayEquals(new long[0], index.targets(9));
        assertEquals(2, store.reads(blocks), "a source not in the bucket reads it once");
        assertArrayEquals(new long[0], index.targets(9));
        assertArrayEquals(new long[] {1, 3}, index.targets(7));
        assertEquals(2, store.reads(blocks));
        index.stage(7, 1, false);
        assertArrayEquals(new long[] {3}, index.targets(7), "a staged change is written first");
        assertEquals(3, store.reads(blocks));
        assertArrayEquals(new long[] {4}, index.targets(8));
        assertEquals(3, store.reads(blocks));
    }

    /**
     * Staged changes wait on the heap until {@link SiteOutEdges#STAGED_PER_BUCKET} per bucket do,
     * then every bucket they touch gets one block.
     */
    @Test
    void stagedChangesAreWrittenOnceEnoughWait() throws Exception {
        MemoryStateStore store = new MemoryStateStore();
        int buckets = 4;
        SiteOutEdges index = new SiteOutEdges(store, store::setCurrentKey, HOLDER, 0, 0, buckets);
        index.build(new boolean[] {true}, (owned, visit) -> {}, (state, which) -> List.of());
        String blocks = SiteOutEdges.STATE.getName();
        int bound = SiteOutEdges.STAGED_PER_BUCKET * buckets;
        for (long i = 0; i < bound - 1; i++) {
            index.stage(i % 50, i, true);
        }
        assertTrue(store.keys(blocks, k -> true).isEmpty(), "nothing written below the bound");
        index.stage(99, 1, true);
        List<VertexKey> written = store.keys(blocks, k -> true);
        assertEquals(buckets, written.size(), "one block per bucket touched");
        for (VertexKey key : written) {
            store.setCurrentKey(key);
            List<long[]> list = new ArrayList<>();
            store.getListState(SiteOutEdges.STATE).get().forEach(list::add);
            assertEquals(1, list.size(), key + ": one block");
        }
        assertArrayEquals(new long[] {7, 57, 107}, index.targets(7));
    }

    /** A read that finds many blocks and few removals joins the blocks in their order. */
    @Test
    void manySmallFlushesAreJoinedIntoOneBlock() throws Exception {
        MemoryStateStore store = new MemoryStateStore();
        SiteOutEdges index = new SiteOutEdges(store, store::setCurrentKey, HOLDER, 0, 0, 1);
        index.build(new boolean[] {true}, (owned, visit) -> {}, (state, which) -> List.of());
        TreeSet<Long> expected = new TreeSet<>();
        for (long w = 0; w < 2 * SiteOutEdges.COMPACT_AFTER_BLOCKS; w++) {
            index.stage(7, w, true);
            index.stage(8, w, true);
            index.writeStaged();
            expected.add(w);
        }
        index.stage(7, 3, false);
        index.writeStaged();
        expected.remove(3L);
        long[] want = expected.stream().mapToLong(Long::longValue).toArray();
        assertArrayEquals(want, index.targets(7));
        List<long[]> blocks = new ArrayList<>();
        store.getListState(SiteOutEdges.STATE).get().forEach(blocks::add);
        assertEquals(1, blocks.size(), "the blocks joined");
        assertEquals(2 * (4 * SiteOutEdges.COMPACT_AFTER_BLOCKS + 1), blocks.get(0).length);
        assertArrayEquals(want, index.targets(7), "the joined block says the same");
        assertEquals(2 * SiteOutEdges.COMPACT_AFTER_BLOCKS, index.targets(8).length);
    }

    /** A build scans the adjacency once and drops the map of the layout before blocks. */
    @Test
    void buildsFromTheAdjacencyAndDropsTheOldLayout() throws Exception {
        MemoryStateStore store = new MemoryStateStore();
        store.setCurrentKey(new VertexKey(HOLDER, 7));
        store.getMapState(SiteOutEdges.LEGACY).put(5L, true);
        store.setCurrentKey(VertexKey.anchor(HOLDER));
        store.getState(SiteOutEdges.LEGACY_BUILT).update(true);
        SiteOutEdges index = new SiteOutEdges(store, store::setCurrentKey, HOLDER, 0, 0, 8);
        index.build(
                new boolean[] {true},
                (owned, visit) -> {
                    visit.visit(new VertexKey(0, 5), new long[] {7, 9});
                    visit.visit(new VertexKey(0, 6), new long[] {7});
                },
                store::keys);
        assertArrayEquals(new long[] {5, 6}, index.targets(7));
        assertArrayEquals(new long[] {5}, index.targets(9));
        assertArrayEquals(new long[0], index.targets(5));
        assertEquals(List.of(), store.keys(SiteOutEdges.LEGACY.getName(), k -> true));
        assertEquals(List.of(), store.keys(SiteOutEdges.LEGACY_BUILT.getName(), k -> true));
    }

    private static long[] expected(Map<Long, TreeSet<Long>> model, long v) {
        return model.getOrDefault(v, new TreeSet<>()).stream().mapToLong(Long::longValue).toArray();
    }
}

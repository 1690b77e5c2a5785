package io.gnnstream.operators.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.gnnstream.state.HashPartitioner;
import io.gnnstream.state.VertexPartitioner;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The neighbour sums' heap cache writes back: reads return what was put and added, the state holds
 * it once the cache evicted it or after {@link NeighbourSums#flush}, and at most {@link
 * NeighbourSums#MAX_DIRTY} records per layer wait for the state.
 */
class NeighbourSumsTest {

    private static final int LAYERS = 2;
    private static final int WIDTH = 4;

    /**
     * Room for about three records per layer (entries are evicted and read again) or for all, and
     * room for two written back (records are also written through) or for all.
     */
    @ParameterizedTest
    @CsvSource({"3, 2", "3, 100", "100, 2", "100, 100"})
    void theStateHoldsWhatTheCachedSumsReturnAfterAFlush(int records, int maxDirty)
            throws Exception {
        VertexPartitioner partitioner = new HashPartitioner(4);
        MemoryStateStore state = new MemoryStateStore();
        long budget = records * (VertexValueCache.ENTRY_OVERHEAD_BYTES + 21 + WIDTH * Float.BYTES);
        NeighbourSums cached =
                new NeighbourSums(state, partitioner, state::setCurrentKey, 2, budget, maxDirty);
        NeighbourSums uncached = new NeighbourSums(state, partitioner, state::setCurrentKey, 2, 0);
        Map<String, NeighbourSums.Sum> expected = new HashMap<>();
        SplittableRandom random = new SplittableRandom(7);
        long step = 5;
        for (int i = 0; i < 5_000; i++) {
            int m = random.nextInt(LAYERS);
            long v = random.nextInt(12);
            String key = m + "/" + v;
            switch (random.nextInt(4)) {
                case 0 -> {
                    NeighbourSums.Sum sum =
                            new NeighbourSums.Sum(floats(random), random.nextInt(9), 100);
                    cached.put(m, v, step, sum);
                    expected.put(key, sum);
                }
                case 1 -> {
                    float[] delta = floats(random);
                    // Ranks above the bound leave the sum as it is.
                    long rank = random.nextBoolean() ? 50 : 150;
                    NeighbourSums.Sum before = expected.get(key);
                    assertEquals(before != null, cached.add(m, v, step, rank, delta, 0, WIDTH));
                    if (before != null && rank <= before.rankBound()) {
                        float[] after = before.values().clone();
                        for (int c = 0; c < WIDTH; c++) {
                            after[c] += delta[c];
                        }
                        expected.put(
                                key,
                                new NeighbourSums.Sum(after, before.count(), before.rankBound()));
                    }
                }
                case 2 -> {
                    if (random.nextBoolean()) {
                        cached.clear(m, v);
                        expected.remove(key);
                    } else {
                        cached.clear(v);
                        for (int l = 0; l < LAYERS; l++) {
                            expected.remove(l + "/" + v);
                        }
                    }
                }
                default -> {
                    // A sum of another step is not valid under this one.
                    assertNull(cached.get(m, v, step + 1));
                }
            }
            assertSum(expected.get(key), cached.get(m, v, step), key);
            if (i % 50 == 0) {
                cached.flush();
                for (int l = 0; l < LAYERS; l++) {
                    for (long u = 0; u < 12; u++) {
                        String k = l + "/" + u;
                        assertSum(expected.get(k), uncached.get(l, u, step), k);
                    }
                }
            }
        }
    }

    @Test
    void aSumTakingManyDifferencesReachesTheStateOnceEvictedOrFlushed() throws Exception {
        VertexPartitioner partitioner = new HashPartitioner(4);
        MemoryStateStore state = new MemoryStateStore();
        long budget = VertexValueCache.ENTRY_OVERHEAD_BYTES + 21 + WIDTH * Float.BYTES;
        NeighbourSums cached =
                new NeighbourSums(state, partitioner, state::setCurrentKey, 1, budget);
        NeighbourSums uncached = new NeighbourSums(state, partitioner, state::setCurrentKey, 1, 0);
        cached.put(0, 1, 5, new NeighbourSums.Sum(new float[WIDTH], 3, 100));
        String name = "incremental-sum-0";
        long reads = state.reads(name);
        float[] one = {1, 1, 1, 1};
        for (int i = 0; i < 100; i++) {
            cached.add(0, 1, 5, 0, one, 0, WIDTH);
        }
        assertEquals(reads, state.reads(name), "the cached sum reads no state");
        assertNull(uncached.get(0, 1, 5), "written back");
        for (long v = 2; v < 5; v++) {
            cached.put(0, v, 5, new NeighbourSums.Sum(new float[WIDTH], 1, 100));
        }
        assertEquals(100f, uncached.get(0, 1, 5).values()[0], "evicted, so written");
        cached.flush();
        for (long v = 2; v < 5; v++) {
            assertEquals(1, uncached.get(0, v, 5).count(), "evicted or flushed");
        }
    }

    @Test
    void theSumsWaitingForTheStateAreBounded() throws Exception {
        VertexPartitioner partitioner = new HashPartitioner(4);
        MemoryStateStore state = new MemoryStateStore();
        NeighbourSums cached =
                new NeighbourSums(state, partitioner, state::setCurrentKey, 1, 64L << 20);
        NeighbourSums uncached = new NeighbourSums(state, partitioner, state::setCurrentKey, 1, 0);
        int n = NeighbourSums.MAX_DIRTY + 100;
        for (long v = 0; v < n; v++) {
            cached.put(0, v, 5, new NeighbourSums.Sum(new float[WIDTH], 1, 100));
        }
        int inState = 0;
        for (long v = 0; v < n; v++) {
            inState += uncached.get(0, v, 5) != null ? 1 : 0;
        }
        assertEquals(100, inState, "written through beyond the bound");
        cached.flush();
        for (long v = 0; v < n; v++) {
            assertEquals(1, uncached.get(0, v, 5).count());
        }
    }

    private static void assertSum(NeighbourSums.Sum want, NeighbourSums.Sum got, String key) {
        if (want == null) {
            assertNull(got, key);
        } else {
            assertArrayEquals(want.values(), got.values(), key);
            assertEquals(want.count(), got.count(), key);
            assertEquals(want.rankBound(), got.rankBound(), key);
        }
    }

    private static float[] floats(SplittableRandom random) {
        float[] f = new float[WIDTH];
        for (int c = 0; c < WIDTH; c++) {
            f[c] = random.nextInt(100) / 4f;
        }
        return f;
    }
}

package io.gnnstream.operators;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.operators.messages.GraphStoreInput;
import io.gnnstream.operators.messages.GraphUpdate;
import io.gnnstream.operators.messages.SampleRequest;
import io.gnnstream.operators.messages.SampleResponse;
import io.gnnstream.state.EvalNeighbourhood;
import io.gnnstream.state.HashPartitioner;
import io.gnnstream.state.VertexKey;
import io.gnnstream.state.VertexKeyTypeInfo;
import io.gnnstream.state.VertexPartitioner;
import io.gnnstream.state.records.EdgeUpdate;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Requests of evaluation blocks ({@link SampleRequest#evalNeighbourhood}) get a hub's {@link
 * EvalNeighbourhood}, on RocksDB and the heap backend: with the hub's blocks read from state (no
 * adjacency cache, or a hub above the cache's whole-list limit) and with its whole list cached.
 */
@Timeout(120)
class GraphStoreEvalNeighbourhoodTest {

    private static final VertexPartitioner PARTITIONER = new HashPartitioner(1);
    private static final long HUB = 0;
    private static final long SMALL = 7;
    private static final int FANOUT = 100;

    private Harness harness;

    @ParameterizedTest(name = "{0} degree={1} cache={2}")
    @CsvSource({
        "rocksdb, 5000, 0",
        "rocksdb, 5000, 1048576",
        "rocksdb, 1500, 1048576",
        "heap, 300, 0"
    })
    void aHubAboveTheFanoutGetsItsBottomKWhateverTheRoundAndInsertionOrder(
            String backend, int degree, long cacheBytes) throws Exception {
        long[] ids = LongStream.rangeClosed(1, degree).map(u -> u * 31 + 5).toArray();
        long[] shuffled = ids.clone();
        SplittableRandom random = new SplittableRandom(3);
        for (int i = shuffled.length - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            long t = shuffled[i];
            shuffled[i] = shuffled[j];
            shuffled[j] = t;
        }
        try (var inOrder = harness(backend, cacheBytes);
                var otherOrder = harness(backend, cacheBytes)) {
            inOrder.open();
            otherOrder.open();
            for (int i = 0; i < degree; i++) {
                edge(inOrder, ids[i], HUB, false);
                edge(otherOrder, shuffled[i], HUB, false);
            }
            for (long u : new long[] {3, 1, 2}) {
                edge(inOrder, u, SMALL, false);
                edge(otherOrder, u, SMALL, false);
            }
            long[] expected = EvalNeighbourhood.neighbours(HUB, ids, FANOUT);
            assertEquals(FANOUT, expected.length);
            for (long step = 1; step <= 3; step++) {
                SampleResponse r = request(inOrder, step, true, HUB, SMALL);
                assertArrayEquals(expected, neighboursOf(r, 0), "step " + step);
                assertArrayEquals(new long[] {3, 1, 2}, neighboursOf(r, 1), "all, in slot order");
                assertArrayEquals(
                        expected,
                        neighboursOf(request(otherOrder, step, true, HUB, SMALL), 0),
                        "another insertion order");
            }

            long[] training = neighboursOf(request(inOrder, 1, false, HUB), 0);
            assertEquals(FANOUT, set(training).size());
            assertFalse(
                    Arrays.equals(training, neighboursOf(request(inOrder, 2, false, HUB), 0)),
                    "training samples differ by step");

            // One member out, one new neighbour in: the neighbourhood of the new set.
            long out = expected[FANOUT / 2];
            long in = 1L << 40;
            edge(inOrder, out, HUB, true);
            edge(inOrder, in, HUB, false);
            long[] next = ids.clone();
            next[Arrays.binarySearch(ids, out)] = in;
            long[] after = neighboursOf(request(inOrder, 4, true, HUB), 0);
            assertArrayEquals(EvalNeighbourhood.neighbours(HUB, next, FANOUT), after);
            Set<Long> changed = set(after);
            changed.removeAll(set(expected));
            assertTrue(changed.size() <= 1, "at most one member in: " + changed);
        }
    }

    /** The neighbours of the {@code i}th sample vertex of {@code r}. */
    private static long[] neighboursOf(SampleResponse r, int i) {
        int start = 0;
        for (int j = 0; j < i; j++) {
            start += r.neighbourCounts[j];
        }
        return Arrays.copyOfRange(r.neighbours, start, start + r.neighbourCounts[i]);
    }

    private static SampleResponse request(Harness h, long step, boolean eval, long... vertices)
            throws Exception {
        h.getOutput().clear();
        SampleRequest request = SampleRequest.sampleOnly(step, step, 1, 0, 0, FANOUT, vertices);
        request.evalNeighbourhood = eval;
        h.processElement(new StreamRecord<>(GraphStoreInput.of(request)));
        SampleResponse last = null;
        for (Object o : h.getOutput()) {
            if (o instanceof StreamRecord<?> record) {
                last = (SampleResponse) record.getValue();
            }
        }
        return last;
    }

    private static void edge(Harness h, long src, long dst, boolean remove) throws Exception {
        h.processElement(
                new StreamRecord<>(
                        GraphStoreInput.of(
                                GraphUpdate.of(
                                        new EdgeUpdate(
                                                src, dst, remove, EdgeUpdate.NO_TIMESTAMP)))));
    }

    private static Set<Long> set(long[] values) {
        Set<Long> s = new HashSet<>();
        for (long v : values) {
            s.add(v);
        }
        return s;
    }

    /** One subtask of one logical partition, adjacency cache of {@code cacheBytes}. */
    private static Harness harness(String backend, long cacheBytes) throws Exception {
        KeySelector<GraphStoreInput, VertexKey> key = in -> in.storeKey(PARTITIONER);
        Harness h =
                new Harness(
                        new GraphStoreOperator(
                                PARTITIONER,
                                new GraphStoreConfig(42L, 3, 1000L, 4096, cacheBytes, 1000, 0)),
                        key);
        if ("rocksdb".equals(backend)) {
            EmbeddedRocksDBStateBackend rocksDb = new EmbeddedRocksDBStateBackend();
            rocksDb.getMemoryConfiguration().setUseManagedMemory(false);
            h.setStateBackend(rocksDb);
        } else {
            h.setStateBackend(new HashMapStateBackend());
        }
        return h;
    }

    private static final class Harness
            extends KeyedOneInputStreamOperatorTestHarness<
                    VertexKey, GraphStoreInput, SampleResponse> {
        Harness(GraphStoreOperator operator, KeySelector<GraphStoreInput, VertexKey> key)
                throws Exception {
            super(operator, key, VertexKeyTypeInfo.INSTANCE, 8, 1, 0);
        }
    }
}

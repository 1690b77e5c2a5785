package io.gnnstream.operators;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.gnnstream.operators.messages.GraphStoreInput;
import io.gnnstream.operators.messages.GraphUpdate;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.messages.SampleRequest;
import io.gnnstream.operators.messages.SampleResponse;
import io.gnnstream.operators.serialization.MiniBatchPartSerializer;
import io.gnnstream.state.HashPartitioner;
import io.gnnstream.state.VertexKey;
import io.gnnstream.state.VertexKeyTypeInfo;
import io.gnnstream.state.VertexPartitioner;
import io.gnnstream.state.records.EdgeUpdate;
import io.gnnstream.state.records.NodeUpdate;
import io.gnnstream.state.records.Split;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Feature parts by row carry each row's degree ({@link MiniBatchPart#degrees}: the in-degree under
 * the eval fanout plus one) when the store is configured for {@code --gcn-norm sym}, for rows sent
 * with their features and for rows the trainer's cache holds alike, and follow edge changes that
 * leave the features (and so the cache) alone.
 */
@Timeout(120)
class GraphStoreDegreesTest {

    private static final VertexPartitioner PARTITIONER = new HashPartitioner(1);
    private static final int FANOUT = 2;

    @Test
    void partsCarryEveryRowsDegreeUnderTheEvalFanoutAlsoForCachedRows() throws Exception {
        GraphStoreConfig config =
                new GraphStoreConfig(42L, 3, 1000L, 4096, 1 << 20, 1, 16).withDegrees(FANOUT);
        try (Harness h = harness(config)) {
            h.open();
            for (long v = 0; v < 4; v++) {
                node(h, v);
            }
            edge(h, 1, 0);
            edge(h, 2, 0);
            edge(h, 3, 0);
            edge(h, 2, 1);
            long[] vertices = {0, 1, 2, 3};
            int[] rows = {5, 6, 7, 8};
            // 0: three in-neighbours, two under the fanout; 1: one; 2 and 3: none.
            Map<Integer, Integer> expected = Map.of(5, 3, 6, 2, 7, 1, 8, 1);

            MiniBatchPart first = request(h, 1, vertices, rows);
            assertEquals(4, first.rows.length, "features sent, the cache empty");
            assertEquals(expected, degreesByRow(first));

            MiniBatchPart second = request(h, 2, vertices, rows);
            assertEquals(4, second.cachedRows.length, "every row in the trainer's cache");
            assertEquals(expected, degreesByRow(second));

            edge(h, 3, 2);
            edge(h, 0, 3);
            edge(h, 1, 3);
            MiniBatchPart third = request(h, 3, vertices, rows);
            assertEquals(4, third.cachedRows.length, "edges leave the cached features alone");
            assertEquals(Map.of(5, 3, 6, 2, 7, 2, 8, 3), degreesByRow(third));
        }
    }

    @Test
    void partsCarryNoDegreesUnlessConfigured() throws Exception {
        try (Harness h = harness(new GraphStoreConfig(42L, 3, 1000L, 4096, 1 << 20, 1, 16))) {
            h.open();
            node(h, 0);
            edge(h, 1, 0);
            assertNull(request(h, 1, new long[] {0}, new int[] {0}).degrees);
        }
    }

    @Test
    void degreesCountAllNeighboursWithoutAFanoutLimit() throws Exception {
        try (Harness h =
                harness(new GraphStoreConfig(42L, 3, 1000L, 4096, 0, 1, 0).withDegrees(-1))) {
            h.open();
            node(h, 0);
            for (long u = 1; u <= 5; u++) {
                edge(h, u, 0);
            }
            MiniBatchPart p = request(h, 1, new long[] {0, 9}, new int[] {0, 1});
            assertArrayEquals(new int[] {0, 1}, p.rows);
            assertArrayEquals(new int[] {6, 1}, p.degrees, "a vertex without a record: 1");
        }
    }

    private static Map<Integer, Integer> degreesByRow(MiniBatchPart p) {
        assertEquals(p.rows.length + p.cachedRows.length, p.degrees.length);
        Map<Integer, Integer> byRow = new HashMap<>();
        for (int j = 0; j < p.rows.length; j++) {
            byRow.put(p.rows[j], p.degrees[j]);
        }
        for (int j = 0; j < p.cachedRows.length; j++) {
            byRow.put(p.cachedRows[j], p.degrees[p.rows.length + j]);
        }
        return byRow;
    }

    /** A training request (hop 1, fanout 10) of one sample vertex naming the feature rows. */
    private static MiniBatchPart request(Harness h, long batch, long[] vertices, int[] rows)
            throws Exception {
        SampleRequest request =
                SampleRequest.sampleOnly(batch, batch, 1, 0, 0, 10, new long[] {vertices[0]})
                        .withFeatures(batch, 0, 0, 0, vertices, rows);
        var parts = h.getSideOutput(GraphStoreOperator.FEATURES);
        int before = parts == null ? 0 : parts.size();
        h.processElement(new StreamRecord<>(GraphStoreInput.of(request)));
        assertEquals(before + 1, h.getSideOutput(GraphStoreOperator.FEATURES).size());
        MiniBatchPart last = null;
        for (StreamRecord<MiniBatchPart> r : h.getSideOutput(GraphStoreOperator.FEATURES)) {
            last = r.getValue();
        }
        // As the trainer receives it.
        return MiniBatchPartSerializer.INSTANCE.copy(last);
    }

    private static void node(Harness h, long id) throws Exception {
        float value = id;
        h.processElement(
                new StreamRecord<>(
                        GraphStoreInput.of(
                                GraphUpdate.of(
                                        new NodeUpdate(
                                                id,
                                                new float[] {value, value, value},
                                                0,
                                                Split.TRAIN)))));
    }

    private static void edge(Harness h, long src, long dst) throws Exception {
        h.processElement(
                new StreamRecord<>(
                        GraphStoreInput.of(
                                GraphUpdate.of(
                                        new EdgeUpdate(
                                                src, dst, false, EdgeUpdate.NO_TIMESTAMP)))));
    }

    private static Harness harness(GraphStoreConfig config) throws Exception {
        KeySelector<GraphStoreInput, VertexKey> key = in -> in.storeKey(PARTITIONER);
        Harness h = new Harness(new GraphStoreOperator(PARTITIONER, config), key);
        EmbeddedRocksDBStateBackend rocksDb = new EmbeddedRocksDBStateBackend();
        rocksDb.getMemoryConfiguration().setUseManagedMemory(false);
        h.setStateBackend(rocksDb);
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

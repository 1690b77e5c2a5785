package io.gnnstream.operators;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.gnnstream.operators.internal.StoreSites;
import io.gnnstream.operators.messages.EdgeBundle;
import io.gnnstream.operators.messages.GraphStoreInput;
import io.gnnstream.operators.messages.GraphUpdate;
import io.gnnstream.operators.serialization.GraphStoreInputSerializer;
import io.gnnstream.state.HashPartitioner;
import io.gnnstream.state.VertexPartitioner;
import io.gnnstream.state.records.EdgeUpdate;
import io.gnnstream.state.records.NodeUpdate;
import io.gnnstream.state.records.Split;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * For the router, the bundler keeps the edges between partitions and groups them by the subtask
 * owning their source; for the GraphStore it keeps every edge and groups by the destination's
 * subtask. Either way in arrival order, every bundle sent when it is full, at a tick, before a
 * barrier and at the end of input.
 */
@Timeout(60)
class EdgeBundlerTest {

    private static final int PARTITIONS = 8;
    private static final int PARALLELISM = 3;
    private static final VertexPartitioner PARTITIONER = new HashPartitioner(PARTITIONS);
    private static final StoreSites SITES = new StoreSites(PARTITIONS, PARALLELISM);

    @Test
    void bundlesCutEdgesPerSiteInOrder() throws Exception {
        List<long[]> sent = new ArrayList<>();
        try (var h = harness(1_000_000)) {
            for (long src = 0; src < 200; src++) {
                for (long dst = 0; dst < 10; dst++) {
                    boolean remove = (src + dst) % 7 == 0;
                    h.processElement(edge(src, dst * 31 + 5, remove));
                    if (PARTITIONER.partition(src) != PARTITIONER.partition(dst * 31 + 5)) {
                        sent.add(new long[] {src, EdgeBundle.op(dst * 31 + 5, remove)});
                    }
                }
            }
            assertEquals(List.of(), h.extractOutputValues(), "nothing is sent before the buffer fills or a tick");
            h.prepareSnapshotPreBarrier(1);
            List<EdgeBundle> bundles = bundles(h);
            assertEquals(PARALLELISM, bundles.size(), "one bundle per site");
            for (int site = 0; site < PARALLELISM; site++) {
                int route = SITES.holderOfSite(site);
                EdgeBundle b = bundles.stream().filter(x -> x.route == route).findFirst().orElseThrow();
                List<long[]> expected = new ArrayList<>();
                for (long[] e : sent) {
                    if (SITES.siteOf(PARTITIONER.partition(e[0])) == site) {
                        expected.add(e);
                    }
                }
                assertEquals(expected.size(), b.size());
                for (int i = 0; i < b.size(); i++) {
                    assertArrayEquals(expected.get(i), new long[] {b.sources[i], b.ops[i]}, "edge " + i + " of site " + site);
                }
            }
            assertEquals(sent.size(), bundles.stream().mapToInt(EdgeBundle::size).sum(), "no intra-partition edge");
            h.prepareSnapshotPreBarrier(2);
            assertEquals(PARALLELISM, h.extractOutputValues().size(), "an empty bundle is never sent");
        }
    }

    @Test
    void bundlesEveryEdgeByItsDestinationForTheStore() throws Exception {
        try (var h = harness(EdgeBundler.Grouping.STORE, 1_000_000)) {
            List<long[]> sent = new ArrayList<>();
            for (long src = 0; src < 50; src++) {
                for (long dst = 0; dst < 10; dst++) {
                    boolean remove = (src * dst) % 5 == 1;
                    h.processElement(edge(src, dst, remove));
                    sent.add(new long[] {src, EdgeBundle.op(dst, remove)});
                }
            }
            h.getOneInputOperator().finish();
            List<EdgeBundle> bundles = bundles(h);
            assertEquals(sent.size(), bundles.stream().mapToInt(EdgeBundle::size).sum(), "every edge, cut or not");
            for (EdgeBundle b : bundles) {
                List<long[]> expected = sent.stream().filter(e -> SITES.holderOf(PARTITIONER.partition(
                        e[1] < 0 ? -e[1] - 1 : e[1])) == b.route).toList();
                assertEquals(expected.size(), b.size());
                for (int i = 0; i < b.size(); i++) {
                    assertArrayEquals(expected.get(i), new long[] {b.sources[i], b.ops[i]}, "edge " + i);
                }
            }
        }
    }

    @Test
    void sendsFullBundlesAtOnceAndTheRestAtTheTickOrTheEnd() throws Exception {
        long src = 3;
        long[] dsts = java.util.stream.LongStream.range(1, 1000)
                .filter(d -> PARTITIONER.partition(d) != PARTITIONER.partition(src)).limit(10).toArray();
        try (var h = harness(4)) {
            for (long d : dsts) {
                h.processElement(edge(src, d, false));
            }
            assertEquals(List.of(4, 4), sizes(h), "two full bundles");
            h.setProcessingTime(h.getProcessingTime() + EdgeBundler.TICK_MS);
            assertEquals(List.of(4, 4, 2), sizes(h), "the tick sends the partly filled one");
            h.processElement(edge(src, dsts[0], true));
            h.getOneInputOperator().finish();
            assertEquals(List.of(4, 4, 2, 1), sizes(h), "the end of input sends the rest");
            assertEquals(EdgeBundle.op(dsts[0], true), bundles(h).get(3).ops[0]);
        }
    }

    @Test
    void bundlesSurviveTheRecordSerializer() throws Exception {
        EdgeBundle b = new EdgeBundle(5, new long[] {1, 2, Long.MAX_VALUE}, new long[] {7, EdgeBundle.op(9, true), 0});
        DataOutputSerializer out = new DataOutputSerializer(64);
        GraphStoreInputSerializer.INSTANCE.serialize(GraphStoreInput.of(b), out);
        EdgeBundle read = GraphStoreInputSerializer.INSTANCE.deserialize(new DataInputDeserializer(out.getCopyOfBuffer())).edges;
        assertEquals(5, read.route);
        assertArrayEquals(b.sources, read.sources);
        assertArrayEquals(b.ops, read.ops);
    }

    @Test
    void rejectsAnythingButEdges() throws Exception {
        try (var h = harness(4)) {
            assertThrows(IllegalArgumentException.class, () -> h.processElement(new StreamRecord<>(GraphStoreInput.of(
                    GraphUpdate.of(new NodeUpdate(1, new float[] {1}, 0, Split.TRAIN))))));
        }
    }

    private static OneInputStreamOperatorTestHarness<GraphStoreInput, GraphStoreInput> harness(int bundleEdges)
            throws Exception {
        return harness(EdgeBundler.Grouping.CUT, bundleEdges);
    }

    private static OneInputStreamOperatorTestHarness<GraphStoreInput, GraphStoreInput> harness(
            EdgeBundler.Grouping grouping, int bundleEdges) throws Exception {
        var h = new OneInputStreamOperatorTestHarness<>(new EdgeBundler(PARTITIONER, PARALLELISM, grouping, bundleEdges));
        h.open();
        return h;
    }

    private static StreamRecord<GraphStoreInput> edge(long src, long dst, boolean remove) {
        return new StreamRecord<>(GraphStoreInput.of(GraphUpdate.of(new EdgeUpdate(src, dst, remove, EdgeUpdate.NO_TIMESTAMP))));
    }

    private static List<EdgeBundle> bundles(OneInputStreamOperatorTestHarness<GraphStoreInput, GraphStoreInput> h) {
        return h.extractOutputValues().stream().map(in -> in.edges).toList();
    }

    private static List<Integer> sizes(OneInputStreamOperatorTestHarness<GraphStoreInput, GraphStoreInput> h) {
        return bundles(h).stream().map(EdgeBundle::size).toList();
    }
}

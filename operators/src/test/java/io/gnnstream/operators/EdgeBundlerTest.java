package io.gnnstream.operators;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.operators.messages.EdgeBundle;
import io.gnnstream.operators.messages.GraphStoreInput;
import io.gnnstream.operators.serialization.GraphStoreInputSerializer;
import io.gnnstream.state.HashPartitioner;
import io.gnnstream.state.StoreSites;
import io.gnnstream.state.VertexPartitioner;
import io.gnnstream.state.records.EdgeUpdate;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToIntFunction;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The bundler sends every edge to the GraphStore subtask owning its destination and, with cut edges
 * on, the edges between partitions to the router subtask owning their source; either way in arrival
 * order, every bundle sent when it is full, at a tick, before a barrier and at the end of input.
 */
@Timeout(60)
class EdgeBundlerTest {

    private static final int PARTITIONS = 8;
    private static final int PARALLELISM = 3;
    private static final VertexPartitioner PARTITIONER = new HashPartitioner(PARTITIONS);
    private static final StoreSites SITES = new StoreSites(PARTITIONS, PARALLELISM);

    @Test
    void bundlesEveryEdgeByItsDestinationAndCutEdgesByTheirSource() throws Exception {
        List<long[]> sent = new ArrayList<>();
        try (var h = harness(true, 1_000_000)) {
            for (long src = 0; src < 200; src++) {
                for (long dst = 0; dst < 10; dst++) {
                    boolean remove = (src + dst) % 7 == 0;
                    h.processElement(edge(src, dst * 31 + 5, remove));
                    sent.add(new long[] {src, EdgeBundle.op(dst * 31 + 5, remove)});
                }
            }
            assertEquals(
                    List.of(),
                    h.extractOutputValues(),
                    "nothing is sent before the buffer fills or a tick");
            h.prepareSnapshotPreBarrier(1);
            List<long[]> cut =
                    sent.stream()
                            .filter(
                                    e ->
                                            PARTITIONER.partition(e[0])
                                                    != PARTITIONER.partition(dst(e)))
                            .toList();
            assertTrue(cut.size() < sent.size(), "some edges lie within a partition");
            check(bundles(h), sent, e -> SITES.siteOf(PARTITIONER.partition(dst(e))));
            check(cutBundles(h), cut, e -> SITES.siteOf(PARTITIONER.partition(e[0])));
            h.prepareSnapshotPreBarrier(2);
            assertEquals(
                    PARALLELISM, h.extractOutputValues().size(), "an empty bundle is never sent");
        }
    }

    @Test
    void sendsFullBundlesAtOnceAndTheRestAtTheTickOrTheEnd() throws Exception {
        long dst = 3;
        long[] srcs =
                java.util.stream.LongStream.range(1, 1000)
                        .filter(s -> PARTITIONER.partition(s) == PARTITIONER.partition(dst))
                        .limit(10)
                        .toArray();
        try (var h = harness(false, 4)) {
            for (long s : srcs) {
                h.processElement(edge(s, dst, false));
            }
            assertEquals(List.of(4, 4), sizes(bundles(h)), "two full bundles");
            h.setProcessingTime(h.getProcessingTime() + EdgeBundler.TICK_MS);
            assertEquals(
                    List.of(4, 4, 2), sizes(bundles(h)), "the tick sends the partly filled one");
            h.processElement(edge(srcs[0], dst, true));
            h.getOneInputOperator().finish();
            assertEquals(List.of(4, 4, 2, 1), sizes(bundles(h)), "the end of input sends the rest");
            assertEquals(EdgeBundle.op(dst, true), bundles(h).get(3).ops[0]);
            assertEquals(List.of(), cutBundles(h), "no cut edges asked for");
        }
    }

    @Test
    void bundlesSurviveTheRecordSerializer() throws Exception {
        EdgeBundle b =
                new EdgeBundle(
                        5,
                        new long[] {1, 2, Long.MAX_VALUE},
                        new long[] {7, EdgeBundle.op(9, true), 0});
        DataOutputSerializer out = new DataOutputSerializer(64);
        GraphStoreInputSerializer.INSTANCE.serialize(GraphStoreInput.of(b), out);
        EdgeBundle read =
                ((GraphStoreInput.Edges)
                                GraphStoreInputSerializer.INSTANCE.deserialize(
                                        new DataInputDeserializer(out.getCopyOfBuffer())))
                        .bundle();
        assertEquals(5, read.route);
        assertArrayEquals(b.sources, read.sources);
        assertArrayEquals(b.ops, read.ops);
    }

    /**
     * One bundle per site, routed to the site's first partition, holding the site's edges in order.
     */
    private static void check(
            List<EdgeBundle> bundles, List<long[]> edges, ToIntFunction<long[]> siteOf) {
        assertEquals(edges.size(), bundles.stream().mapToInt(EdgeBundle::size).sum());
        for (EdgeBundle b : bundles) {
            int site = SITES.siteOf(b.route);
            List<long[]> expected =
                    edges.stream().filter(e -> siteOf.applyAsInt(e) == site).toList();
            assertEquals(expected.size(), b.size(), "edges of site " + site);
            for (int i = 0; i < b.size(); i++) {
                assertArrayEquals(
                        expected.get(i),
                        new long[] {b.sources[i], b.ops[i]},
                        "edge " + i + " of site " + site);
            }
        }
    }

    private static long dst(long[] edge) {
        return edge[1] < 0 ? -edge[1] - 1 : edge[1];
    }

    private static OneInputStreamOperatorTestHarness<EdgeUpdate, GraphStoreInput> harness(
            boolean cutEdges, int bundleEdges) throws Exception {
        var h =
                new OneInputStreamOperatorTestHarness<>(
                        new EdgeBundler(
                                PARTITIONER,
                                JobScale.store(PARTITIONS, PARALLELISM),
                                cutEdges,
                                bundleEdges));
        h.open();
        return h;
    }

    private static StreamRecord<EdgeUpdate> edge(long src, long dst, boolean remove) {
        return new StreamRecord<>(new EdgeUpdate(src, dst, remove, EdgeUpdate.NO_TIMESTAMP));
    }

    private static List<EdgeBundle> bundles(
            OneInputStreamOperatorTestHarness<EdgeUpdate, GraphStoreInput> h) {
        return h.extractOutputValues().stream()
                .map(in -> ((GraphStoreInput.Edges) in).bundle())
                .toList();
    }

    private static List<EdgeBundle> cutBundles(
            OneInputStreamOperatorTestHarness<EdgeUpdate, GraphStoreInput> h) {
        var side = h.getSideOutput(EdgeBundler.CUT_EDGES);
        return side == null
                ? List.of()
                : side.stream().map(r -> ((GraphStoreInput.Edges) r.getValue()).bundle()).toList();
    }

    private static List<Integer> sizes(List<EdgeBundle> bundles) {
        return bundles.stream().map(EdgeBundle::size).toList();
    }
}

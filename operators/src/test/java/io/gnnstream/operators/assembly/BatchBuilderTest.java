package io.gnnstream.operators.assembly;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.operators.internal.TrainerFeatureCache;
import io.gnnstream.operators.messages.BatchSpec;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.messages.SampleRequest;
import io.gnnstream.operators.messages.SampleResponse;
import io.gnnstream.state.HashPartitioner;
import io.gnnstream.state.VertexPartitioner;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BatchBuilderTest {

    /** A path-plus-star graph: in-neighbours of each vertex, in slot order. */
    private static final Map<Long, long[]> IN =
            Map.of(
                    0L, new long[] {1, 2},
                    1L, new long[] {0, 3},
                    2L, new long[] {0},
                    3L, new long[] {1, 4},
                    4L, new long[] {3});

    private static final int DIM = 2;
    private static final TrainerFeatureCache NO_CACHE = new TrainerFeatureCache(0, DIM);
    private final VertexPartitioner partitioner = new HashPartitioner(4);

    /**
     * Each partition's route: by default each its own, as with one GraphStore subtask per
     * partition.
     */
    private int[] routes = {0, 1, 2, 3};

    /** The assembler's own route ({@link BatchBuilder#localRoute}); -1: none. */
    private int localRoute = -1;

    /**
     * With halo replicas: the sampled neighbours a GraphStore serves in its neighbour part (null:
     * halo off).
     */
    private java.util.function.LongPredicate served;

    /**
     * With halo replicas, the GraphStore sends the features of the sampled neighbours it holds with
     * the sample (by vertex) and the builder fetches only the others from their owners: the same
     * batch, with fewer feature entries in the requests, and no final round when every neighbour is
     * served.
     */
    @Test
    void haloNeighbourPartsBuildTheSameBatchWithFewerFetches() {
        BatchSpec spec = spec(0L);
        spec.kind = MiniBatch.Kind.TRAIN;
        int[] fanouts = {-1, -1};
        Sent plain = send(spec, 0, fanouts, null, 100);
        assertTrue(plain.requests().stream().noneMatch(r -> r.evalNeighbourhood), "training");
        MiniBatch expected = join(plain);
        for (java.util.function.LongPredicate serve :
                List.<java.util.function.LongPredicate>of(v -> v % 2 == 0, v -> true, v -> false)) {
            served = serve;
            Sent halo = send(spec, 0, fanouts, new Random(3), 100);
            assertSameStructureAndFeatures(expected, join(halo));
            long plainEntries =
                    plain.requests.stream().mapToLong(r -> r.featureVertices.length).sum();
            long haloEntries =
                    halo.requests.stream().mapToLong(r -> r.featureVertices.length).sum();
            assertTrue(
                    haloEntries <= plainEntries,
                    haloEntries + " feature entries vs " + plainEntries);
            if (serve.test(1) && serve.test(3)) {
                assertEquals(1, haloEntries, "only the seed is fetched by row");
                assertTrue(halo.requests.stream().allMatch(r -> r.hop <= 2), "no final round");
            }
        }
    }

    private static MiniBatch join(Sent sent) {
        PartialBatches partials = new PartialBatches();
        MiniBatch whole = partials.accept(sent.head, NO_CACHE);
        for (MiniBatchPart p : sent.features) {
            MiniBatch b = partials.accept(p, NO_CACHE);
            whole = b != null ? b : whole;
        }
        assertTrue(whole != null, "the batch never completed");
        return whole;
    }

    @Test
    void buildsNestedBlocksWithDestinationsFirst() {
        MiniBatch b = run(spec(0L), new int[] {-1, -1}, new Random(1));
        assertEquals(2, b.numLayers);
        assertArrayEquals(new long[] {0, 1, 2, 3}, b.nodeIds);
        assertArrayEquals(new int[] {1, 3, 4}, b.nodeCounts);
        // hop 1: destination 0 <- {1, 2}
        assertEquals(2, b.numEdges(1));
        assertEquals(1, b.indices[b.edgeStart(1, 0)]);
        assertEquals(2, b.indices[b.edgeStart(1, 0) + 1]);
        // hop 2: destinations 0,1,2 <- {1,2}, {0,3}, {0}
        assertEquals(5, b.numEdges(2));
        assertEquals(2, b.edgeEnd(2, 1) - b.edgeStart(2, 1));
        assertEquals(3, b.indices[b.edgeStart(2, 1) + 1]);
        for (int i = 0; i < b.numNodes(); i++) {
            assertEquals(b.nodeIds[i] * 10f, b.features[i * DIM]);
        }
        assertArrayEquals(new int[] {0}, b.labels);
    }

    /**
     * An inference block is one hop over all in-neighbours whatever the fanouts; from layer 2 on
     * its requests ask for every source's stored outputs of the layer before instead of features.
     */
    @Test
    void inferenceBlocksAreOneFullHopAndLaterLayersFetchStoredLayerOutputs() {
        BatchSpec first = spec(0L, 3L);
        first.layer = 1;
        MiniBatch b1 = run(first, new int[] {2, 2}, null);
        assertEquals(1, b1.numLayers);
        assertEquals(1, b1.layer);
        assertArrayEquals(new long[] {0, 3, 1, 2, 4}, b1.nodeIds);
        assertEquals(40f, b1.features[4 * DIM], "features of every node");

        BatchSpec second = spec(0L, 3L);
        second.layer = 2;
        MiniBatch b2 = run(second, new int[] {2, 2}, null);
        assertArrayEquals(b1.nodeIds, b2.nodeIds);
        assertArrayEquals(b1.indices, b2.indices);
        assertEquals(2, b2.layer);
        assertEquals(40f, b2.features[4 * DIM], "a row for every node");
        List<SampleRequest> requests = send(second, 0, new int[] {2, 2}, null, 100).requests();
        assertTrue(
                requests.stream().allMatch(r -> r.layerInput == 1 && r.layerDim == DIM),
                "stored outputs of layer 1");
        assertTrue(
                requests.stream().allMatch(r -> r.evalNeighbourhood),
                "an evaluation block's requests take evaluation neighbourhoods");
        assertEquals(5, requests.stream().mapToInt(r -> r.featureVertices.length).sum());
    }

    /**
     * A later layer's first hop names each destination for sampling and for its row in the same
     * request, however small requests are; neighbours its GraphStore subtask summed are counted in
     * the head per destination, not numbered or fetched.
     */
    @Test
    void neighboursSummedAtTheOwnerAreCountedNotFetched() {
        for (int max : new int[] {1, 2, 100}) {
            BatchSpec spec = spec(0L, 3L, 4L);
            spec.layer = 2;
            BatchBuilder builder =
                    new BatchBuilder(
                                    spec,
                                    0,
                                    new int[] {2, 2},
                                    DIM,
                                    partitioner,
                                    routes,
                                    max,
                                    8,
                                    false)
                            .layerInput(1, DIM);
            List<SampleRequest> first = builder.start();
            List<SampleRequest> next = new ArrayList<>();
            for (SampleRequest r : first) {
                assertArrayEquals(r.sampleVertices, r.featureVertices, "max " + max);
                SampleResponse response = answer(r);
                response.summedCounts = response.neighbourCounts;
                response.neighbourCounts = new int[r.sampleVertices.length];
                response.neighbours = new long[0];
                next.addAll(builder.accept(response));
            }
            assertTrue(next.isEmpty(), "no sources to fetch");
            assertTrue(builder.isComplete());
            MiniBatch head = builder.buildHead().head;
            assertArrayEquals(new long[] {0, 3, 4}, head.nodeIds);
            assertArrayEquals(
                    new int[] {IN.get(0L).length, IN.get(3L).length, IN.get(4L).length},
                    head.summedNeighbours);
            assertEquals(0, head.numEdges(1));
        }
    }

    @Test
    void resultDoesNotDependOnResponseOrderOrDuplicates() {
        MiniBatch reference = run(spec(0L, 4L), new int[] {-1, -1}, null);
        for (int seed = 0; seed < 20; seed++) {
            assertSameStructureAndFeatures(
                    reference, run(spec(0L, 4L), new int[] {-1, -1}, new Random(seed)));
        }
    }

    @Test
    void splitRequestsBuildTheSameBatch() {
        MiniBatch whole = run(spec(0L, 4L, 2L), new int[] {-1, -1}, null, 100);
        for (int max : new int[] {1, 2, 3}) {
            MiniBatch split = run(spec(0L, 4L, 2L), new int[] {-1, -1}, new Random(max), max);
            assertSameStructureAndFeatures(whole, split);
            assertArrayEquals(whole.labels, split.labels);
        }
    }

    /**
     * Two GraphStore subtasks owning partitions 0-1 and 2-3: one request per subtask and hop, the
     * same batch.
     */
    @Test
    void requestsGoOnePerRouteAndBuildTheSameBatch() {
        MiniBatch perPartition = run(spec(0L, 4L, 2L), new int[] {-1, -1}, null, 100);
        routes = new int[] {0, 0, 2, 2};
        Sent sent = send(spec(0L, 4L, 2L), 0, new int[] {-1, -1}, null, 100);
        assertTrue(
                sent.requests.stream().allMatch(r -> r.route == 0 || r.route == 2), "routes only");
        for (int hop = 1; hop <= 3; hop++) {
            int h = hop;
            assertTrue(
                    sent.requests.stream().filter(r -> r.hop == h).count() <= 2,
                    "one request per route in hop " + h);
        }
        assertSameStructureAndFeatures(
                perPartition, run(spec(0L, 4L, 2L), new int[] {-1, -1}, new Random(3), 100));
    }

    /** Loop bytes exchanged with another route than the assembler's own count as remote. */
    @Test
    void remoteLoopBytesAreThoseOfOtherRoutes() {
        routes = new int[] {0, 0, 2, 2};
        MiniBatch nowhere = send(spec(0L, 4L, 2L), 0, new int[] {-1, -1}, null, 100).head.head;
        assertEquals(
                nowhere.loopBytes, nowhere.remoteLoopBytes, "no local route: everything is remote");
        localRoute = 0;
        MiniBatch atZero = send(spec(0L, 4L, 2L), 0, new int[] {-1, -1}, null, 100).head.head;
        localRoute = 2;
        MiniBatch atTwo = send(spec(0L, 4L, 2L), 0, new int[] {-1, -1}, null, 100).head.head;
        assertTrue(atZero.remoteLoopBytes > 0 && atTwo.remoteLoopBytes > 0);
        assertEquals(
                nowhere.loopBytes,
                atZero.remoteLoopBytes + atTwo.remoteLoopBytes,
                "each exchange is remote for exactly one of the two sites");
        assertEquals(nowhere.loopRequests, atZero.remoteLoopRequests + atTwo.remoteLoopRequests);
    }

    @Test
    void rejectsRoutesNotCoveringEveryPartition() {
        assertThrows(
                IllegalArgumentException.class,
                () ->
                        new BatchBuilder(
                                spec(0L),
                                0,
                                new int[] {5},
                                DIM,
                                partitioner,
                                new int[] {0, 0},
                                100,
                                0,
                                false));
    }

    private static void assertSameStructureAndFeatures(MiniBatch expected, MiniBatch actual) {
        assertArrayEquals(expected.nodeIds, actual.nodeIds);
        assertArrayEquals(expected.indices, actual.indices);
        assertArrayEquals(expected.indptr, actual.indptr);
        assertArrayEquals(features(expected), features(actual));
    }

    /**
     * Head and feature parts join in any order; repeats and an earlier attempt's parts are dropped.
     */
    @Test
    void partsJoinInAnyOrderAndEarlierAttemptsAreDropped() {
        Sent first = send(spec(0L, 4L), 0, new int[] {-1, -1}, null, 1);
        Sent second = send(spec(0L, 4L), 1, new int[] {-1, -1}, null, 1);
        assertTrue(first.features.size() > 2, "several feature parts");
        for (MiniBatchPart stale : first.features) {
            stale.features = bytes(new float[stale.rows.length * DIM]);
        }
        PartialBatches partials = new PartialBatches();
        assertNull(
                partials.accept(first.features.get(0), NO_CACHE),
                "a part is placed before its head");
        List<MiniBatchPart> current = new ArrayList<>(second.features);
        Collections.reverse(current);
        assertNull(partials.accept(current.get(0), NO_CACHE));
        assertNull(partials.accept(current.get(0), NO_CACHE), "a repeated part is ignored");
        assertNull(partials.accept(second.head, NO_CACHE), "the head waits for the rest");
        assertNull(
                partials.accept(first.features.get(1), NO_CACHE),
                "a part of an attempt before the latest is ignored");
        assertNull(partials.accept(first.head, NO_CACHE), "so is an older head");
        MiniBatch b = null;
        for (MiniBatchPart p : current.subList(1, current.size())) {
            assertNull(b, "complete only with the last part");
            b = partials.accept(p, NO_CACHE);
        }
        assertEquals(0, partials.size(), "nothing left of the batch");
        assertArrayEquals(features(run(spec(0L, 4L), new int[] {-1, -1}, null)), features(b));
        assertArrayEquals(new int[] {0, 1}, b.labels);
    }

    @Test
    void rejectsPartsThatDoNotCoverTheBatchExactlyOnce() {
        Sent sent = send(spec(0L), 0, new int[] {-1}, null, 100);
        MiniBatchPart part = sent.features.get(sent.features.size() - 1);
        part.rows[0] = 0;
        assertThrows(IllegalArgumentException.class, () -> acceptAll(sent), "a row filled twice");
        part.rows[0] = 99;
        assertThrows(
                IllegalArgumentException.class, () -> acceptAll(sent), "a row outside the batch");
    }

    @Test
    void batchWithoutSeedsCompletesAtOnce() {
        BatchBuilder builder =
                new BatchBuilder(spec(), 0, new int[] {5}, DIM, partitioner, routes, 100, 0, false);
        assertTrue(builder.start().isEmpty());
        assertTrue(builder.isComplete());
        MiniBatchPart head = builder.buildHead();
        assertEquals(0, head.numParts);
        assertEquals(0, new PartialBatches().accept(head, NO_CACHE).numSeeds());
    }

    private BatchSpec spec(long... seeds) {
        BatchSpec s = new BatchSpec();
        s.batchId = 9;
        s.kind = MiniBatch.Kind.EVAL_TEST;
        s.seeds = seeds;
        return s;
    }

    /**
     * Answers requests like the GraphStore would, in random order and with duplicates when random
     * != null.
     */
    private MiniBatch run(BatchSpec spec, int[] fanouts, Random random) {
        return run(spec, fanouts, random, 100);
    }

    private MiniBatch run(BatchSpec spec, int[] fanouts, Random random, int maxRequestVertices) {
        Sent sent = send(spec, 0, fanouts, random, maxRequestVertices);
        List<MiniBatchPart> all = new ArrayList<>(sent.features);
        all.add(sent.head);
        if (random != null) {
            Collections.shuffle(all, random);
        }
        PartialBatches partials = new PartialBatches();
        for (MiniBatchPart p : all) {
            MiniBatch whole = partials.accept(p, NO_CACHE);
            if (whole != null) {
                assertEquals(0, partials.size());
                return whole; // the trainer drops the parts of batches it already has
            }
        }
        throw new AssertionError("the batch never completed");
    }

    /**
     * What the assembler (head) and the GraphStore (feature parts, with repeats) send the trainer.
     */
    private record Sent(
            MiniBatchPart head, List<MiniBatchPart> features, List<SampleRequest> requests) {}

    private Sent send(
            BatchSpec spec, int attempt, int[] fanouts, Random random, int maxRequestVertices) {
        // A size hint below and above the batch's size: the tests comparing these batches show it
        // changes nothing.
        BatchBuilder builder =
                new BatchBuilder(
                                spec,
                                attempt,
                                fanouts,
                                DIM,
                                partitioner,
                                routes,
                                maxRequestVertices,
                                2 * maxRequestVertices,
                                served != null)
                        .localRoute(localRoute);
        if (spec.layer >= 2) {
            builder.layerInput(spec.layer - 1, DIM);
        }
        List<MiniBatchPart> features = new ArrayList<>();
        List<SampleRequest> requests = new ArrayList<>();
        Deque<SampleRequest> queue = new ArrayDeque<>(builder.start());
        while (!queue.isEmpty()) {
            List<SampleRequest> round = new ArrayList<>(queue);
            queue.clear();
            List<SampleResponse> responses = new ArrayList<>();
            for (SampleRequest r : round) {
                assertTrue(
                        r.sampleVertices.length + r.featureVertices.length <= maxRequestVertices,
                        "request larger than " + maxRequestVertices + " vertices");
                assertEquals(attempt, r.attempt);
                for (long v : concat(r.sampleVertices, r.featureVertices)) {
                    assertEquals(
                            r.route,
                            routes[partitioner.partition(v)],
                            "vertex " + v + " outside the request's route");
                }
                requests.add(r);
                int copies = random != null && random.nextBoolean() ? 2 : 1;
                for (int c = 0; c < copies; c++) {
                    SampleResponse response = answer(r);
                    responses.add(response);
                    if (r.featurePart != SampleRequest.NO_FEATURES) {
                        features.add(featuresOf(r));
                    }
                    if (r.neighbourPart != SampleRequest.NO_FEATURES) {
                        response.servedBits = new long[(response.neighbours.length + 63) / 64];
                        for (int i = 0; i < response.neighbours.length; i++) {
                            if (served.test(response.neighbours[i])) {
                                response.servedBits[i / 64] |= 1L << i;
                            }
                        }
                        features.add(
                                featuresOfVertices(
                                        r,
                                        Arrays.stream(response.neighbours)
                                                .distinct()
                                                .filter(served)
                                                .toArray()));
                    }
                }
            }
            if (random != null) {
                Collections.shuffle(responses, random);
            }
            for (SampleResponse r : responses) {
                queue.addAll(builder.accept(r));
            }
        }
        assertTrue(builder.isComplete());
        MiniBatchPart head = builder.buildHead();
        assertEquals(attempt, head.attempt);
        assertNull(head.head.features);
        return new Sent(head, features, requests);
    }

    private static SampleResponse answer(SampleRequest r) {
        SampleResponse s = new SampleResponse();
        s.batchId = r.batchId;
        s.hop = r.hop;
        s.route = r.route;
        s.part = r.part;
        s.sampleVertices = r.sampleVertices;
        s.neighbourCounts = new int[r.sampleVertices.length];
        List<Long> all = new ArrayList<>();
        for (int i = 0; i < r.sampleVertices.length; i++) {
            long[] n = IN.get(r.sampleVertices[i]);
            s.neighbourCounts[i] = n.length;
            for (long v : n) {
                all.add(v);
            }
        }
        s.neighbours = all.stream().mapToLong(Long::longValue).toArray();
        return s;
    }

    /**
     * The GraphStore's feature part for a request: vertex v has features {@code [10 v, ..., 1]} and
     * label v mod 3.
     */
    private static MiniBatchPart featuresOf(SampleRequest r) {
        float[] features = new float[r.featureVertices.length * DIM];
        int[] labels = new int[r.featureVertices.length];
        for (int j = 0; j < r.featureVertices.length; j++) {
            features[j * DIM] = r.featureVertices[j] * 10f;
            features[j * DIM + DIM - 1] = 1f;
            labels[j] = (int) r.featureVertices[j] % 3;
        }
        return MiniBatchPart.features(
                r.batchId,
                r.seq,
                r.trainer,
                r.attempt,
                r.featurePart,
                r.featureRows.clone(),
                labels,
                bytes(features));
    }

    /**
     * The GraphStore's neighbour part: the features and labels of {@code vertices}, as {@link
     * #featuresOf}.
     */
    private static MiniBatchPart featuresOfVertices(SampleRequest r, long[] vertices) {
        float[] features = new float[vertices.length * DIM];
        int[] labels = new int[vertices.length];
        for (int j = 0; j < vertices.length; j++) {
            features[j * DIM] = vertices[j] * 10f;
            features[j * DIM + DIM - 1] = 1f;
            labels[j] = (int) vertices[j] % 3;
        }
        MiniBatchPart p =
                MiniBatchPart.features(
                        r.batchId,
                        r.seq,
                        r.trainer,
                        r.attempt,
                        r.neighbourPart,
                        new int[0],
                        labels,
                        bytes(features));
        p.vertices = vertices;
        return p;
    }

    private static long[] concat(long[] a, long[] b) {
        long[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static void acceptAll(Sent sent) {
        PartialBatches partials = new PartialBatches();
        partials.accept(sent.head, NO_CACHE);
        for (MiniBatchPart p : sent.features) {
            partials.accept(p, NO_CACHE);
        }
    }

    /** The batch's feature rows, without the room a reused array may have beyond them. */
    private static float[] features(MiniBatch b) {
        return Arrays.copyOf(b.features, b.numNodes() * b.featureDim);
    }

    private static byte[] bytes(float[] values) {
        ByteBuffer b =
                ByteBuffer.allocate(values.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        b.asFloatBuffer().put(values);
        return b.array();
    }
}

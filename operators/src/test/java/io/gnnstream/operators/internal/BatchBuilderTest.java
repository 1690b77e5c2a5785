package io.gnnstream.operators.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.operators.messages.BatchSpec;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.messages.SampleRequest;
import io.gnnstream.operators.messages.SampleResponse;
import io.gnnstream.state.HashPartitioner;
import io.gnnstream.state.VertexPartitioner;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BatchBuilderTest {

    /** A path-plus-star graph: in-neighbours of each vertex, in slot order. */
    private static final Map<Long, long[]> IN = Map.of(
            0L, new long[] {1, 2},
            1L, new long[] {0, 3},
            2L, new long[] {0},
            3L, new long[] {1, 4},
            4L, new long[] {3});

    private static final int DIM = 2;
    private final VertexPartitioner partitioner = new HashPartitioner(4);

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

    @Test
    void resultDoesNotDependOnResponseOrderOrDuplicates() {
        MiniBatch reference = run(spec(0L, 4L), new int[] {-1, -1}, null);
        for (int seed = 0; seed < 20; seed++) {
            MiniBatch shuffled = run(spec(0L, 4L), new int[] {-1, -1}, new Random(seed));
            assertArrayEquals(reference.nodeIds, shuffled.nodeIds);
            assertArrayEquals(reference.indices, shuffled.indices);
            assertArrayEquals(reference.indptr, shuffled.indptr);
            assertArrayEquals(reference.features, shuffled.features);
        }
    }

    @Test
    void splitRequestsBuildTheSameBatch() {
        MiniBatch whole = run(spec(0L, 4L, 2L), new int[] {-1, -1}, null, 100);
        for (int max : new int[] {1, 2, 3}) {
            MiniBatch split = run(spec(0L, 4L, 2L), new int[] {-1, -1}, new Random(max), max);
            assertArrayEquals(whole.nodeIds, split.nodeIds);
            assertArrayEquals(whole.indices, split.indices);
            assertArrayEquals(whole.indptr, split.indptr);
            assertArrayEquals(whole.features, split.features);
            assertArrayEquals(whole.labels, split.labels);
        }
    }

    /** Wide feature rows: the batch leaves in parts under Flink's spilling threshold, joined back unchanged. */
    @Test
    void largeBatchesLeaveInPartsThatJoinBackToTheBatch() {
        int dim = MiniBatchPart.MAX_RECORD_BYTES / Float.BYTES / 2;
        List<MiniBatchPart> parts = parts(spec(0L), new int[] {-1, -1}, null, 100, dim);
        assertEquals(2, parts.size(), "4 nodes of 2 rows per part");
        for (MiniBatchPart p : parts) {
            assertTrue((long) p.features.length * Float.BYTES <= MiniBatchPart.MAX_RECORD_BYTES);
            assertEquals(p.part == 0, p.head != null, "only the first part carries the structure");
        }
        List<MiniBatchPart> reversed = new ArrayList<>(parts);
        Collections.reverse(reversed);
        PartialBatches partials = new PartialBatches();
        assertNull(partials.accept(reversed.get(0)));
        assertNull(partials.accept(reversed.get(0)), "a repeated part is ignored");
        assertEquals(1, partials.size());
        MiniBatch b = partials.accept(reversed.get(1));
        assertEquals(0, partials.size());
        assertArrayEquals(new long[] {0, 1, 2, 3}, b.nodeIds);
        for (int i = 0; i < b.numNodes(); i++) {
            assertEquals(b.nodeIds[i] * 10f, b.features[i * dim]);
            assertEquals(1f, b.features[i * dim + dim - 1]);
        }
    }

    @Test
    void batchWithoutSeedsCompletesAtOnce() {
        BatchBuilder builder = new BatchBuilder(spec(), new int[] {5}, DIM, partitioner, 100);
        assertTrue(builder.start().isEmpty());
        assertTrue(builder.isComplete());
        List<MiniBatchPart> parts = builder.buildParts();
        assertEquals(1, parts.size());
        assertEquals(0, PartialBatches.assemble(parts).numSeeds());
    }

    private BatchSpec spec(long... seeds) {
        BatchSpec s = new BatchSpec();
        s.batchId = 9;
        s.kind = MiniBatch.KIND_EVAL_TEST;
        s.seeds = seeds;
        return s;
    }

    /** Answers requests like the GraphStore would, in random order and with duplicates when random != null. */
    private MiniBatch run(BatchSpec spec, int[] fanouts, Random random) {
        return run(spec, fanouts, random, 100);
    }

    private MiniBatch run(BatchSpec spec, int[] fanouts, Random random, int maxRequestVertices) {
        return PartialBatches.assemble(parts(spec, fanouts, random, maxRequestVertices, DIM));
    }

    private List<MiniBatchPart> parts(BatchSpec spec, int[] fanouts, Random random, int maxRequestVertices, int dim) {
        BatchBuilder builder = new BatchBuilder(spec, fanouts, dim, partitioner, maxRequestVertices);
        Deque<SampleRequest> queue = new ArrayDeque<>(builder.start());
        while (!queue.isEmpty()) {
            List<SampleRequest> round = new ArrayList<>(queue);
            queue.clear();
            List<SampleResponse> responses = new ArrayList<>();
            for (SampleRequest r : round) {
                assertTrue(r.sampleVertices.length + r.featureVertices.length <= maxRequestVertices,
                        "request larger than " + maxRequestVertices + " vertices");
                responses.add(answer(r, dim));
                if (random != null && random.nextBoolean()) {
                    responses.add(answer(r, dim));
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
        return builder.buildParts();
    }

    private static SampleResponse answer(SampleRequest r, int dim) {
        SampleResponse s = new SampleResponse();
        s.batchId = r.batchId;
        s.hop = r.hop;
        s.partition = r.partition;
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
        s.featureVertices = r.featureVertices;
        s.features = new float[r.featureVertices.length * dim];
        s.labels = new int[r.featureVertices.length];
        for (int j = 0; j < r.featureVertices.length; j++) {
            s.features[j * dim] = r.featureVertices[j] * 10f;
            s.features[j * dim + dim - 1] = 1f;
            s.labels[j] = (int) r.featureVertices[j] % 3;
        }
        return s;
    }
}

package io.gnnstream.operators.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.operators.messages.BatchSpec;
import io.gnnstream.operators.messages.MiniBatch;
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

    @Test
    void batchWithoutSeedsCompletesAtOnce() {
        BatchBuilder builder = new BatchBuilder(spec(), new int[] {5}, DIM, partitioner, 100);
        assertTrue(builder.start().isEmpty());
        assertTrue(builder.isComplete());
        assertEquals(0, builder.build().numSeeds());
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
        BatchBuilder builder = new BatchBuilder(spec, fanouts, DIM, partitioner, maxRequestVertices);
        Deque<SampleRequest> queue = new ArrayDeque<>(builder.start());
        while (!queue.isEmpty()) {
            List<SampleRequest> round = new ArrayList<>(queue);
            queue.clear();
            List<SampleResponse> responses = new ArrayList<>();
            for (SampleRequest r : round) {
                assertTrue(r.sampleVertices.length + r.featureVertices.length <= maxRequestVertices,
                        "request larger than " + maxRequestVertices + " vertices");
                responses.add(answer(r));
                if (random != null && random.nextBoolean()) {
                    responses.add(answer(r));
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
        return builder.build();
    }

    private static SampleResponse answer(SampleRequest r) {
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
        s.features = new float[r.featureVertices.length * DIM];
        s.labels = new int[r.featureVertices.length];
        for (int j = 0; j < r.featureVertices.length; j++) {
            s.features[j * DIM] = r.featureVertices[j] * 10f;
            s.features[j * DIM + 1] = 1f;
            s.labels[j] = (int) r.featureVertices[j] % 3;
        }
        return s;
    }
}

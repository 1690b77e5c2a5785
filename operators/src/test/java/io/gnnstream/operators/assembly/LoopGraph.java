package io.gnnstream.operators.assembly;

import io.gnnstream.operators.messages.BatchSpec;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.messages.SampleRequest;
import io.gnnstream.operators.messages.SampleResponse;
import io.gnnstream.state.HashPartitioner;
import io.gnnstream.state.StoreSites;
import io.gnnstream.state.VertexPartitioner;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;

/**
 * The GraphStore of the assembly tests: vertices {@code 0..n-1} hash-partitioned over GraphStore
 * subtasks, whose in-neighbours depend on the graph's {@link #version} (a change rewires every
 * vertex). It answers a request as the GraphStore does: the sampled neighbours go back to the
 * assembler, the features of the feature vertices to the trainer as a part by row. Vertex {@code
 * v}'s features are {@code [v, version, attempt]} (the attempt of the request that fetched them)
 * and its label {@code v mod 3}, so a joined batch shows which vertex, graph and attempt each row
 * came from.
 */
final class LoopGraph {

    static final int DIM = 3;
    static final long TIMEOUT = 1_000;

    final int vertices;
    final VertexPartitioner partitioner;
    final StoreSites sites;
    int version;

    LoopGraph(int vertices, int partitions, int subtasks) {
        this.vertices = vertices;
        this.partitioner = new HashPartitioner(partitions);
        this.sites = new StoreSites(partitions, subtasks);
    }

    /** The assembler's settings for this graph: fanouts 2, 2 and a window of {@code window}. */
    AssemblerConfig config(int window) {
        return new AssemblerConfig(
                new int[] {2, 2}, DIM, partitioner, sites.parallelism(), TIMEOUT, window);
    }

    /** In-neighbours of {@code v} in slot order, at the current version. */
    long[] in(long v) {
        return new long[] {
            (v * 7 + 1 + 3L * version) % vertices,
            (v * 3 + 2) % vertices,
            (v + 5 + version) % vertices
        };
    }

    /** The GraphStore's sample: the first {@code fanout} in-neighbours ({@code -1}: all). */
    long[] sample(long v, int fanout) {
        long[] n = in(v);
        return fanout < 0 || fanout >= n.length ? n : Arrays.copyOf(n, fanout);
    }

    SampleResponse answer(SampleRequest r) {
        SampleResponse s = new SampleResponse();
        s.batchId = r.batchId;
        s.hop = r.hop;
        s.route = r.route;
        s.part = r.part;
        s.sampleVertices = r.sampleVertices;
        s.neighbourCounts = new int[r.sampleVertices.length];
        List<Long> all = new ArrayList<>();
        for (int i = 0; i < r.sampleVertices.length; i++) {
            long[] n = sample(r.sampleVertices[i], r.fanout);
            s.neighbourCounts[i] = n.length;
            Arrays.stream(n).forEach(all::add);
        }
        s.neighbours = all.stream().mapToLong(Long::longValue).toArray();
        return s;
    }

    /** The feature part a request asks for, sent by its subtask; null if it asks for none. */
    MiniBatchPart part(SampleRequest r) {
        if (r.featurePart == SampleRequest.NO_FEATURES) {
            return null;
        }
        ByteBuffer bytes =
                ByteBuffer.allocate(r.featureVertices.length * DIM * Float.BYTES)
                        .order(ByteOrder.LITTLE_ENDIAN);
        int[] labels = new int[r.featureVertices.length];
        for (int j = 0; j < r.featureVertices.length; j++) {
            bytes.asFloatBuffer()
                    .put(j * DIM, new float[] {r.featureVertices[j], version, r.attempt});
            labels[j] = (int) (r.featureVertices[j] % 3);
        }
        MiniBatchPart p =
                MiniBatchPart.features(
                        r.batchId,
                        r.seq,
                        r.trainer,
                        r.attempt,
                        r.featurePart,
                        r.featureRows.clone(),
                        labels,
                        bytes.array());
        p.sender = sites.siteOf(r.route);
        return p;
    }

    /**
     * Answers every request the core sends, in order, until it sends none; returns what reaches the
     * trainer meanwhile (feature parts and heads, in the order sent). Timers are not kept.
     */
    List<MiniBatchPart> serve(AssemblerCore core, AssemblerOutput out, long now)
            throws IOException {
        Deque<SampleRequest> queue = new ArrayDeque<>();
        List<MiniBatchPart> toTrainer = new ArrayList<>();
        take(out, queue, toTrainer);
        while (!queue.isEmpty()) {
            SampleRequest r = queue.poll();
            MiniBatchPart p = part(r);
            if (p != null) {
                toTrainer.add(p);
            }
            core.onResponse(answer(r), now, out);
            take(out, queue, toTrainer);
        }
        return toTrainer;
    }

    private static void take(
            AssemblerOutput out, Deque<SampleRequest> queue, List<MiniBatchPart> toTrainer) {
        out.bundles().forEach(b -> queue.addAll(List.of(b)));
        toTrainer.addAll(out.heads());
        out.clear();
    }

    /**
     * Checks a joined batch against the graph at {@code atVersion}: every hop's sources are the
     * sample of its destination, every row holds its own node's features of that version, all
     * fetched by one attempt, every seed its label. With {@code atVersion} -1 (the graph changed
     * while the batch was built), only that every row is its own node's, of one attempt, and every
     * seed has its label.
     */
    void check(MiniBatch b, int[] fanouts, int atVersion) {
        int was = version;
        version = atVersion;
        try {
            for (int h = 1; atVersion >= 0 && h <= b.numLayers; h++) {
                for (int d = 0; d < b.numDst(h); d++) {
                    long[] sources = new long[b.edgeEnd(h, d) - b.edgeStart(h, d)];
                    for (int k = 0; k < sources.length; k++) {
                        sources[k] = b.nodeIds[b.indices[b.edgeStart(h, d) + k]];
                    }
                    expect(
                            Arrays.equals(sample(b.nodeIds[d], fanouts[h - 1]), sources),
                            "hop " + h + " sources of node " + d);
                }
            }
            for (int i = 0; i < b.numNodes(); i++) {
                expect(
                        b.features[i * DIM] == b.nodeIds[i]
                                && (atVersion < 0 || b.features[i * DIM + 1] == atVersion)
                                && b.features[i * DIM + 2] == b.features[2],
                        "row "
                                + i
                                + " of vertex "
                                + b.nodeIds[i]
                                + " holds "
                                + Arrays.toString(
                                        Arrays.copyOfRange(b.features, i * DIM, i * DIM + DIM)));
            }
            for (int i = 0; i < b.numSeeds(); i++) {
                expect(b.labels[i] == b.nodeIds[i] % 3, "label of seed " + i);
            }
        } finally {
            version = was;
        }
    }

    private static void expect(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }

    /** A training spec of batch {@code id} (its own {@code seq}) for rank 0. */
    static BatchSpec spec(long id, long... seeds) {
        BatchSpec s = new BatchSpec();
        s.batchId = id;
        s.seq = id;
        s.kind = MiniBatch.Kind.TRAIN;
        s.seeds = seeds;
        return s;
    }
}

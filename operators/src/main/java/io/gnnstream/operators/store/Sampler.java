package io.gnnstream.operators.store;

import io.gnnstream.operators.messages.SampleRequest;
import io.gnnstream.operators.messages.SampleResponse;
import io.gnnstream.state.EvalNeighbourhood;
import io.gnnstream.state.InAdjacency;
import io.gnnstream.state.Mix;
import io.gnnstream.state.VertexPartitioner;
import java.util.SplittableRandom;

/**
 * The GraphStore's neighbour sampling: the in-adjacency behind the adjacency cache (a {@link
 * VertexValueCache} of tails, or of whole lists up to {@link #FLAT_DEGREE} neighbours). Training
 * requests sample with a generator seeded by {@code (seed, sampling key, hop, vertex)}, so a
 * request answered twice gives the same answer on the same graph; evaluation requests ({@link
 * SampleRequest#evalNeighbourhood}) take each vertex's {@link EvalNeighbourhood}. See
 * docs/design.md, "Graph state".
 */
final class Sampler {

    /**
     * Up to this many in-neighbours, the adjacency cache holds a vertex's whole list (at most 32
     * KiB) instead of its tail, so sampling it reads no blocks from RocksDB; larger hubs are few: a
     * training sample reads at most a fanout's worth of their blocks, an evaluation request above
     * the fanout all of them. Smaller for a small cache: a list takes at most 1/64 of it, so that
     * it stays cached.
     */
    static final int FLAT_DEGREE = 4096;

    /** Cached in place of a missing tail, so vertices without in-neighbours are cache hits too. */
    private static final byte[] NO_NEIGHBOURS = new byte[0];

    private final InAdjacency adjacency;
    private final VertexValueCache tails;
    private final int flatDegree;
    private final long seed;
    private final VertexPartitioner partitioner;
    private final CurrentKey keys;
    private final int subtask;

    /** Null: none. */
    private final StoreProbe probe;

    Sampler(
            InAdjacency adjacency,
            long cacheBytes,
            long seed,
            VertexPartitioner partitioner,
            CurrentKey keys,
            int subtask,
            StoreProbe probe) {
        this.adjacency = adjacency;
        this.tails = new VertexValueCache(cacheBytes);
        this.flatDegree = (int) Math.min(FLAT_DEGREE, cacheBytes / 64 / Long.BYTES);
        this.seed = seed;
        this.partitioner = partitioner;
        this.keys = keys;
        this.subtask = subtask;
        this.probe = probe;
    }

    /** Drops the cached adjacency of {@code vertex}, whose adjacency changed. */
    void invalidate(long vertex) {
        tails.invalidate(vertex);
    }

    /**
     * Samples the in-neighbours of the request's sample vertices into {@code response}. All tails
     * are looked up in the cache before any is read: reads of different vertices' values do not
     * depend on each other, so the processor overlaps their cache misses (a loop that looks up and
     * samples one vertex at a time would wait for each miss in turn).
     */
    void sample(SampleRequest request, SampleResponse response) throws Exception {
        long[] vertices = request.sampleVertices;
        byte[][] cached = new byte[vertices.length][];
        tails.getAll(vertices, 0, vertices.length, cached);
        boolean[] fromState = new boolean[vertices.length];
        for (int i = 0; i < vertices.length; i++) {
            fromState[i] = cached[i] == null || InAdjacency.readsBlocks(cached[i]);
        }
        long[][] sampled = new long[vertices.length][];
        int total = 0;
        for (int i = 0; i < vertices.length; i++) {
            if (fromState[i]) {
                cached[i] = tailFromState(vertices[i], cached[i]);
            }
            sampled[i] =
                    request.evalNeighbourhood
                            ? evalNeighbourhood(vertices[i], cached[i], request.fanout)
                            : adjacency.sample(
                                    cached[i],
                                    request.fanout,
                                    new SplittableRandom(
                                            Mix.seed(
                                                    seed,
                                                    request.samplingKey,
                                                    request.hop,
                                                    vertices[i])));
            total += sampled[i].length;
        }
        if (probe != null) {
            for (int i = 0; i < vertices.length; i++) {
                probe.sampled(subtask, vertices[i], sampled[i]);
            }
        }
        response.sampleVertices = vertices;
        response.neighbourCounts = new int[vertices.length];
        response.neighbours = new long[total];
        int at = 0;
        for (int i = 0; i < vertices.length; i++) {
            response.neighbourCounts[i] = sampled[i].length;
            System.arraycopy(sampled[i], 0, response.neighbours, at, sampled[i].length);
            at += sampled[i].length;
        }
    }

    /**
     * Per vertex of {@code vertices}, the size of its {@link EvalNeighbourhood} under {@code
     * fanout} ({@code -1}: all) plus one: the degree with the self-loop that a GCN with the
     * symmetric normalisation divides by. Tails come from the adjacency cache, else the state (and
     * are cached), as for sampling.
     */
    int[] evalDegrees(long[] vertices, int fanout) throws Exception {
        byte[][] cached = new byte[vertices.length][];
        tails.getAll(vertices, 0, vertices.length, cached);
        int[] degrees = new int[vertices.length];
        for (int i = 0; i < vertices.length; i++) {
            byte[] tail = cached[i] != null ? cached[i] : tailFromState(vertices[i], null);
            int degree = InAdjacency.degree(tail);
            degrees[i] = (fanout < 0 ? degree : Math.min(degree, fanout)) + 1;
        }
        return degrees;
    }

    /**
     * The {@link EvalNeighbourhood} of {@code vertex}, whose tail is {@code tail}: all neighbours
     * in slot order up to {@code fanout}, else the bottom {@code fanout} by rank, which reads all
     * of them (a hub above {@link #FLAT_DEGREE} costs its blocks in one prefix scan).
     */
    private long[] evalNeighbourhood(long vertex, byte[] tail, int fanout) throws Exception {
        if (!EvalNeighbourhood.selects(InAdjacency.degree(tail), fanout)) {
            return adjacency.sample(tail, -1, null);
        }
        return EvalNeighbourhood.neighbours(vertex, adjacency.neighbours(tail), fanout);
    }

    /**
     * Makes {@code vertex} the current key (sampling a tail with blocks reads them) and returns its
     * tail: {@code cached}, or read from the state and cached when {@code cached} is null.
     */
    private byte[] tailFromState(long vertex, byte[] cached) throws Exception {
        keys.set(partitioner.keyOf(vertex));
        if (cached != null) {
            return cached;
        }
        byte[] tail = adjacency.tail(flatDegree);
        tails.put(vertex, tail == null ? NO_NEIGHBOURS : tail);
        return tail;
    }
}

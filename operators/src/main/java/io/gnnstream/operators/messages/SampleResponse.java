package io.gnnstream.operators.messages;

/**
 * The GraphStore's answer to a {@link SampleRequest}, back to the assembler: for the i-th sampled
 * vertex, {@code neighbourCounts[i]} neighbours in {@code neighbours} (in order). The features of
 * the request's feature vertices do not come back here: they go straight to the trainer as a {@link
 * MiniBatchPart}, so the assembler never copies them.
 */
public class SampleResponse {

    public long batchId;
    public int hop;

    /** The request's {@link SampleRequest#route}. */
    public int route;

    public int part;
    public long[] sampleVertices;
    public int[] neighbourCounts;
    public long[] neighbours;

    /**
     * With halo replicas: bit {@code i} (of word {@code i / 64}) is set when the features of {@code
     * neighbours[i]} went to the trainer in the request's neighbour part, read locally (owned or
     * replicated in the sampling vertex's partition); the assembler fetches the others' from their
     * owners. Empty without a neighbour part.
     */
    public long[] servedBits = new long[0];

    /**
     * Inference blocks of a layer after the first: per sampled vertex, its sampled in-neighbours
     * whose rows this subtask owns and summed into the vertex's root part (see {@link
     * MiniBatch#summedNeighbours}); they are not in {@code neighbours}. Empty when none were.
     */
    public int[] summedCounts = new int[0];

    /** Whether the features of {@code neighbours[i]} came in the neighbour part. */
    public boolean served(int i) {
        return (i >>> 6) < servedBits.length && (servedBits[i >>> 6] & (1L << i)) != 0;
    }

    public SampleResponse() {}
}

package io.gnnstream.operators.messages;

/**
 * The GraphStore's answer to a {@link SampleRequest}, back to the assembler: for the i-th sampled
 * vertex, {@code neighbourCounts[i]} neighbours in {@code neighbours} (in order). The features of
 * the request's feature vertices do not come back here: they go straight to the trainer as a
 * {@link MiniBatchPart}, so the assembler never copies them.
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
     * With halo replicas: the sampled neighbours whose features this subtask read locally (owned or
     * replicated in the sampling vertex's partition) and sent to the trainer as the request's
     * neighbour part; the assembler fetches the others' from their owners.
     */
    public long[] served = new long[0];

    public SampleResponse() {}
}

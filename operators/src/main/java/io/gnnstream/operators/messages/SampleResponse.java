package io.gnnstream.operators.messages;

/**
 * The GraphStore's answer to a {@link SampleRequest}: for the i-th sampled vertex,
 * {@code neighbourCounts[i]} neighbours in {@code neighbours} (in order); for the j-th feature
 * vertex, a row of {@code featureDim} floats in {@code features} and its label ({@code -1} if the
 * vertex has no attributes yet, in which case its features are zero).
 */
public class SampleResponse {

    public long batchId;
    public int hop;
    public int partition;
    public int part;
    public long[] sampleVertices;
    public int[] neighbourCounts;
    public long[] neighbours;
    public long[] featureVertices;
    public float[] features;
    public int[] labels;

    public SampleResponse() {}
}

package io.gnnstream.operators.messages;

/**
 * One hop of one batch for one partition: sample {@code fanout} in-neighbours of each
 * {@code sampleVertices} entry ({@code -1} = all) and return the attributes of each
 * {@code featureVertices} entry. Travels on the sampling loop's feedback edge.
 */
public class SampleRequest {

    public long batchId;
    public int hop;
    public int partition;
    public int fanout;
    public long[] sampleVertices;
    public long[] featureVertices;

    public SampleRequest() {}

    public SampleRequest(long batchId, int hop, int partition, int fanout, long[] sampleVertices, long[] featureVertices) {
        this.batchId = batchId;
        this.hop = hop;
        this.partition = partition;
        this.fanout = fanout;
        this.sampleVertices = sampleVertices;
        this.featureVertices = featureVertices;
    }
}

package io.gnnstream.operators.messages;

/**
 * One hop of one batch for one partition: sample {@code fanout} in-neighbours of each
 * {@code sampleVertices} entry ({@code -1} = all) and return the attributes of each
 * {@code featureVertices} entry. A partition's vertices of one hop may be split over several
 * requests, numbered by {@code part}. Travels on the sampling loop's feedback edge.
 */
public class SampleRequest {

    public long batchId;
    public int hop;
    public int partition;
    public int part;
    public int fanout;
    public long[] sampleVertices;
    public long[] featureVertices;

    public SampleRequest() {}

    public SampleRequest(long batchId, int hop, int partition, int part, int fanout, long[] sampleVertices,
            long[] featureVertices) {
        this.batchId = batchId;
        this.hop = hop;
        this.partition = partition;
        this.part = part;
        this.fanout = fanout;
        this.sampleVertices = sampleVertices;
        this.featureVertices = featureVertices;
    }
}

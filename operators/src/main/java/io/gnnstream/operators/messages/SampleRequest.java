package io.gnnstream.operators.messages;

/**
 * One hop of one batch for one route, the partitions one GraphStore subtask owns, named by the
 * lowest of them in {@link #route} (which keys the request to that subtask): sample {@code fanout}
 * in-neighbours of each {@code sampleVertices} entry ({@code -1} = all; uniformly, or by {@link
 * #evalNeighbourhood}) and send the attributes of each {@code featureVertices} entry to the batch's
 * trainer, as feature part {@code featurePart} of the batch's {@code attempt}, for rows {@code
 * featureRows}. A route's vertices of one hop may be split over several requests, numbered by
 * {@code part}. Travels on the sampling loop's feedback edge.
 */
public class SampleRequest {

    /** {@link #featurePart} of a request without feature vertices. */
    public static final int NO_FEATURES = -1;

    public long batchId;

    /**
     * Seeds the neighbour sampling together with hop and vertex: the batch's training step, so that
     * a vertex sampled in one step gets the same neighbours whichever trainer rank's batch asked.
     */
    public long samplingKey;

    /** The batch's position in its trainer's input sequence (see {@link MiniBatch#seq}). */
    public long seq;

    public int trainer;
    public int attempt;
    public int hop;

    /**
     * The route: the lowest partition the receiving GraphStore subtask owns. The request is keyed
     * by that partition's anchor, so it reaches that subtask; all its vertices are in partitions
     * that subtask owns.
     */
    public int route;

    public int part;
    public int fanout;

    /**
     * A request of an evaluation or inference block: a vertex with more than {@link #fanout}
     * in-neighbours gets its {@code EvalNeighbourhood} (the {@code fanout} of smallest rank, in
     * ascending order of rank), not a uniform sample.
     */
    public boolean evalNeighbourhood;

    public long[] sampleVertices;
    public long[] featureVertices;

    /** Feature part number within the batch's attempt, or {@link #NO_FEATURES}. */
    public int featurePart;

    /** Row (node number) in the batch of each feature vertex. */
    public int[] featureRows;

    /**
     * With halo replicas: the feature part number under which the GraphStore sends the features of
     * the sampled neighbours it reads locally, addressed by vertex (see {@link
     * SampleResponse#served}); {@link #NO_FEATURES} for none.
     */
    public int neighbourPart = NO_FEATURES;

    /**
     * {@code 0}: the feature vertices' attributes. {@code j >= 1}: their outputs of model layer
     * {@code j} from the layer-output store, written by the inference round of step {@link
     * #samplingKey}, {@link #layerDim} floats each (an inference block of layer {@code j+1}).
     */
    public int layerInput;

    public int layerDim;

    /**
     * With {@link #layerInput}: feature rows below this are the block's destinations, which also
     * get the leading root part of a stored row (see {@code LayerOutputStore}); 0 for others.
     */
    public int layerRootRows;

    public SampleRequest() {}

    /** A request without feature vertices. */
    public static SampleRequest sampleOnly(
            long batchId,
            long samplingKey,
            int hop,
            int route,
            int part,
            int fanout,
            long[] sampleVertices) {
        SampleRequest r = new SampleRequest();
        r.batchId = batchId;
        r.samplingKey = samplingKey;
        r.hop = hop;
        r.route = route;
        r.part = part;
        r.fanout = fanout;
        r.sampleVertices = sampleVertices;
        r.featureVertices = new long[0];
        r.featurePart = NO_FEATURES;
        r.featureRows = new int[0];
        return r;
    }

    /**
     * A request that asks nothing (batch -1): keeps records moving on the sampling loop's feedback
     * edge.
     */
    public static SampleRequest heartbeat(int route) {
        return sampleOnly(-1, -1, 0, route, 0, 0, new long[0]);
    }

    public boolean isHeartbeat() {
        return batchId < 0;
    }

    /** Sets where the features go: batch position, trainer, attempt, part number and rows. */
    public SampleRequest withFeatures(
            long seq, int trainer, int attempt, int featurePart, long[] vertices, int[] rows) {
        if (vertices.length != rows.length) {
            throw new IllegalArgumentException(
                    vertices.length + " feature vertices but " + rows.length + " rows");
        }
        this.seq = seq;
        this.trainer = trainer;
        this.attempt = attempt;
        this.featurePart = vertices.length == 0 ? NO_FEATURES : featurePart;
        this.featureVertices = vertices;
        this.featureRows = rows;
        return this;
    }

    /** The batch this record belongs to. */
    public BatchAddress address() {
        return new BatchAddress(trainer, seq, batchId);
    }
}

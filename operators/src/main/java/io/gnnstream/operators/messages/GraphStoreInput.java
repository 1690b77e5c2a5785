package io.gnnstream.operators.messages;

/**
 * What reaches the GraphStore: a graph update from the sources or a sample request from the
 * sampling loop's feedback edge. One type, so both can be keyed by the same selector after the
 * iteration head (a head does not keep the partitioning of its feedback edge).
 */
public class GraphStoreInput {

    public GraphUpdate update;
    public SampleRequest request;

    public GraphStoreInput() {}

    public static GraphStoreInput of(GraphUpdate update) {
        GraphStoreInput in = new GraphStoreInput();
        in.update = update;
        return in;
    }

    public static GraphStoreInput of(SampleRequest request) {
        GraphStoreInput in = new GraphStoreInput();
        in.request = request;
        return in;
    }
}

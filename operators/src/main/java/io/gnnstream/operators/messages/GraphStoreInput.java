package io.gnnstream.operators.messages;

/**
 * What reaches the GraphStore: a graph update from the sources, a halo {@link ReplicaMessage} from
 * the replica router, a site's copy of a {@link VertexDeletion}, or sample requests and {@link
 * LayerOutputs} from the sampling loop's feedback edge; and what reaches the replica router: node
 * updates, deletions and {@link EdgeBundle}s. One type, so that the updates and the requests that
 * leave the iteration head form one stream under one key selector (a head does not keep the
 * partitioning of its feedback edge, so the requests are keyed after it). Requests travel in
 * bundles of those for partitions of one GraphStore subtask (keyed by their common {@link
 * SampleRequest#route}): the feedback edge hands records from thread to thread one by one, and a
 * batch's hundreds of requests, sent singly, would keep its two threads switching more than
 * working.
 */
public class GraphStoreInput {

    public GraphUpdate update;

    /** Requests for partitions owned by one GraphStore subtask, or null. */
    public SampleRequest[] requests;

    /** A halo replica change from the replica router, or null. */
    public ReplicaMessage replica;

    /** Edges between partitions for the replica router, or null. */
    public EdgeBundle edges;

    /** Layer outputs of an inference block for the layer-output store, or null. */
    public LayerOutputs outputs;

    /** One site's copy of a vertex deletion, or null. */
    public VertexDeletion deletion;

    public GraphStoreInput() {}

    public static GraphStoreInput of(GraphUpdate update) {
        GraphStoreInput in = new GraphStoreInput();
        in.update = update;
        return in;
    }

    public static GraphStoreInput of(ReplicaMessage replica) {
        GraphStoreInput in = new GraphStoreInput();
        in.replica = replica;
        return in;
    }

    public static GraphStoreInput of(EdgeBundle edges) {
        GraphStoreInput in = new GraphStoreInput();
        in.edges = edges;
        return in;
    }

    public static GraphStoreInput of(VertexDeletion deletion) {
        GraphStoreInput in = new GraphStoreInput();
        in.deletion = deletion;
        return in;
    }

    public static GraphStoreInput of(LayerOutputs outputs) {
        GraphStoreInput in = new GraphStoreInput();
        in.outputs = outputs;
        return in;
    }

    public static GraphStoreInput of(SampleRequest... requests) {
        if (requests.length == 0) {
            throw new IllegalArgumentException("a request bundle needs at least one request");
        }
        GraphStoreInput in = new GraphStoreInput();
        in.requests = requests;
        return in;
    }
}

package io.gnnstream.operators.messages;

import io.gnnstream.state.VertexKey;
import io.gnnstream.state.VertexPartitioner;

/**
 * What reaches the GraphStore, one type per kind: a graph update from the sources, a bundle of
 * edges, a halo {@link ReplicaMessage} from the replica router, a site's copy of a {@link
 * VertexDeletion}, or sample requests and {@link LayerOutputs} from the sampling loop; and what
 * reaches the replica router: node updates, deletions and {@link EdgeBundle}s. One stream type, so
 * that the updates and the requests that leave the iteration head form one stream under one key
 * selector (a head does not keep the partitioning of its feedback edge, so the requests are keyed
 * after it). Requests travel in bundles of those for partitions of one GraphStore subtask (keyed by
 * their common {@link SampleRequest#route}): the feedback edge hands records from thread to thread
 * one by one, and a batch's hundreds of requests, sent singly, would keep its two threads switching
 * more than working.
 */
public sealed interface GraphStoreInput {

    /** The GraphStore's key of this input: the vertex it changes, or the anchor of its route. */
    VertexKey storeKey(VertexPartitioner partitioner);

    /** An edge or node record, keyed by the vertex whose state it changes. */
    record Update(GraphUpdate update) implements GraphStoreInput {
        @Override
        public VertexKey storeKey(VertexPartitioner partitioner) {
            return partitioner.keyOf(update.ownerVertex());
        }
    }

    /** Edges whose destinations one GraphStore subtask owns, or edges between partitions. */
    record Edges(EdgeBundle bundle) implements GraphStoreInput {
        @Override
        public VertexKey storeKey(VertexPartitioner partitioner) {
            return VertexKey.anchor(bundle.route);
        }
    }

    /** A halo replica change from the replica router. */
    record Replica(ReplicaMessage message) implements GraphStoreInput {
        @Override
        public VertexKey storeKey(VertexPartitioner partitioner) {
            return message.key();
        }
    }

    /** One site's copy of a vertex deletion. */
    record Deletion(VertexDeletion deletion) implements GraphStoreInput {
        @Override
        public VertexKey storeKey(VertexPartitioner partitioner) {
            return VertexKey.anchor(deletion.route);
        }
    }

    /** Layer outputs of an inference block for the layer-output store. */
    record Outputs(LayerOutputs outputs) implements GraphStoreInput {
        @Override
        public VertexKey storeKey(VertexPartitioner partitioner) {
            return VertexKey.anchor(outputs.route);
        }
    }

    /** Requests for partitions owned by one GraphStore subtask. */
    record Requests(SampleRequest[] requests) implements GraphStoreInput {
        @Override
        public VertexKey storeKey(VertexPartitioner partitioner) {
            return VertexKey.anchor(requests[0].route);
        }
    }

    static GraphStoreInput of(GraphUpdate update) {
        return new Update(update);
    }

    static GraphStoreInput of(ReplicaMessage replica) {
        return new Replica(replica);
    }

    static GraphStoreInput of(EdgeBundle edges) {
        return new Edges(edges);
    }

    static GraphStoreInput of(VertexDeletion deletion) {
        return new Deletion(deletion);
    }

    static GraphStoreInput of(LayerOutputs outputs) {
        return new Outputs(outputs);
    }

    static GraphStoreInput of(SampleRequest... requests) {
        if (requests.length == 0) {
            throw new IllegalArgumentException("a request bundle needs at least one request");
        }
        return new Requests(requests);
    }
}

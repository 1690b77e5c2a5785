package io.gnnstream.operators.messages;

import io.gnnstream.state.records.EdgeUpdate;
import io.gnnstream.state.records.NodeUpdate;

/** Either an edge or a node update, so both reach the GraphStore on one keyed input. */
public class GraphUpdate {

    public EdgeUpdate edge;
    public NodeUpdate node;

    public GraphUpdate() {}

    public static GraphUpdate of(EdgeUpdate edge) {
        GraphUpdate u = new GraphUpdate();
        u.edge = edge;
        return u;
    }

    public static GraphUpdate of(NodeUpdate node) {
        GraphUpdate u = new GraphUpdate();
        u.node = node;
        return u;
    }

    /** The vertex whose state the update changes: the destination of an edge, or the node. */
    public long ownerVertex() {
        return edge != null ? edge.dst : node.id;
    }

    @Override
    public String toString() {
        return edge != null ? edge.toString() : String.valueOf(node);
    }
}

package io.gnnstream.state;

import io.gnnstream.state.records.NodeUpdate;
import io.gnnstream.state.records.Split;

/** Stored attributes of one vertex (keyed state value); a Flink POJO, no Kryo. */
public class VertexAttributes {

    public float[] features;
    public int label = NodeUpdate.NO_LABEL;
    public Split split = Split.NONE;

    public VertexAttributes() {}

    public VertexAttributes(float[] features, int label, Split split) {
        this.features = features;
        this.label = label;
        this.split = split;
    }

    public static VertexAttributes of(NodeUpdate node) {
        return new VertexAttributes(node.features, node.label, node.split);
    }
}

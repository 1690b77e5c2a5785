package io.gnnstream.state.records;

import java.util.Arrays;
import java.util.Objects;

/**
 * Attributes of a vertex (features, label, split); a later update replaces an earlier one. {@link
 * #NO_LABEL} marks an unlabelled vertex. A {@link #deletion} (no features) deletes the vertex with
 * its edges instead (docs/design.md, "Vertex deletion"). A Flink POJO, serialized without Kryo.
 */
public class NodeUpdate {

    public static final int NO_LABEL = -1;

    public long id;
    public float[] features;
    public int label = NO_LABEL;
    public Split split = Split.NONE;

    /** Whether this record deletes the vertex (then {@link #features} is null). */
    public boolean delete;

    public NodeUpdate() {}

    /** The deletion of vertex {@code id}: its attributes, in- and out-edges and replicas. */
    public static NodeUpdate deletion(long id) {
        NodeUpdate n = new NodeUpdate(id, null, NO_LABEL, Split.NONE);
        n.delete = true;
        return n;
    }

    public NodeUpdate(long id, float[] features, int label, Split split) {
        this.id = id;
        this.features = features;
        this.label = label;
        this.split = split;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof NodeUpdate)) {
            return false;
        }
        NodeUpdate n = (NodeUpdate) o;
        return id == n.id
                && delete == n.delete
                && label == n.label
                && split == n.split
                && Arrays.equals(features, n.features);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, label, split) * 31 + Arrays.hashCode(features);
    }

    @Override
    public String toString() {
        if (delete) {
            return "NodeUpdate(" + id + ", delete)";
        }
        return "NodeUpdate("
                + id
                + ", label="
                + label
                + ", split="
                + split
                + ", dim="
                + (features == null ? 0 : features.length)
                + ")";
    }
}

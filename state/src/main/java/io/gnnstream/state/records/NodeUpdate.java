package io.gnnstream.state.records;

import java.util.Arrays;
import java.util.Objects;

/**
 * Attributes of a vertex (features, label, split); a later update replaces an earlier one. {@link
 * #NO_LABEL} marks an unlabelled vertex. A Flink POJO, serialized without Kryo.
 */
public class NodeUpdate {

    public static final int NO_LABEL = -1;

    public long id;
    public float[] features;
    public int label = NO_LABEL;
    public Split split = Split.NONE;

    public NodeUpdate() {}

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

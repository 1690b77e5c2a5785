package io.gnnstream.tools.formats;

import io.gnnstream.state.records.NodeUpdate;
import io.gnnstream.state.records.Split;

/**
 * Writes node lines in the nodes topic's JSON format, {@code
 * {"id":…,"label":…,"split":…,"features":[…]}}; the label is left out when absent. Integral
 * features are written as integers, others as the shortest decimal that reads back to the same
 * float.
 */
final class NodeLines {

    private final StringBuilder sb = new StringBuilder(256);

    /** One node line; {@code label} is {@link NodeUpdate#NO_LABEL} when absent. */
    String line(long id, int label, Split split, float[] features) {
        return line(id, label, split, features, features.length);
    }

    /** One node line from the first {@code dim} entries of {@code features}. */
    String line(long id, int label, Split split, float[] features, int dim) {
        sb.setLength(0);
        sb.append("{\"id\":").append(id);
        if (label != NodeUpdate.NO_LABEL) {
            sb.append(",\"label\":").append(label);
        }
        sb.append(",\"split\":\"").append(split.wireName()).append("\",\"features\":[");
        for (int i = 0; i < dim; i++) {
            if (i > 0) {
                sb.append(',');
            }
            appendFloat(sb, features[i]);
        }
        return sb.append("]}").toString();
    }

    static void appendFloat(StringBuilder sb, float v) {
        int i = (int) v;
        if (i == v && Math.abs(v) < (1 << 24) && !(v == 0 && 1 / v < 0)) {
            sb.append(i);
        } else {
            sb.append(Float.toString(v));
        }
    }
}

package io.gnnstream.operators.model;

import java.util.Locale;

/**
 * The normalisation of a {@link GcnModel} layer ({@code --gcn-norm}): {@link #MEAN} over the
 * destination and its sampled neighbours, or the GCN paper's symmetric {@link #SYM}.
 */
public enum GcnNorm {
    /** {@code (h_v + sum_u h_u) / (|N(v)| + 1)}: DGL's {@code GraphConv(norm="right")}. */
    MEAN,
    /**
     * Kipf &amp; Welling's {@code D^-1/2 (A + I) D^-1/2} with degrees counted with the self-loop,
     * as PyG's {@code GCNConv}: needs every node's degree in the batch ({@code MiniBatch.degrees}).
     */
    SYM;

    /** The lower-case name of command lines and manifests. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The norm named {@code name} ({@code mean} or {@code sym}, any case).
     *
     * @throws IllegalArgumentException for another name
     */
    public static GcnNorm parse(String name) {
        for (GcnNorm n : values()) {
            if (n.id().equalsIgnoreCase(name == null ? "" : name.trim())) {
                return n;
            }
        }
        throw new IllegalArgumentException("gcn norm must be mean or sym, got " + name);
    }
}

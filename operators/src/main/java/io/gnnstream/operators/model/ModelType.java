package io.gnnstream.operators.model;

import java.util.Locale;

/**
 * The architecture a {@link ModelConfig} describes; {@link GnnModel#create} builds the matching
 * class. {@link #id()} is the lower-case name used on command lines, in {@link ModelConfig#toMap()}
 * and in export manifests.
 */
public enum ModelType {

    /** {@link SageModel}: GraphSAGE with mean aggregation and a separate root weight. */
    SAGE("sage", "GraphSAGE-mean (PyG SAGEConv aggr=mean, root_weight=True)"),

    /**
     * {@link GcnModel}: GCN with a self-loop and mean normalisation over the sampled neighbourhood.
     */
    GCN(
            "gcn",
            "GCN with self-loop and mean normalisation over the sampled in-neighbours "
                    + "(DGL GraphConv norm=right on the block with a self-loop per destination)");

    private final String id;
    private final String description;

    ModelType(String id, String description) {
        this.id = id;
        this.description = description;
    }

    /** The lower-case name: {@code "sage"} or {@code "gcn"}. */
    public String id() {
        return id;
    }

    /** A one-line human-readable description of the architecture. */
    public String description() {
        return description;
    }

    /**
     * The type named {@code name} ({@code "sage"} or {@code "gcn"}, any case, surrounding blanks
     * ignored).
     *
     * @throws IllegalArgumentException if {@code name} is null or names no type
     */
    public static ModelType parse(String name) {
        if (name != null) {
            String key = name.trim().toLowerCase(Locale.ROOT);
            for (ModelType t : values()) {
                if (t.id.equals(key)) {
                    return t;
                }
            }
        }
        throw new IllegalArgumentException(
                "unknown model type "
                        + (name == null ? "null" : "'" + name + "'")
                        + ", expected one of: sage, gcn");
    }
}

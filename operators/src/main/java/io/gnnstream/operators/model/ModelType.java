package io.gnnstream.operators.model;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The registry of architectures: each type a {@link ModelConfig} can name holds its {@link
 * Architecture}, which says everything else needs to know about it (names, tensors, model
 * construction, round rows, aggregation). Adding an architecture adds one constant here. {@link
 * #id()} is the lower-case name used on command lines, in {@link ModelConfig#toMap()} and in export
 * manifests.
 */
public enum ModelType {

    /** {@link SageModel}: GraphSAGE with mean aggregation and a separate root weight. */
    SAGE(new SageArchitecture()),

    /**
     * {@link GcnModel}: GCN with a self-loop and mean normalisation over the sampled neighbourhood.
     */
    GCN(new GcnArchitecture()),

    /** {@link GatModel}: GAT with multi-head attention over the sampled neighbours and itself. */
    GAT(new GatArchitecture());

    /** The type of configs that name none (and of configs and exports made before types). */
    public static final ModelType DEFAULT = SAGE;

    private final Architecture architecture;

    ModelType(Architecture architecture) {
        this.architecture = architecture;
    }

    /** What this type's models are: the one place that knows about the architecture. */
    public Architecture architecture() {
        return architecture;
    }

    /** The lower-case name: {@code "sage"}, {@code "gcn"} or {@code "gat"}. */
    public String id() {
        return architecture.id();
    }

    /** A one-line human-readable description of the architecture. */
    public String description() {
        return architecture.description();
    }

    /**
     * The type named {@code name} ({@code "sage"}, {@code "gcn"} or {@code "gat"}, any case,
     * surrounding blanks ignored).
     *
     * @throws IllegalArgumentException if {@code name} is null or names no type
     */
    public static ModelType parse(String name) {
        if (name != null) {
            String key = name.trim().toLowerCase(Locale.ROOT);
            for (ModelType t : values()) {
                if (t.id().equals(key)) {
                    return t;
                }
            }
        }
        throw new IllegalArgumentException(
                "unknown model type "
                        + (name == null ? "null" : "'" + name + "'")
                        + ", expected one of: "
                        + Arrays.stream(values())
                                .map(ModelType::id)
                                .collect(Collectors.joining(", ")));
    }
}

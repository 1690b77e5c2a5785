package io.gnnstream.operators.model;

import java.util.List;

/**
 * What the rest of the system knows about one GNN architecture, implemented once per {@link
 * ModelType} ({@link SageArchitecture}, {@link GcnArchitecture}, {@link GatArchitecture}): its
 * names, its parameter tensors, how its model is built, the shape of the rows an inference round
 * stores for it and how a destination's aggregate is formed from its own row and its neighbours'
 * sum. Operators, the layer-output store, incremental predictions and the export ask the {@link
 * ModelConfig# architecture()} instead of switching on the type, so a new architecture is its model
 * class, its kernels class, an implementation of this interface and one line in {@link ModelType}.
 *
 * <p>A layer of SAGE and GCN is one dense input row per destination, {@link #weightBlocks()} blocks
 * of {@code in} floats and a constant 1, times the layer's parameter slice (the blocks' {@code in x
 * out} weights stacked above the bias), see {@link GnnModelBase}; GAT's layers attend over the rows
 * themselves ({@link GatModel}).
 */
public interface Architecture {

    /** The lower-case name used on command lines, in {@link ModelConfig#toMap()} and exports. */
    String id();

    /** A one-line human-readable description (export manifests). */
    String description();

    /** Blocks of {@code in} floats in a layer's dense input row, each with its own weight. */
    int weightBlocks();

    /**
     * Whether the first weight block multiplies the destination's own row only (a root weight, as
     * SAGE's): of a projected round row its first {@code layerOut} floats are then read by the
     * destination alone ({@link ModelConfig#roundRootWidth}), and the rest, the neighbour term, is
     * linear in the neighbours' rows, so owners may sum it ({@link #scaleOwnedSum}).
     */
    boolean hasRootWeight();

    /**
     * Whether a layer is linear in its input rows, so that an inference round may store their
     * projections ({@link GnnModel#project}) instead of the rows; false for attention.
     */
    default boolean projectsRows() {
        return true;
    }

    /**
     * Whether the architecture has attention heads ({@link ModelConfig#heads()}, {@link
     * ModelConfig#outHeads()}, {@link ModelConfig#attentionDropout()}); others need one head.
     */
    default boolean hasHeads() {
        return false;
    }

    /**
     * Whether the architecture takes a choice of normalisation ({@link ModelConfig#gcnNorm()},
     * {@code --gcn-norm}); the others have their own.
     */
    default boolean hasGcnNorm() {
        return false;
    }

    /** Whether the architecture has GPU kernels ({@link #gpuMode()}); {@code --device cuda}. */
    default boolean gpuKernels() {
        return true;
    }

    /**
     * Whether incremental predictions can update this architecture's rows from a change ({@link
     * #pseudoNeighbour}); {@code --prediction-updates incremental}.
     */
    default boolean incrementalPredictions() {
        return true;
    }

    /** The named tensors of each layer of {@code config}, in the order of its parameter slice. */
    List<List<ModelParameters.Tensor>> tensors(ModelConfig config);

    /**
     * The model as {@code torch_geometric.nn} loads it: PyG's classes, constructor arguments and
     * {@code state_dict} names and layouts ({@link PygExport}).
     */
    PygModel pyg(ModelConfig config);

    /** A freshly initialized CPU model of {@code config}. */
    GnnModel create(ModelConfig config);

    /**
     * A CPU model of {@code config} rebuilt from a snapshot; training continues bit-identically.
     */
    GnnModel restore(ModelConfig config, ModelState state);

    /** The layer mode of the GPU kernels ({@code GpuKernels.SAGE}, {@code GpuKernels.GCN}). */
    int gpuMode();

    /**
     * Turns the sum {@code sum[0, length)} of the neighbour terms of a destination's owned
     * neighbours into their share of its aggregate, given its degree (all its sampled neighbours),
     * in place; the caller adds the result to the destination's root part. Only for architectures
     * with a {@link #hasRootWeight() root weight}.
     *
     * @throws UnsupportedOperationException if the rows have no root part
     */
    void scaleOwnedSum(float[] sum, int length, int degree);

    /**
     * One element of the row that, as a destination's only neighbour, gives the layer the same
     * aggregate as its {@code count} neighbours whose rows sum to {@code sum}, given the
     * destination's own element {@code own} (incremental predictions' pseudo-source row).
     */
    float pseudoNeighbour(float own, float sum, int count);
}

package io.gnnstream.operators.model;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * One model type as the tests parameterised over {@link ModelType} see it: the class {@link
 * GnnModel#create} builds, the independent {@link ReferenceModel} and the names of each layer's
 * tensors in {@link GnnModel#parameters()} order.
 *
 * @param layerTensors the tensor names within layer {@code j}, after {@code "layers.j."}
 */
record ModelCase(
        ModelType type,
        Class<? extends GnnModel> modelClass,
        ReferenceModel reference,
        List<String> layerTensors) {

    /** {@code @MethodSource} name of {@link #all()}: one case per model type. */
    static final String ALL = "io.gnnstream.operators.model.ModelCase#all";

    static Stream<ModelCase> all() {
        return Arrays.stream(ModelType.values()).map(ModelCase::of);
    }

    /** {@code @MethodSource} name of {@link #gpu()}: one case per type with GPU kernels. */
    static final String GPU = "io.gnnstream.operators.model.ModelCase#gpu";

    static Stream<ModelCase> gpu() {
        return all().filter(c -> c.type().architecture().gpuKernels());
    }

    /** As {@link #crossed}, over the types with GPU kernels. */
    static Stream<Arguments> crossedGpu(Object[]... rows) {
        return gpu().flatMap(c -> Arrays.stream(rows).map(row -> prepend(c, row)));
    }

    static ModelCase of(ModelType type) {
        return switch (type) {
            case SAGE ->
                    new ModelCase(
                            type,
                            SageModel.class,
                            ReferenceModel.of(type),
                            List.of("lin_root.weight", "lin_neigh.weight", "bias"));
            case GCN ->
                    new ModelCase(
                            type,
                            GcnModel.class,
                            ReferenceModel.of(type),
                            List.of("lin.weight", "bias"));
            case GAT ->
                    new ModelCase(
                            type,
                            GatModel.class,
                            ReferenceModel.of(type),
                            List.of("lin.weight", "att_src", "att_dst", "bias"));
        };
    }

    /**
     * Every case with every row of further arguments: {@code (case, row...)} for a
     * {@code @MethodSource} of a test that also takes the row's values.
     */
    static Stream<Arguments> crossed(Object[]... rows) {
        return all().flatMap(c -> Arrays.stream(rows).map(row -> prepend(c, row)));
    }

    private static Arguments prepend(ModelCase c, Object[] row) {
        Object[] args = new Object[row.length + 1];
        args[0] = c;
        System.arraycopy(row, 0, args, 1, row.length);
        return Arguments.of(args);
    }

    /** A config builder for this type (GAT: two heads on every layer). */
    ModelConfig.Builder config() {
        ModelConfig.Builder b = ModelConfig.builder().modelType(type);
        return type == ModelType.GAT ? b.heads(2).outHeads(2) : b;
    }

    /**
     * Runs the model's Java loops on {@code threads} threads (the package-private {@code
     * setLoopThreads} of the concrete class).
     */
    static void setLoopThreads(GnnModel model, int threads) {
        if (model instanceof SageModel sage) {
            sage.setLoopThreads(threads);
        } else if (model instanceof GcnModel gcn) {
            gcn.setLoopThreads(threads);
        } else if (model instanceof GatModel gat) {
            gat.setLoopThreads(threads);
        } else {
            throw new IllegalArgumentException("no loop threads for " + model.getClass());
        }
    }

    @Override
    public String toString() {
        return type.id();
    }
}

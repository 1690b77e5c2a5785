package io.gnnstream.operators.schedule;

import io.gnnstream.operators.model.GnnModel;
import io.gnnstream.operators.model.ModelConfig;
import io.gnnstream.operators.model.ModelType;
import java.util.HashMap;
import java.util.Map;

/**
 * The real models of a {@link ProtocolSimulator} run with incremental predictions: the simulated
 * ranks train no model (their replicas are logs of what they applied), so the model after step
 * {@code s} is a fresh {@link GnnModel} of a seed made of the run's seed and {@code s}, the same at
 * every rank and after every restore, and different at every step, so a round pinned under the
 * wrong step's model shows. Ranks compute a round's blocks with it as {@code InferenceRound} does,
 * rank 0 sends its parameters in its pin records, and the end check runs layer-wise inference with
 * the pinned step's.
 */
final class SimModels {

    /** A model of the simulated graph: its features, its three labels. */
    record Shape(ModelType type, int hidden, int layers) {

        ModelConfig config(long seed) {
            return ModelConfig.builder()
                    .modelType(type)
                    .inFeatures(SimGraph.DIM)
                    .hidden(hidden)
                    .numClasses(SimGraph.CLASSES)
                    .numLayers(layers)
                    .seed(seed)
                    .build();
        }

        @Override
        public String toString() {
            return type + " " + layers + " layers, hidden " + hidden;
        }
    }

    private final Shape shape;
    private final long seed;
    private final ModelConfig config;
    private final Map<Long, GnnModel> models = new HashMap<>();

    SimModels(Shape shape, long seed) {
        this.shape = shape;
        this.seed = seed;
        this.config = shape.config(seed);
    }

    /** The configuration every step's model shares but for its seed (the GraphStore's). */
    ModelConfig config() {
        return config;
    }

    Shape shape() {
        return shape;
    }

    /** Frees every model. */
    void close() {
        models.values().forEach(GnnModel::close);
        models.clear();
    }

    /**
     * The serving round of step {@code step} computes with the model of step {@code kept} (the
     * parameters the ranks kept), which {@link #of} then gives for it.
     */
    void serves(long step, long kept) {
        Long before = served.putIfAbsent(step, kept);
        if (before != null && before != kept) {
            throw new AssertionError(
                    "the serving round of step "
                            + step
                            + " computed with the model of step "
                            + kept
                            + ", before with that of step "
                            + before);
        }
    }

    private final Map<Long, Long> served = new HashMap<>();

    /** The model after training step {@code step} (of the serving round: the kept one). */
    GnnModel of(long step) {
        Long kept = served.get(step);
        if (kept != null) {
            step = kept;
        }
        return models.computeIfAbsent(
                step, s -> GnnModel.create(shape.config(seed * 0x9E3779B97F4A7C15L + s)));
    }
}

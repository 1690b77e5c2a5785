package io.gnnstream.benchmarks.gpu;

import io.gnnstream.operators.model.GnnModel;
import io.gnnstream.operators.model.ModelConfig;
import java.util.function.UnaryOperator;

/**
 * The ND4J models as the check's backend, so the check runs without a GPU; {@code tweak} may change
 * each config first (to make a model that must fail).
 */
final class CpuBackend implements ModelBackend {

    private final UnaryOperator<ModelConfig> tweak;

    CpuBackend() {
        this(c -> c);
    }

    CpuBackend(UnaryOperator<ModelConfig> tweak) {
        this.tweak = tweak;
    }

    @Override
    public String deviceKind() {
        return "cpu";
    }

    @Override
    public GnnModel open(ModelConfig config) {
        return GnnModel.create(tweak.apply(config));
    }
}

package io.gnnstream.operators;

import io.gnnstream.operators.model.ModelConfig;
import java.io.Serializable;

/** Settings of the {@link TrainerOperator}. */
public final class TrainerConfig implements Serializable {

    private static final long serialVersionUID = 1L;

    public final ModelConfig model;
    public final int logEvery;
    public final int threads;
    /** Directory for NumPy exports, or null for none. */
    public final String modelOut;
    public final long creditResendMs;

    public TrainerConfig(ModelConfig model, int logEvery, int threads, String modelOut, long creditResendMs) {
        this.model = model;
        this.logEvery = logEvery;
        this.threads = threads;
        this.modelOut = modelOut;
        this.creditResendMs = creditResendMs;
    }
}

package io.gnnstream.jobs;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;

/** Options of the model and the trainer. */
public final class ModelOptions {

    private ModelOptions() {}

    public static final ConfigOption<Integer> HIDDEN = ConfigOptions.key("gnnstream.model.hidden")
            .intType()
            .defaultValue(64)
            .withDescription("Hidden units per GraphSAGE layer.");

    public static final ConfigOption<Double> DROPOUT = ConfigOptions.key("gnnstream.model.dropout")
            .doubleType()
            .defaultValue(0.6)
            .withDescription("Dropout probability on the input of every layer.");

    public static final ConfigOption<Double> LEARNING_RATE = ConfigOptions.key("gnnstream.model.lr")
            .doubleType()
            .defaultValue(0.01)
            .withDescription("Adam learning rate.");

    /** How the learning rate changes over a run. */
    public enum LrSchedule {
        /** The same rate for ever (continuous training). */
        CONSTANT,
        /** Cosine decay from --lr to zero over --max-steps; constant when there is no step limit. */
        COSINE
    }

    public static final ConfigOption<LrSchedule> LR_SCHEDULE = ConfigOptions.key("gnnstream.model.lr-schedule")
            .enumType(LrSchedule.class)
            .defaultValue(LrSchedule.COSINE)
            .withDescription("Learning-rate schedule: COSINE decays to zero over the step limit (so the final model "
                    + "is a settled one), CONSTANT keeps --lr.");

    public static final ConfigOption<Double> WEIGHT_DECAY = ConfigOptions.key("gnnstream.model.weight-decay")
            .doubleType()
            .defaultValue(5e-4)
            .withDescription("L2 penalty added to the gradient (torch.optim.Adam weight_decay).");

    public static final ConfigOption<Integer> TRAINER_THREADS = ConfigOptions.key("gnnstream.trainer.threads")
            .intType()
            .defaultValue(1)
            .withDescription("ND4J/BLAS threads per trainer; keep threads x trainers within the cores.");

    public static final ConfigOption<Integer> LOG_EVERY = ConfigOptions.key("gnnstream.trainer.log-every")
            .intType()
            .defaultValue(10)
            .withDescription("Emit a metrics line every this many steps.");

    public static final ConfigOption<String> MODEL_OUT = ConfigOptions.key("gnnstream.trainer.model-out")
            .stringType()
            .noDefaultValue()
            .withDescription("Directory for NumPy .npy parameter exports plus manifest.json (on checkpoint and at the end).");

    public static final ConfigOption<Boolean> COMPUTE = ConfigOptions.key("gnnstream.trainer.compute")
            .booleanType()
            .defaultValue(true)
            .withDescription("false makes the trainer acknowledge batches without a model step: used by "
                    + "'bench sample' to measure the sampling loop alone.");

    public static final ConfigOption<Long> CREDIT_RESEND_MS = ConfigOptions.key("gnnstream.trainer.credit-resend-ms")
            .longType()
            .defaultValue(5_000L)
            .withDescription("An idle trainer re-announces its progress this often (credits can be lost in a failure).");

    public static final ConfigOption<MemorySize> FEATURE_CACHE = ConfigOptions.key("gnnstream.trainer.feature-cache")
            .memoryType()
            .defaultValue(MemorySize.parse("1gb"))
            .withDescription("Heap per trainer for the features and labels of vertices it has been sent, filled and "
                    + "referenced by the graph store, so a vertex sampled again is sent as a slot number instead of "
                    + "its features; allocated as it fills, so a graph with fewer features takes less. Too small "
                    + "for the graph's features, it churns and the graph store reads records again (a quarter of "
                    + "the sampling throughput at 10^6 vertices). 0 turns the cache off.");
}

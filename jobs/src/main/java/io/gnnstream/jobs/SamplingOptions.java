package io.gnnstream.jobs;

import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/** Options of the sampling loop and of the batch schedule. */
public final class SamplingOptions {

    private SamplingOptions() {}

    public static final ConfigOption<List<Integer>> FANOUTS = ConfigOptions.key("gnnstream.sampling.fanouts")
            .intType()
            .asList()
            .defaultValues(25, 10)
            .withDescription("Neighbours sampled per layer, from the seeds outwards; -1 takes all. The number of "
                    + "entries is the number of model layers.");

    public static final ConfigOption<Integer> BATCH_SIZE = ConfigOptions.key("gnnstream.sampling.batch-size")
            .intType()
            .defaultValue(64)
            .withDescription("Seed vertices per training batch.");

    public static final ConfigOption<Integer> EVAL_BATCH_SIZE = ConfigOptions.key("gnnstream.sampling.eval-batch-size")
            .intType()
            .defaultValue(512)
            .withDescription("Seed vertices per evaluation batch (evaluation uses full neighbourhoods).");

    public static final ConfigOption<Integer> PREFETCH = ConfigOptions.key("gnnstream.sampling.prefetch")
            .intType()
            .defaultValue(8)
            .withDescription("Credits per trainer: batches issued but not yet consumed. Bounds memory in the loop "
                    + "and keeps batches ready while the trainer computes (bench sample at 10^5 vertices, batch "
                    + "1024: 346, 312-333 and 325 batches/s with 4, 8 and 16).");

    public static final ConfigOption<Long> MAX_STEPS = ConfigOptions.key("gnnstream.sampling.max-steps")
            .longType()
            .defaultValue(0L)
            .withDescription("Training steps before a final evaluation; 0 trains for ever.");

    public static final ConfigOption<Integer> MAX_OUTSTANDING_VERTICES =
            ConfigOptions.key("gnnstream.sampling.max-outstanding-vertices")
                    .intType()
                    .defaultValue(16_384)
                    .withDescription("Vertices named by the unanswered sample requests of one assembler subtask; more "
                            + "requests wait in its heap. Keeps the loop's bounded buffers from filling up (which "
                            + "deadlocked it on large batches).");

    public static final ConfigOption<Integer> EVAL_EVERY = ConfigOptions.key("gnnstream.sampling.eval-every")
            .intType()
            .defaultValue(20)
            .withDescription("Evaluate on all validation and test vertices every this many steps; 0 only at the end.");

    public static final ConfigOption<Integer> MIN_TRAIN_SEEDS = ConfigOptions.key("gnnstream.sampling.min-train-seeds")
            .intType()
            .defaultValue(1)
            .withDescription("Training starts once this many training vertices are known.");

    public static final ConfigOption<Long> BATCH_TIMEOUT_MS = ConfigOptions.key("gnnstream.sampling.batch-timeout-ms")
            .longType()
            .defaultValue(30_000L)
            .withDescription("A batch without progress for this long re-sends its missing requests (they may have "
                    + "been lost on the feedback edge in a failure).");

    public static final ConfigOption<Long> SEED = ConfigOptions.key("gnnstream.seed")
            .longType()
            .defaultValue(42L)
            .withDescription("Seed of shuffling, neighbour sampling, initialisation and dropout.");
}

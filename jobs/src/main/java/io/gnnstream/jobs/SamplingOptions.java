package io.gnnstream.jobs;

import static io.gnnstream.jobs.OptionCheck.each;
import static io.gnnstream.jobs.OptionCheck.nonNegative;
import static io.gnnstream.jobs.OptionCheck.positive;
import static io.gnnstream.jobs.OptionCheck.that;

import io.gnnstream.state.EvalNeighbourhood;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.ReadableConfig;

/** Options of the sampling loop and of the batch schedule. */
public final class SamplingOptions {

    private SamplingOptions() {}

    static final OptionGroup GROUP = new OptionGroup("Sampling and schedule");

    public static final ConfigOption<List<Integer>> FANOUTS =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.sampling.fanouts")
                            .intType()
                            .asList()
                            .defaultValues(10, 10)
                            .withDescription(
                                    "Neighbours sampled per layer, from the seeds outwards,"
                                        + " comma-separated; -1 takes all. The number of entries is"
                                        + " the number of model layers."),
                    OptionCheck.<List<Integer>>that(f -> !f.isEmpty(), "needs at least one layer")
                            .and(
                                    each(
                                            that(
                                                    f -> f == -1 || f > 0,
                                                    "must be positive or -1 (all)"),
                                            "entries")));

    public static final ConfigOption<Integer> BATCH_SIZE =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.sampling.batch-size")
                            .intType()
                            .defaultValue(64)
                            .withDescription("Seed vertices per training batch."),
                    positive());

    public static final ConfigOption<Integer> EVAL_BATCH_SIZE =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.sampling.eval-batch-size")
                            .intType()
                            .defaultValue(2048)
                            .withDescription(
                                    "Destination vertices per block of an evaluation round (one-hop"
                                        + " blocks over the in-neighbours, see --eval-fanout)."),
                    positive());

    public static final ConfigOption<Integer> EVAL_FANOUT =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.sampling.eval-fanout")
                            .intType()
                            .defaultValue(EvalNeighbourhood.DEFAULT_FANOUT)
                            .withDescription(
                                    "In-neighbours an evaluation round aggregates per vertex: all"
                                        + " of them up to this many, else this many of smallest"
                                        + " rank (a fixed hash of the two vertex ids), the same in"
                                        + " every round and in predict (the model export records"
                                        + " this value); -1 = all. A hub with millions of"
                                        + " in-neighbours would otherwise put millions of rows into"
                                        + " one block."),
                    that(f -> f == -1 || f > 0, "must be positive or -1 (all)"));

    public static final ConfigOption<Integer> PREFETCH =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.sampling.prefetch")
                            .intType()
                            .defaultValue(8)
                            .withDescription(
                                    "Credits per trainer: batches issued but not yet trained on."
                                        + " Bounds the batches in the loop and keeps the next ones"
                                        + " ready while the trainer computes."),
                    positive());

    public static final ConfigOption<Long> MAX_STEPS =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.sampling.max-steps")
                            .longType()
                            .defaultValue(0L)
                            .withDescription(
                                    "Training steps, then a final evaluation and stop; 0 trains for"
                                            + " ever."),
                    nonNegative());

    public static final ConfigOption<Integer> MAX_OUTSTANDING_VERTICES =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.sampling.max-outstanding-vertices")
                            .intType()
                            .defaultValue(16_384)
                            .withDescription(
                                    "Vertices named by the unanswered sample requests of one"
                                        + " assembler subtask; more requests wait in its heap."
                                        + " Keeps the loop's bounded network buffers from filling"
                                        + " up, which would deadlock the loop."),
                    positive());

    public static final ConfigOption<Integer> EVAL_EVERY =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.sampling.eval-every")
                            .intType()
                            .defaultValue(150)
                            .withDescription(
                                    "Run an evaluation round (layer-wise inference over the whole"
                                        + " graph: validation and test accuracy, predictions) every"
                                        + " this many steps; 0 only at the end."),
                    nonNegative());

    public static final ConfigOption<Integer> MIN_TRAIN_SEEDS =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.sampling.min-train-seeds")
                            .intType()
                            .defaultValue(1)
                            .withDescription(
                                    "Training starts once this many training vertices are known."),
                    positive());

    public static final ConfigOption<Long> MIN_VERTICES =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.sampling.min-vertices")
                            .longType()
                            .defaultValue(0L)
                            .withDescription(
                                    "Training starts once the graph holds this many vertices. With"
                                        + " --min-edges set to the sizes of a graph loaded before"
                                        + " the job starts, training begins on the whole graph,"
                                        + " which makes a run repeatable to the bit."),
                    nonNegative());

    public static final ConfigOption<Long> MIN_EDGES =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.sampling.min-edges")
                            .longType()
                            .defaultValue(0L)
                            .withDescription(
                                    "Training starts once this many edge records have been"
                                            + " ingested."),
                    nonNegative());

    public static final ConfigOption<Long> BATCH_TIMEOUT_MS =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.sampling.batch-timeout-ms")
                            .longType()
                            .defaultValue(30_000L)
                            .withDescription(
                                    "A batch without progress for this long re-sends its missing"
                                        + " requests (they may have been lost on the feedback edge"
                                        + " in a failure)."),
                    positive());

    public static final ConfigOption<Boolean> LOCAL_BATCHES =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.sampling.local-batches")
                            .booleanType()
                            .noDefaultValue()
                            .withDescription(
                                    "Each rank's share of a training step is the step's seeds whose"
                                        + " partitions live on its GraphStore subtasks (subtask s"
                                        + " belongs to rank s mod T), built by the assembler of its"
                                        + " own index, as each trainer of PyG's and DistDGL's"
                                        + " distributed training takes the seeds of its own"
                                        + " partition; a step's seeds stay the same, only their"
                                        + " split over the ranks changes. With a --partition-map of"
                                        + " low edge cut and --halo features, most sampling and"
                                        + " feature reads stay on the rank's own subtask. Needs"
                                        + " --trainers <= --parallelism (default: on with a"
                                        + " --partition-map when --trainers <= --parallelism, else"
                                        + " off)."),
                    OptionCheck.any());

    public static final ConfigOption<Long> SEED =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.seed")
                            .longType()
                            .defaultValue(42L)
                            .withDescription(
                                    "Seed of shuffling, neighbour sampling, initialisation and"
                                            + " dropout."),
                    OptionCheck.any());

    /** Whether ranks train on their own subtasks' seeds: {@link #LOCAL_BATCHES}, or its default. */
    public static boolean localBatches(ReadableConfig conf) {
        return conf.getOptional(LOCAL_BATCHES)
                .orElseGet(
                        () ->
                                conf.getOptional(GraphOptions.PARTITION_MAP).isPresent()
                                        && conf.get(ModelOptions.TRAINERS)
                                                <= conf.get(RunOptions.PARALLELISM));
    }
}

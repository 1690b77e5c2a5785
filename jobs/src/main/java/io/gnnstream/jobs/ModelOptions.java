package io.gnnstream.jobs;

import static io.gnnstream.jobs.OptionCheck.nonNegative;
import static io.gnnstream.jobs.OptionCheck.positive;
import static io.gnnstream.jobs.OptionCheck.that;

import io.gnnstream.operators.model.GcnNorm;
import io.gnnstream.operators.model.ModelType;
import io.gnnstream.operators.model.gpu.Device;
import io.gnnstream.operators.schedule.ModelSelection;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.ReadableConfig;

/** Options of the model and the trainer. */
public final class ModelOptions {

    private ModelOptions() {}

    static final OptionGroup GROUP = new OptionGroup("Model and trainer");

    public static final ConfigOption<ModelType> MODEL =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.model.type")
                            .enumType(ModelType.class)
                            .defaultValue(ModelType.DEFAULT)
                            .withDescription(
                                    "The model: sage (GraphSAGE with mean aggregation, PyG"
                                            + " SAGEConv), gcn (GCN with a self-loop and mean"
                                            + " normalisation over the sampled neighbourhood, DGL"
                                            + " GraphConv norm='right') or gat (multi-head"
                                            + " attention over the sampled neighbours and a"
                                            + " self-loop, PyG GATConv; CPU only, predictions by"
                                            + " rounds)."),
                    "--model",
                    OptionCheck.any());

    public static final ConfigOption<Integer> HIDDEN =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.model.hidden")
                            .intType()
                            .defaultValue(64)
                            .withDescription(
                                    "Hidden units per layer (gat: per attention head, a hidden"
                                            + " layer outputs hidden x heads; default "
                                            + ModelOptions.HIDDEN_PER_HEAD
                                            + " there)."),
                    positive());

    /** {@link #HIDDEN}'s default for a model with attention heads (the GAT paper's). */
    static final int HIDDEN_PER_HEAD = 8;

    /**
     * {@link #HIDDEN} if set, else its default; for a model with attention heads {@link
     * #HIDDEN_PER_HEAD} (units per head).
     */
    public static int hidden(ReadableConfig conf) {
        return conf.getOptional(HIDDEN)
                .orElse(
                        conf.get(MODEL).architecture().hasHeads()
                                ? HIDDEN_PER_HEAD
                                : HIDDEN.defaultValue());
    }

    public static final ConfigOption<Integer> HEADS =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.model.heads")
                            .intType()
                            .defaultValue(8)
                            .withDescription(
                                    "gat: attention heads of every hidden layer, concatenated"
                                            + " (other models have none and refuse the flag)."),
                    positive());

    public static final ConfigOption<Integer> OUT_HEADS =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.model.out-heads")
                            .intType()
                            .defaultValue(1)
                            .withDescription(
                                    "gat: attention heads of the last layer, averaged into the"
                                            + " class logits."),
                    positive());

    public static final ConfigOption<Double> ATTENTION_DROPOUT =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.model.attention-dropout")
                            .doubleType()
                            .defaultValue(0.6)
                            .withDescription(
                                    "gat: dropout probability on the attention coefficients"
                                            + " during training."),
                    that(p -> p >= 0 && p < 1, "must be in [0, 1)"));

    public static final ConfigOption<GcnNorm> GCN_NORM =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.model.gcn-norm")
                            .enumType(GcnNorm.class)
                            .defaultValue(GcnNorm.MEAN)
                            .withDescription(
                                    "gcn: the normalisation of each layer, mean (over the vertex"
                                        + " and its sampled neighbours) or sym (the GCN paper's"
                                        + " D^-1/2 (A+I) D^-1/2, PyG GCNConv, with every vertex's"
                                        + " in-degree under --eval-fanout plus one; sampled"
                                        + " neighbour sums are scaled to the whole neighbourhood)."
                                        + " sym runs on the CPU, with --prediction-updates rounds"
                                        + " and --halo none; other models refuse the flag."),
                    OptionCheck.any());

    /**
     * Checks the model's options against each other: head options only for a model with heads, and
     * no device or prediction mode the model's architecture lacks.
     *
     * @throws IllegalArgumentException naming the option that cannot be used
     */
    public static void validateModel(ReadableConfig conf, boolean incrementalPredictions) {
        ModelType type = conf.get(MODEL);
        io.gnnstream.operators.model.Architecture a = type.architecture();
        if (!a.hasHeads()) {
            for (ConfigOption<?> o : java.util.List.of(HEADS, OUT_HEADS, ATTENTION_DROPOUT)) {
                if (conf.getOptional(o).isPresent()) {
                    throw new IllegalArgumentException(
                            JobOptions.flagOf(o)
                                    + " applies to a model with attention heads, not --model "
                                    + type.id());
                }
            }
        }
        if (!a.hasGcnNorm() && conf.getOptional(GCN_NORM).isPresent()) {
            throw new IllegalArgumentException(
                    "--gcn-norm applies to --model gcn, not --model " + type.id());
        }
        if (a.hasGcnNorm() && conf.get(GCN_NORM) == GcnNorm.SYM) {
            validateSym(conf, incrementalPredictions);
        }
        if (!a.gpuKernels() && device(conf).cuda()) {
            throw new IllegalArgumentException(
                    "--device "
                            + conf.get(DEVICE)
                            + " is not available for --model "
                            + type.id()
                            + ": it has no GPU kernels (use --device cpu)");
        }
        if (!a.incrementalPredictions() && incrementalPredictions) {
            throw new IllegalArgumentException(
                    "--prediction-updates incremental is not available for --model "
                            + type.id()
                            + " (attention cannot be updated from a change's difference; use"
                            + " --prediction-updates rounds)");
        }
    }

    /**
     * {@code --gcn-norm sym} needs every row's degree, which only feature parts by row from the
     * rows' owners carry, and a model whose every layer reads the degrees: no GPU kernels, no
     * incremental predictions (a degree change alters a vertex's term in all its out-neighbours'
     * sums), no halo replicas (which serve features by vertex without the adjacency).
     */
    private static void validateSym(ReadableConfig conf, boolean incrementalPredictions) {
        if (device(conf).cuda()) {
            throw new IllegalArgumentException(
                    "--gcn-norm sym is not available with --device "
                            + conf.get(DEVICE)
                            + ": the GPU kernels have the mean only (use --device cpu or"
                            + " --gcn-norm mean)");
        }
        if (incrementalPredictions) {
            throw new IllegalArgumentException(
                    "--gcn-norm sym is not available with --prediction-updates incremental: a"
                            + " vertex's degree change alters its term in every out-neighbour's"
                            + " sum (use --prediction-updates rounds or --gcn-norm mean)");
        }
        if (GraphOptions.halo(conf) == GraphOptions.Halo.FEATURES) {
            throw new IllegalArgumentException(
                    "--gcn-norm sym is not available with --halo features: replicas serve"
                            + " features without the degrees the normalisation needs (use --halo"
                            + " none or --gcn-norm mean)");
        }
    }

    public static final ConfigOption<ModelSelection.Mode> SELECT =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.model.select")
                            .enumType(ModelSelection.Mode.class)
                            .defaultValue(ModelSelection.Mode.LAST)
                            .withDescription(
                                    "The parameters the final report, --model-out and the"
                                        + " checkpoints' exports name: last (the last step's) or"
                                        + " best-val (those of the evaluation round with the best"
                                        + " validation accuracy, ties to the first of the tied"
                                        + " rounds, as early stopping keeps them; the ranks agree"
                                        + " on it by an all-reduce of the rounds' counts and keep"
                                        + " one copy of the parameters in state). Rounds come every"
                                        + " --eval-every and --predict-every steps."),
                    OptionCheck.any());

    public static final ConfigOption<Double> DROPOUT =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.model.dropout")
                            .doubleType()
                            .defaultValue(0.5)
                            .withDescription("Dropout probability on the input of every layer."),
                    that(p -> p >= 0 && p < 1, "must be in [0, 1)"));

    public static final ConfigOption<Double> LEARNING_RATE =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.model.lr")
                            .doubleType()
                            .defaultValue(0.01)
                            .withDescription("Adam learning rate."),
                    positive());

    /** How the learning rate changes over a run. */
    public enum LrSchedule {
        /** The same rate for ever (continuous training). */
        CONSTANT,
        /**
         * Cosine decay from --lr to zero over --max-steps; constant when there is no step limit.
         */
        COSINE
    }

    public static final ConfigOption<LrSchedule> LR_SCHEDULE =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.model.lr-schedule")
                            .enumType(LrSchedule.class)
                            .defaultValue(LrSchedule.COSINE)
                            .withDescription(
                                    "Learning-rate schedule: cosine decays to zero over the step"
                                        + " limit (so the final model is a settled one), constant"
                                        + " keeps --lr."),
                    OptionCheck.any());

    public static final ConfigOption<Double> WEIGHT_DECAY =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.model.weight-decay")
                            .doubleType()
                            .defaultValue(5e-4)
                            .withDescription(
                                    "L2 penalty added to the gradient (torch.optim.Adam"
                                            + " weight_decay)."),
                    nonNegative());

    public static final ConfigOption<Integer> TRAINERS =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.trainers")
                            .intType()
                            .defaultValue(1)
                            .withDescription(
                                    "Trainer ranks T, each a full replica of the model and"
                                        + " optimizer, kept identical by an all-reduce of their"
                                        + " gradients. --batch-size is per rank: a step trains on T"
                                        + " x batch-size seeds."),
                    positive());

    public static final ConfigOption<Integer> REDUCERS =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.reducers")
                            .intType()
                            .defaultValue(0)
                            .withDescription(
                                    "Reducer subtasks of the all-reduce, each summing a share of"
                                            + " the gradient's chunks; 0 takes one per trainer."),
                    OptionCheck.nonNegative());

    public static final ConfigOption<Integer> TRAINER_THREADS =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.trainer.threads")
                            .intType()
                            .defaultValue(1)
                            .withDescription(
                                    "ND4J/BLAS threads per trainer; keep threads x trainers within"
                                            + " the cores."),
                    "--trainer-threads",
                    positive());

    public static final ConfigOption<String> DEVICE =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.trainer.device")
                            .stringType()
                            .defaultValue("cpu")
                            .withDescription(
                                    "Where trainer ranks run model steps: cpu (ND4J), cuda or"
                                        + " cuda:N (the CUDA backend on device N). cuda needs the"
                                        + " native library that 'bin/gnnstream gpu build' writes;"
                                        + " on a cluster, cuda without N opens a GPU of Flink's"
                                        + " external resource 'gpu' on the rank's TaskManager (one"
                                        + " per TaskManager: that one), else device 0. All ranks"
                                        + " must run on the same kind of device."),
                    deviceCheck());

    /** The device of {@code conf}'s {@link #DEVICE}. */
    public static Device device(ReadableConfig conf) {
        return Device.parse(conf.get(DEVICE));
    }

    /**
     * Accepts what {@link Device#parse} accepts; its message, less the leading "device" and the
     * trailing value (which the flag's message adds), is the problem.
     */
    private static OptionCheck<String> deviceCheck() {
        return value -> {
            try {
                Device.parse(value);
                return null;
            } catch (IllegalArgumentException e) {
                String problem = String.valueOf(e.getMessage());
                int got = problem.lastIndexOf(", got ");
                problem = got < 0 ? problem : problem.substring(0, got);
                return problem.startsWith("device ")
                        ? problem.substring("device ".length())
                        : problem;
            }
        };
    }

    public static final ConfigOption<Integer> LOG_EVERY =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.trainer.log-every")
                            .intType()
                            .defaultValue(10)
                            .withDescription("Emit a metrics line every this many steps."),
                    positive());

    public static final ConfigOption<String> MODEL_OUT =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.trainer.model-out")
                            .stringType()
                            .noDefaultValue()
                            .withDescription(
                                    "Directory for NumPy .npy parameter exports plus manifest.json"
                                            + " (at every completed checkpoint and at the end)."),
                    OptionCheck.any());

    public static final ConfigOption<Boolean> COMPUTE =
            GROUP.declareHidden(
                    ConfigOptions.key("gnnstream.trainer.compute")
                            .booleanType()
                            .defaultValue(true)
                            .withDescription(
                                    "false makes the trainer acknowledge batches without a model"
                                        + " step: used by 'bench sample' to measure the sampling"
                                        + " loop alone."),
                    OptionCheck.any());

    public static final ConfigOption<Long> CREDIT_RESEND_MS =
            GROUP.declareHidden(
                    ConfigOptions.key("gnnstream.trainer.credit-resend-ms")
                            .longType()
                            .defaultValue(5_000L)
                            .withDescription(
                                    "An idle trainer re-announces its progress this often (credits"
                                            + " can be lost in a failure)."),
                    positive());

    public static final ConfigOption<MemorySize> FEATURE_CACHE =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.trainer.feature-cache")
                            .memoryType()
                            .defaultValue(MemorySize.parse("1gb"))
                            .withDescription(
                                    "Heap per trainer for the features and labels of vertices it"
                                        + " has been sent, filled and referenced by the graph"
                                        + " store, so a vertex sampled again is sent as a slot"
                                        + " number instead of its features; allocated as it fills."
                                        + " Too small for the graph's features, it churns and the"
                                        + " graph store reads records again. 0 turns the cache"
                                        + " off."),
                    OptionCheck.any());
}

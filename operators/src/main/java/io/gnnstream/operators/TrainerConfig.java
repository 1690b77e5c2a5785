package io.gnnstream.operators;

import io.gnnstream.operators.internal.TrainerFeatureCache;
import io.gnnstream.operators.model.ModelConfig;
import io.gnnstream.operators.model.gpu.Device;
import io.gnnstream.operators.schedule.ModelSelection;
import io.gnnstream.state.EvalNeighbourhood;
import io.gnnstream.state.VertexPartitioner;
import java.io.Serializable;
import java.util.Objects;

/** Settings of the {@link TrainerOperator}. */
public final class TrainerConfig implements Serializable {

    private static final long serialVersionUID = 1L;

    public final ModelConfig model;
    public final int logEvery;
    public final int threads;

    /** Directory for NumPy exports, or null for none. */
    public final String modelOut;

    public final long creditResendMs;

    /**
     * False only for benchmarks of the sampling loop: batches are consumed and acknowledged like in
     * training, but no model step runs, so the loop's own throughput is what gets measured.
     */
    public final boolean compute;

    /** Slots of the feature cache the GraphStore fills (0 = none; the GraphStore must agree). */
    public final int featureCacheSlots;

    /**
     * The job's scale: trainer ranks T (each one replica), reducer subtasks R of the all-reduce,
     * and the GraphStore's parallelism for {@link #withStore}.
     */
    public final JobScale scale;

    /** Evaluation rounds emit a prediction per vertex ({@link TrainerOperator#PREDICTIONS}). */
    public final boolean predictions;

    /** Predictions carry the last hidden layer. */
    public final boolean embeddings;

    /**
     * Where inference rounds store a hidden layer's outputs: the vertex assignment, which with the
     * scale's GraphStore parallelism names the subtask owning each vertex; null: a single subtask.
     */
    private VertexPartitioner partitioner;

    /** Inference rounds store hidden layers' outputs, never the next layer's projections. */
    private boolean hiddenRows;

    private boolean incrementalPins;

    /** Where the ranks' model steps run; {@link Device#CPU} unless {@link #withDevice} says. */
    private Device device = Device.CPU;

    /** Feature normalisation recorded in model exports; see {@link #withFeatureNormalization}. */
    private String featureNormalization;

    /** The job's eval fanout, recorded in model exports; see {@link #withEvalFanout}. */
    private int evalFanout = EvalNeighbourhood.DEFAULT_FANOUT;

    /** The parameters kept for the report and the export; see {@link #withSelect}. */
    private ModelSelection.Mode select = ModelSelection.Mode.LAST;

    /** The job's {@code --max-steps} (0: none); see {@link #withMaxSteps}. */
    private long maxSteps;

    /** One rank, one reducer, one GraphStore subtask. */
    public TrainerConfig(
            ModelConfig model, int logEvery, int threads, String modelOut, long creditResendMs) {
        this(model, logEvery, threads, modelOut, creditResendMs, true, 0);
    }

    /** One rank, one reducer, one GraphStore subtask. */
    public TrainerConfig(
            ModelConfig model,
            int logEvery,
            int threads,
            String modelOut,
            long creditResendMs,
            boolean compute,
            int featureCacheSlots) {
        this(
                model,
                logEvery,
                threads,
                modelOut,
                creditResendMs,
                compute,
                featureCacheSlots,
                JobScale.ranks(1));
    }

    public TrainerConfig(
            ModelConfig model,
            int logEvery,
            int threads,
            String modelOut,
            long creditResendMs,
            boolean compute,
            int featureCacheSlots,
            JobScale scale) {
        this(
                model,
                logEvery,
                threads,
                modelOut,
                creditResendMs,
                compute,
                featureCacheSlots,
                scale,
                false,
                false);
    }

    public TrainerConfig(
            ModelConfig model,
            int logEvery,
            int threads,
            String modelOut,
            long creditResendMs,
            boolean compute,
            int featureCacheSlots,
            JobScale scale,
            boolean predictions,
            boolean embeddings) {
        if (featureCacheSlots < 0) {
            throw new IllegalArgumentException(
                    "featureCacheSlots must be >= 0, got " + featureCacheSlots);
        }
        this.scale = scale;
        this.predictions = predictions;
        this.embeddings = embeddings;
        this.model = model;
        this.logEvery = logEvery;
        this.threads = threads;
        this.modelOut = modelOut;
        this.creditResendMs = creditResendMs;
        this.compute = compute;
        this.featureCacheSlots = featureCacheSlots;
    }

    /**
     * Layer outputs go to the subtask of the scale's GraphStore that owns each vertex under {@code
     * partitioner}.
     */
    public TrainerConfig withStore(VertexPartitioner partitioner) {
        this.partitioner = scale.check(partitioner);
        return this;
    }

    /**
     * Inference rounds store every hidden layer's outputs in the layer-output store, not the next
     * layer's projections of them ({@code ModelConfig.projectsRoundInput}); returns this.
     */
    public TrainerConfig withHiddenRows(boolean on) {
        this.hiddenRows = on;
        return this;
    }

    /**
     * Every rank sends a pin record to each GraphStore subtask once it has scored its share of a
     * round, rank 0's with the model (docs/design.md, "Incremental predictions"); returns this.
     */
    public TrainerConfig withIncrementalPins(boolean on) {
        this.incrementalPins = on;
        return this;
    }

    /** See {@link #withIncrementalPins}. */
    public boolean sendsPins() {
        return incrementalPins;
    }

    /** The ranks' models run on {@code device} ({@code --device}); returns this. */
    public TrainerConfig withDevice(Device device) {
        this.device = Objects.requireNonNull(device, "device");
        return this;
    }

    /**
     * The job's {@code --eval-fanout}, which model exports record so that offline inference uses
     * the same neighbourhoods; returns this.
     */
    public TrainerConfig withEvalFanout(int fanout) {
        this.evalFanout = fanout;
        return this;
    }

    /** The job's {@code --select}: the parameters the ranks keep and export; returns this. */
    public TrainerConfig withSelect(ModelSelection.Mode mode) {
        this.select = mode;
        return this;
    }

    /**
     * The job's {@code --max-steps}, the final step (0: none), which ranks restored at another
     * trainer count need for the final selection exchange ({@link
     * ModelSelection#joinsFinalExchange}); returns this.
     */
    public TrainerConfig withMaxSteps(long maxSteps) {
        this.maxSteps = maxSteps;
        return this;
    }

    /** See {@link #withMaxSteps}. */
    public long maxSteps() {
        return maxSteps;
    }

    /** See {@link #withSelect}: {@link ModelSelection.Mode#LAST} unless set. */
    public ModelSelection.Mode select() {
        return select;
    }

    /**
     * A serving round of the kept parameters follows the final round ({@code best-val} with
     * predictions; {@code SchedulerConfig#withSelection} issues it).
     */
    public boolean servingRound() {
        return select == ModelSelection.Mode.BEST_VAL && predictions;
    }

    /**
     * The job's feature normalisation as model exports record it ({@code "sum"} or {@code "none"}),
     * or null when the job decides it on its node topic and tells rank 0 ({@link
     * io.gnnstream.operators.messages.MiniBatchPart#FEATURE_NORMALIZATION}); returns this.
     */
    public TrainerConfig withFeatureNormalization(String normalization) {
        this.featureNormalization = normalization;
        return this;
    }

    /** See {@link #withFeatureNormalization}. */
    public String featureNormalization() {
        return featureNormalization;
    }

    /** See {@link #withEvalFanout}: {@link EvalNeighbourhood#DEFAULT_FANOUT} unless set. */
    public int evalFanout() {
        return evalFanout;
    }

    /** Where the ranks' model steps run: {@link Device#CPU} unless {@link #withDevice} said. */
    public Device device() {
        return device;
    }

    /** Whether rounds store hidden rows: asked for, or needed for embeddings. */
    public boolean keepsHiddenRows() {
        return hiddenRows || embeddings;
    }

    /** See {@link #withStore}; null for a single GraphStore subtask. */
    public VertexPartitioner partitioner() {
        return partitioner;
    }

    /** The GraphStore's parallelism where {@link #partitioner} is set, else 1. */
    public int storeParallelism() {
        return partitioner == null ? 1 : scale.parallelism();
    }

    /**
     * The number of feature cache slots a budget of heap bytes buys for rows of {@code featureDim}
     * features.
     */
    public static int featureCacheSlots(long budgetBytes, int featureDim) {
        long slotBytes = (long) featureDim * Float.BYTES + TrainerFeatureCache.SLOT_OVERHEAD_BYTES;
        return (int) Math.min(Integer.MAX_VALUE, budgetBytes / slotBytes);
    }
}

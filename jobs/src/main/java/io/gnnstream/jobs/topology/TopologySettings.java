package io.gnnstream.jobs.topology;

import io.gnnstream.connectors.RowNormalization;
import io.gnnstream.jobs.GraphOptions;
import io.gnnstream.jobs.ModelOptions;
import io.gnnstream.jobs.PredictionOptions;
import io.gnnstream.jobs.SamplingOptions;
import io.gnnstream.operators.FaultInjector;
import io.gnnstream.operators.GraphStoreConfig;
import io.gnnstream.operators.JobScale;
import io.gnnstream.operators.SchedulerConfig;
import io.gnnstream.operators.TrainerConfig;
import io.gnnstream.operators.model.GcnNorm;
import io.gnnstream.operators.model.ModelConfig;
import io.gnnstream.operators.schedule.ModelSelection;
import io.gnnstream.state.VertexPartitioner;
import org.apache.flink.configuration.ReadableConfig;

/**
 * What the topology's builders read from the job's options: the {@link JobScale} (read once, by
 * {@link #scale}), the vertex assignment, the fault injector, whether predictions are emitted, and
 * the operators' configs derived from them.
 */
public final class TopologySettings {

    /**
     * Buffer timeout of the loops' operators: flush after every record, since a batch waits for
     * each of its hops in turn and a record held back in a partly filled buffer delays the batch.
     */
    public static final long LOOP_BUFFER_TIMEOUT_MS = 0;

    private final ReadableConfig conf;
    private final JobScale scale;
    private final VertexPartitioner partitioner;
    private final FaultInjector faults;
    private final boolean predicting;

    /**
     * The settings of a job of {@code scale} over {@code partitioner}'s assignment; {@code faults}
     * is {@link FaultInjector#NONE} unless failures are to be injected, {@code predicting} whether
     * the topology has a predictions sink to feed.
     */
    public TopologySettings(
            ReadableConfig conf,
            JobScale scale,
            VertexPartitioner partitioner,
            FaultInjector faults,
            boolean predicting) {
        this.conf = conf;
        this.scale = scale;
        this.partitioner = scale.check(partitioner);
        this.faults = faults;
        this.predicting = predicting;
    }

    /**
     * The job's scale: {@link GraphOptions#PARTITIONS}, the GraphStore's {@code parallelism},
     * {@link ModelOptions#TRAINERS} and {@link ModelOptions#REDUCERS} (0: one per rank). Throws
     * {@link IllegalArgumentException}, naming the flags, for more ranks, reducers or GraphStore
     * subtasks than partitions.
     */
    public static JobScale scale(ReadableConfig conf, int parallelism) {
        int partitions = conf.get(GraphOptions.PARTITIONS);
        int trainers = conf.get(ModelOptions.TRAINERS);
        int reducers = conf.get(ModelOptions.REDUCERS);
        if (reducers == 0) {
            reducers = trainers;
        }
        if (trainers > partitions || reducers > partitions) {
            throw new IllegalArgumentException(
                    "--trainers and --reducers can be at most --partitions ("
                            + partitions
                            + "), the job's max parallelism");
        }
        if (parallelism > partitions) {
            throw new IllegalArgumentException(
                    "--parallelism can be at most --partitions ("
                            + partitions
                            + "), the job's max parallelism, got "
                            + parallelism);
        }
        return new JobScale(partitions, parallelism, trainers, reducers);
    }

    public ReadableConfig conf() {
        return conf;
    }

    public JobScale scale() {
        return scale;
    }

    public VertexPartitioner partitioner() {
        return partitioner;
    }

    /** {@link FaultInjector#NONE} unless the fault option is set. */
    public FaultInjector faults() {
        return faults;
    }

    /** Whether evaluation rounds emit predictions to a sink. */
    public boolean predicting() {
        return predicting;
    }

    /**
     * Whether the GraphStore predicts incrementally between rounds ({@link
     * PredictionOptions#PREDICTION_UPDATES}); with predictions only, and at GraphStore parallelism
     * 1 (a change's readers on other subtasks are not reached yet).
     */
    public boolean incremental() {
        if (conf.get(PredictionOptions.PREDICTION_UPDATES)
                != PredictionOptions.Updates.INCREMENTAL) {
            return false;
        }
        if (scale.parallelism() != 1) {
            throw new IllegalArgumentException(
                    "--prediction-updates incremental needs --parallelism 1: a change's readers"
                            + " on other GraphStore subtasks are not reached; got --parallelism "
                            + scale.parallelism());
        }
        return predicting;
    }

    /** Whether the GraphStore keeps halo replicas ({@link GraphOptions#HALO}). */
    public boolean halo() {
        return GraphOptions.halo(conf) == GraphOptions.Halo.FEATURES;
    }

    public int[] fanouts() {
        return conf.get(SamplingOptions.FANOUTS).stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * Per hidden layer {@code j} ({@code [j-1]}), the width of the rows an inference round stores
     * for layer {@code j+1} to read ({@code root}: of their leading part only destinations read).
     */
    public int[] roundRowWidths(boolean root) {
        TrainerConfig trainer = trainerConfig();
        ModelConfig model = trainer.model;
        int[] widths = new int[model.numLayers() - 1];
        for (int j = 0; j < widths.length; j++) {
            widths[j] =
                    root
                            ? model.roundRootWidth(j + 1, trainer.keepsHiddenRows())
                            : model.roundRowWidth(j + 1, trainer.keepsHiddenRows());
        }
        return widths;
    }

    /** Slots of the trainer's feature cache; the GraphStore and the trainer must agree on them. */
    public int featureCacheSlots() {
        return TrainerConfig.featureCacheSlots(
                conf.get(ModelOptions.FEATURE_CACHE).getBytes(),
                conf.get(GraphOptions.NUM_FEATURES));
    }

    public GraphStoreConfig storeConfig() {
        GraphStoreConfig store =
                new GraphStoreConfig(
                                conf.get(SamplingOptions.SEED),
                                conf.get(GraphOptions.NUM_FEATURES),
                                conf.get(GraphOptions.STATS_INTERVAL_MS),
                                conf.get(GraphOptions.RECORD_CACHE).getBytes(),
                                conf.get(GraphOptions.ADJACENCY_CACHE).getBytes(),
                                conf.get(GraphOptions.EDGE_BUFFER),
                                featureCacheSlots())
                        .withHalo(halo())
                        .withLayerRowCache(conf.get(GraphOptions.LAYER_ROW_CACHE).getBytes())
                        .withLayerRootWidths(roundRowWidths(true))
                        .withModelType(trainerConfig().model.modelType())
                        .withAggregationAtOwner(conf.get(GraphOptions.AGGREGATE_AT_OWNER));
        TrainerConfig trainer = trainerConfig();
        if (trainer.model.gcnNorm() == GcnNorm.SYM) {
            store = store.withDegrees(conf.get(SamplingOptions.EVAL_FANOUT));
        }
        return incremental()
                ? store.withIncremental(
                                trainer.model,
                                trainer.keepsHiddenRows(),
                                conf.get(SamplingOptions.EVAL_FANOUT))
                        .withIncrementalMaxMarks(conf.get(PredictionOptions.INCREMENTAL_MAX_MARKS))
                        .withIncrementalSumCache(
                                conf.get(PredictionOptions.INCREMENTAL_SUM_CACHE).getBytes())
                        .withIncrementalOutEdgeCache(
                                conf.get(PredictionOptions.INCREMENTAL_OUT_EDGE_CACHE).getBytes())
                        .withIncrementalCoalesce(
                                conf.get(PredictionOptions.INCREMENTAL_COALESCE).toMillis())
                : store;
    }

    /** The scheduler's config; with local batches, its steps are cut by owner. */
    public SchedulerConfig schedulerConfig() {
        return new SchedulerConfig(
                        scale,
                        conf.get(SamplingOptions.BATCH_SIZE),
                        conf.get(SamplingOptions.EVAL_BATCH_SIZE),
                        conf.get(SamplingOptions.MAX_STEPS),
                        conf.get(SamplingOptions.EVAL_EVERY),
                        conf.get(SamplingOptions.PREFETCH),
                        conf.get(SamplingOptions.MIN_TRAIN_SEEDS),
                        conf.get(SamplingOptions.SEED),
                        conf.get(SamplingOptions.MIN_VERTICES),
                        conf.get(SamplingOptions.MIN_EDGES),
                        fanouts().length,
                        conf.get(PredictionOptions.PREDICT_EVERY),
                        predicting)
                .withSelection(
                        conf.get(ModelOptions.SELECT) == ModelSelection.Mode.BEST_VAL, predicting)
                .withLocalBatches(
                        SamplingOptions.localBatches(conf) ? scale.rankSites(partitioner) : null);
    }

    /** A fresh trainer config (each call a new one: {@link TrainerConfig} has setters). */
    public TrainerConfig trainerConfig() {
        ModelConfig.Builder builder = ModelConfig.builder();
        if (conf.get(ModelOptions.MODEL).architecture().hasHeads()) {
            builder.heads(conf.get(ModelOptions.HEADS))
                    .outHeads(conf.get(ModelOptions.OUT_HEADS))
                    .attentionDropout(conf.get(ModelOptions.ATTENTION_DROPOUT));
        }
        ModelConfig model =
                builder.modelType(conf.get(ModelOptions.MODEL))
                        .inFeatures(conf.get(GraphOptions.NUM_FEATURES))
                        .hidden(ModelOptions.hidden(conf))
                        .numClasses(conf.get(GraphOptions.NUM_CLASSES))
                        .numLayers(fanouts().length)
                        .dropout(conf.get(ModelOptions.DROPOUT))
                        .learningRate(conf.get(ModelOptions.LEARNING_RATE))
                        .weightDecay(conf.get(ModelOptions.WEIGHT_DECAY))
                        .seed(conf.get(SamplingOptions.SEED))
                        .decaySteps(
                                conf.get(ModelOptions.LR_SCHEDULE) == ModelOptions.LrSchedule.COSINE
                                        ? conf.get(SamplingOptions.MAX_STEPS)
                                        : 0L)
                        .build();
        // Other models than gcn refuse the flag (ModelOptions.check), so theirs is the default.
        model = model.withGcnNorm(conf.get(ModelOptions.GCN_NORM));
        return new TrainerConfig(
                        model,
                        conf.get(ModelOptions.LOG_EVERY),
                        conf.get(ModelOptions.TRAINER_THREADS),
                        conf.getOptional(ModelOptions.MODEL_OUT).orElse(null),
                        conf.get(ModelOptions.CREDIT_RESEND_MS),
                        conf.get(ModelOptions.COMPUTE),
                        featureCacheSlots(),
                        scale,
                        predicting,
                        conf.get(PredictionOptions.EMIT_EMBEDDINGS))
                .withHiddenRows(conf.get(PredictionOptions.STORE_HIDDEN_ROWS))
                .withDevice(ModelOptions.device(conf))
                .withEvalFanout(conf.get(SamplingOptions.EVAL_FANOUT))
                .withSelect(conf.get(ModelOptions.SELECT))
                .withMaxSteps(conf.get(SamplingOptions.MAX_STEPS))
                .withFeatureNormalization(
                        conf.get(GraphOptions.NORMALIZE_FEATURES) == RowNormalization.AUTO
                                ? null
                                : conf.get(GraphOptions.NORMALIZE_FEATURES).manifestName())
                .withIncrementalPins(incremental());
    }
}

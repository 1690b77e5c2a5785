package io.gnnstream.jobs;

import static io.gnnstream.jobs.OptionCheck.nonNegative;

import io.gnnstream.operators.GraphStoreConfig;
import io.gnnstream.operators.store.IncrementalPredictions;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;

/** Options of the predictions that evaluation rounds stream out. */
public final class PredictionOptions {

    private PredictionOptions() {}

    static final OptionGroup GROUP = new OptionGroup("Predictions");

    public static final ConfigOption<Boolean> PREDICTIONS =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.predictions")
                            .booleanType()
                            .defaultValue(true)
                            .withDescription(
                                    "After every evaluation round, write the predicted class and"
                                        + " class probabilities of every vertex with attributes to"
                                        + " the compacted topic <prefix>.predictions, keyed by"
                                        + " vertex id."),
                    OptionCheck.any());

    /** How predictions follow the graph between rounds. */
    public enum Updates {
        ROUNDS,
        INCREMENTAL
    }

    public static final ConfigOption<Updates> PREDICTION_UPDATES =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.prediction-updates")
                            .enumType(Updates.class)
                            .defaultValue(Updates.ROUNDS)
                            .withDescription(
                                    "rounds: a vertex's prediction changes when an evaluation round"
                                        + " runs. incremental: also within a fraction of a second"
                                        + " of every change (edge added or removed, node record,"
                                        + " deletion) for each vertex whose L-hop in-neighbourhood"
                                        + " it changed, computed by the GraphStore with the model"
                                        + " of the latest round; exactly what a round with that"
                                        + " model would predict. Needs --parallelism 1."),
                    OptionCheck.any());

    public static final ConfigOption<Long> INCREMENTAL_MAX_MARKS =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.incremental-max-marks")
                            .longType()
                            .defaultValue(IncrementalPredictions.DEFAULT_MAX_MARKS)
                            .withDescription(
                                    "With --prediction-updates incremental: the most vertices (per"
                                        + " model layer) waiting on the GraphStore's heap to be"
                                        + " predicted again, about 40 bytes each. A burst that"
                                        + " marks more suspends incremental predictions until the"
                                        + " next round begins (--predict-every), which predicts"
                                        + " every vertex; the GraphStore's gauge"
                                        + " incrementalSuspensions counts them."),
                    OptionCheck.that(n -> n >= 1_000, "at least 1000"));

    public static final ConfigOption<MemorySize> INCREMENTAL_SUM_CACHE =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.incremental-sum-cache")
                            .memoryType()
                            .defaultValue(
                                    new MemorySize(
                                            GraphStoreConfig.DEFAULT_INCREMENTAL_SUM_CACHE_BYTES))
                            .withDescription(
                                    "With --prediction-updates incremental: heap per GraphStore"
                                        + " subtask and model layer for the neighbour sums read or"
                                        + " changed last, so that a change's readers and their"
                                        + " recomputation find them without RocksDB (up to 32,768"
                                        + " per layer written to RocksDB only when evicted or at a"
                                        + " checkpoint); about 85 bytes plus 4 per float of a"
                                        + " layer's input each (the default holds 400,000 sums of"
                                        + " 128 floats); allocated as it fills; 0 turns the cache"
                                        + " off."),
                    OptionCheck.any());

    public static final ConfigOption<MemorySize> INCREMENTAL_OUT_EDGE_CACHE =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.incremental-out-edge-cache")
                            .memoryType()
                            .defaultValue(
                                    new MemorySize(
                                            GraphStoreConfig
                                                    .DEFAULT_INCREMENTAL_OUT_EDGE_CACHE_BYTES))
                            .withDescription(
                                    "With --prediction-updates incremental: heap per GraphStore"
                                        + " subtask for the out-edges of the vertices whose changes"
                                        + " reached their readers last, so that a changed row finds"
                                        + " its readers without reading RocksDB; about 64 bytes"
                                        + " plus 8 per out-edge each source (the default holds"
                                        + " 300,000 sources of 20 out-edges); 0 turns the cache"
                                        + " off."),
                    OptionCheck.any());

    public static final ConfigOption<java.time.Duration> INCREMENTAL_COALESCE =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.incremental-coalesce")
                            .durationType()
                            .defaultValue(java.time.Duration.ZERO)
                            .withDescription(
                                    "With --prediction-updates incremental: how long a vertex"
                                        + " marked for a new layer output waits before the"
                                        + " GraphStore computes it, so that the further changes"
                                        + " reaching it meanwhile are computed with it (once per"
                                        + " model layer: a prediction waits up to L times this)."
                                        + " Longer: fewer recomputations, later predictions."),
                    OptionCheck.that(
                            d -> !d.isNegative() && d.toMillis() <= 60_000, "between 0 and 60 s"));

    public static final ConfigOption<Integer> PREDICT_EVERY =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.predict-every")
                            .intType()
                            .defaultValue(0)
                            .withDescription(
                                    "Also run an evaluation round (and so predict) after every this"
                                        + " many training steps; 0: only after --eval-every steps"
                                        + " and the last step."),
                    nonNegative());

    public static final ConfigOption<Boolean> EMIT_EMBEDDINGS =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.emit-embeddings")
                            .booleanType()
                            .defaultValue(false)
                            .withDescription(
                                    "Predictions also carry the last hidden layer (the classifier's"
                                            + " input) as \"embedding\"."),
                    OptionCheck.any());

    public static final ConfigOption<Boolean> STORE_HIDDEN_ROWS =
            GROUP.declare(
                    ConfigOptions.key("gnnstream.store-hidden-rows")
                            .booleanType()
                            .defaultValue(false)
                            .withDescription(
                                    "Evaluation rounds keep every hidden layer's outputs in the"
                                        + " GraphStore's layer-output store. Off: where the next"
                                        + " layer's projections of a hidden layer are narrower (its"
                                        + " output width times 2 for sage, 1 for gcn), the store"
                                        + " keeps those, which the next layer reads in place of the"
                                        + " hidden rows (the same result, fewer bytes per vertex)."
                                        + " --emit-embeddings implies it."),
                    OptionCheck.any());
}

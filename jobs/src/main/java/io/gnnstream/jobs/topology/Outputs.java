package io.gnnstream.jobs.topology;

import io.gnnstream.jobs.Wiring;
import io.gnnstream.operators.GraphStoreOperator;
import io.gnnstream.operators.MetricsMerger;
import io.gnnstream.operators.PredictionTombstones;
import io.gnnstream.operators.TrainerOperator;
import io.gnnstream.operators.messages.Credit;
import io.gnnstream.operators.messages.GraphStoreInput;
import io.gnnstream.operators.messages.Prediction;
import io.gnnstream.operators.messages.PredictionBatch;
import io.gnnstream.operators.messages.SampleResponse;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;

/**
 * Builds what leaves the trainer ranks for outside the loops (docs/design.md, "Dataflow",
 * "Evaluation"): the layer outputs' channel, the merged metrics lines and the predictions with the
 * tombstones of deleted vertices.
 */
public final class Outputs {

    private final TopologySettings settings;
    private final SingleOutputStreamOperator<Credit> trainer;

    /** {@code prediction-tombstones}' freshness lines, once built with incremental predictions. */
    private DataStream<String> freshness;

    /** The outputs of the ranks {@code trainer}. */
    public Outputs(TopologySettings settings, SingleOutputStreamOperator<Credit> trainer) {
        this.settings = settings;
        this.trainer = trainer;
    }

    /**
     * The ranks' layer outputs into {@code sink}, one end of their channel to the GraphStore;
     * without a sink (null), the layer outputs themselves, for the sampling loop's feedback edge.
     */
    public DataStream<GraphStoreInput> layerOutputs(Sink<GraphStoreInput> sink) {
        DataStream<GraphStoreInput> layerOutputs =
                trainer.getSideOutput(TrainerOperator.LAYER_OUTPUTS);
        if (sink == null) {
            return layerOutputs;
        }
        layerOutputs
                .sinkTo(sink)
                .uid("layer-outputs-sink")
                .name("layer-outputs-sink")
                .setParallelism(settings.scale().trainers());
        return null;
    }

    /** The ranks' metrics lines, merged into one per step, into {@code sink}. */
    public void metrics(Sink<String> sink) {
        DataStream<String> lines = trainer.getSideOutput(TrainerOperator.METRICS);
        if (freshness != null) {
            lines = lines.union(freshness);
        }
        lines.rebalance()
                .transform("metrics-merger", Types.STRING, new MetricsMerger(settings.scale()))
                .uid("metrics-merger")
                .setParallelism(1)
                .setMaxParallelism(1)
                .sinkTo(sink)
                .uid("metrics-sink")
                .name("metrics-sink")
                .setParallelism(1);
    }

    /**
     * The ranks' predictions, one record per vertex, with a tombstone for every vertex {@code
     * store} deletes, into {@code sink}.
     */
    public void predictions(
            SingleOutputStreamOperator<SampleResponse> store, Sink<Prediction> sink) {
        // The GraphStore's deletions travel with its incremental predictions, in their order.
        DataStream<PredictionBatch> batches =
                trainer.getSideOutput(TrainerOperator.PREDICTIONS)
                        .union(store.getSideOutput(GraphStoreOperator.PREDICTIONS));
        SingleOutputStreamOperator<Prediction> tombstones =
                batches.rebalance()
                        .flatMap(new Wiring.SplitPredictions())
                        .returns(Prediction.class)
                        .uid("split-predictions")
                        .name("split-predictions")
                        .setParallelism(1)
                        .keyBy(p -> p.vertex, Types.LONG)
                        .transform(
                                "prediction-tombstones",
                                TypeInformation.of(Prediction.class),
                                new PredictionTombstones())
                        .uid("prediction-tombstones")
                        .name("prediction-tombstones")
                        .setParallelism(1);
        if (settings.incremental()) {
            freshness = tombstones.getSideOutput(PredictionTombstones.FRESHNESS);
        }
        tombstones.sinkTo(sink).uid("predictions-sink").name("predictions-sink").setParallelism(1);
    }
}

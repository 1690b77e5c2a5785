package io.gnnstream.jobs.topology;

import io.gnnstream.connectors.EdgeFormat;
import io.gnnstream.connectors.NodeFormat;
import io.gnnstream.connectors.NormalizeFeaturesOperator;
import io.gnnstream.connectors.ParseFunction;
import io.gnnstream.connectors.RawRecord;
import io.gnnstream.connectors.Reject;
import io.gnnstream.connectors.RowNormalization;
import io.gnnstream.jobs.GraphOptions;
import io.gnnstream.jobs.Wiring;
import io.gnnstream.operators.EdgeBundler;
import io.gnnstream.operators.FaultInjector;
import io.gnnstream.operators.JobScale;
import io.gnnstream.operators.ReplicaRouter;
import io.gnnstream.operators.messages.GraphStoreInput;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.serialization.GraphStoreInputSerializer;
import io.gnnstream.operators.serialization.MiniBatchPartSerializer;
import io.gnnstream.state.VertexKeyTypeInfo;
import io.gnnstream.state.VertexPartitioner;
import io.gnnstream.state.records.EdgeUpdate;
import io.gnnstream.state.records.NodeUpdate;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Builds the graph's way in (docs/design.md, "Dataflow"): the edge and node sources and their
 * parsers with the dead-letter sink, the edge bundles, the node updates, the replica router (with
 * halo replicas) and the layer outputs' source, all bound for the GraphStore.
 */
public final class Ingest {

    /**
     * The GraphStore's input: {@code bundles}, the edge bundles (whose task the sampling loop's
     * head joins), and {@code updates}, every graph update and layer output; {@code normalization},
     * the feature normalisation decided on the node topic for trainer rank 0 (null unless {@code
     * --normalize-features auto}).
     */
    public record GraphInput(
            SingleOutputStreamOperator<GraphStoreInput> bundles,
            DataStream<GraphStoreInput> updates,
            DataStream<MiniBatchPart> normalization) {}

    private final TopologySettings settings;

    public Ingest(TopologySettings settings) {
        this.settings = settings;
    }

    /**
     * Parses {@code edgeSource} and {@code nodeSource} (bad records to {@code rejectSink}) into the
     * GraphStore's updates, with the records of {@code layerOutputSource} (may be null).
     */
    public GraphInput build(
            StreamExecutionEnvironment env,
            Source<RawRecord, ?, ?> edgeSource,
            Source<RawRecord, ?, ?> nodeSource,
            Sink<Reject> rejectSink,
            Source<GraphStoreInput, ?, ?> layerOutputSource) {
        ReadableConfig conf = settings.conf();
        JobScale scale = settings.scale();
        VertexPartitioner partitioner = settings.partitioner();
        SingleOutputStreamOperator<EdgeUpdate> edges =
                env.fromSource(edgeSource, WatermarkStrategy.noWatermarks(), "edges-source")
                        .uid("edges-source")
                        .process(new ParseFunction<>(new EdgeFormat()))
                        .uid("parse-edges")
                        .name("parse-edges");
        RowNormalization normalization = conf.get(GraphOptions.NORMALIZE_FEATURES);
        SingleOutputStreamOperator<NodeUpdate> nodes =
                env.fromSource(nodeSource, WatermarkStrategy.noWatermarks(), "nodes-source")
                        .uid("nodes-source")
                        .process(
                                new ParseFunction<>(
                                        new NodeFormat(
                                                conf.get(GraphOptions.NUM_FEATURES),
                                                conf.get(GraphOptions.NUM_CLASSES),
                                                normalization)))
                        .uid("parse-nodes")
                        .name("parse-nodes");
        edges.getSideOutput(ParseFunction.REJECTS)
                .union(nodes.getSideOutput(ParseFunction.REJECTS))
                .sinkTo(rejectSink)
                .uid("dead-letter-sink")
                .name("dead-letter-sink");

        DataStream<NodeUpdate> parsed = nodes;
        DataStream<MiniBatchPart> decided = null;
        if (normalization == RowNormalization.AUTO) {
            // Decided once on the topic's first rows, by one subtask (docs/design.md, "Features").
            SingleOutputStreamOperator<NodeUpdate> normalized =
                    nodes.transform(
                                    "normalize-features",
                                    nodes.getType(),
                                    new NormalizeFeaturesOperator(
                                            conf.get(GraphOptions.NORMALIZE_DECIDE_AFTER),
                                            conf.get(GraphOptions.NORMALIZE_DECIDE_WITHIN)
                                                    .toMillis()))
                            .uid("normalize-features")
                            .name("normalize-features")
                            .setParallelism(1)
                            .setMaxParallelism(1)
                            // A chain of its own at every parallelism: chained to a source of
                            // parallelism 1, its maximum parallelism would become the source's.
                            .disableChaining();
            parsed = normalized;
            decided =
                    normalized
                            .getSideOutput(NormalizeFeaturesOperator.DECISIONS)
                            .map(new DecisionToPart())
                            .returns(MiniBatchPartSerializer.TYPE_INFO)
                            .uid("normalization-to-rank-0")
                            .name("normalization-to-rank-0")
                            .setParallelism(1);
        }
        boolean halo = settings.halo();
        SingleOutputStreamOperator<GraphStoreInput> bundles =
                edgeBundles(edges, partitioner, scale, halo, settings.faults());
        DataStream<GraphStoreInput> nodeUpdates =
                parsed.flatMap(new Wiring.NodeToStoreInput(partitioner, scale.parallelism()))
                        .returns(GraphStoreInputSerializer.TYPE_INFO)
                        .uid("node-updates")
                        .name("node-updates");
        DataStream<GraphStoreInput> updates = bundles.union(nodeUpdates);
        if (halo) {
            updates =
                    updates.union(
                            replicaUpdates(
                                    bundles.getSideOutput(EdgeBundler.CUT_EDGES),
                                    nodeUpdates,
                                    partitioner,
                                    scale,
                                    settings.faults()));
        }
        if (layerOutputSource != null) {
            updates =
                    updates.union(
                            env.fromSource(
                                            layerOutputSource,
                                            WatermarkStrategy.noWatermarks(),
                                            "layer-outputs-source")
                                    .uid("layer-outputs-source")
                                    .setParallelism(scale.parallelism()));
        }
        return new GraphInput(bundles, updates, decided);
    }

    /**
     * The edges for the GraphStore of {@code scale}, bundled in the edge source's task by the
     * subtask owning their destination ({@link EdgeBundler}, docs/design.md, "Edge bundles"); with
     * {@code cutEdges}, the edges between partitions for the replica router as well, on {@link
     * EdgeBundler#CUT_EDGES}.
     */
    public static SingleOutputStreamOperator<GraphStoreInput> edgeBundles(
            DataStream<EdgeUpdate> edges,
            VertexPartitioner partitioner,
            JobScale scale,
            boolean cutEdges) {
        return edgeBundles(edges, partitioner, scale, cutEdges, FaultInjector.NONE);
    }

    private static SingleOutputStreamOperator<GraphStoreInput> edgeBundles(
            DataStream<EdgeUpdate> edges,
            VertexPartitioner partitioner,
            JobScale scale,
            boolean cutEdges,
            FaultInjector faults) {
        return edges.transform(
                        "edge-bundles",
                        GraphStoreInputSerializer.TYPE_INFO,
                        new EdgeBundler(partitioner, scale, cutEdges).withFaults(faults))
                .uid("edge-bundles")
                .name("edge-bundles");
    }

    /**
     * The halo replica path (docs/design.md, "Halo replicas"): the bundles of edges between
     * partitions ({@code cutEdges}, from {@link #edgeBundles}) and the node updates ({@code
     * nodeUpdates}, may be null) reach the replica router keyed by the replicated vertex; out come
     * the replica creations, pushes and drops for the GraphStore of {@code scale}.
     */
    public static DataStream<GraphStoreInput> replicaUpdates(
            DataStream<GraphStoreInput> cutEdges,
            DataStream<GraphStoreInput> nodeUpdates,
            VertexPartitioner partitioner,
            JobScale scale) {
        return replicaUpdates(cutEdges, nodeUpdates, partitioner, scale, FaultInjector.NONE);
    }

    private static DataStream<GraphStoreInput> replicaUpdates(
            DataStream<GraphStoreInput> cutEdges,
            DataStream<GraphStoreInput> nodeUpdates,
            VertexPartitioner partitioner,
            JobScale scale,
            FaultInjector faults) {
        DataStream<GraphStoreInput> toRouter = cutEdges;
        if (nodeUpdates != null) {
            toRouter = toRouter.union(nodeUpdates);
        }
        return toRouter.keyBy(new Wiring.ReplicaSourceKey(partitioner), VertexKeyTypeInfo.INSTANCE)
                .transform(
                        "replica-router",
                        GraphStoreInputSerializer.TYPE_INFO,
                        new ReplicaRouter(partitioner, scale).withFaults(faults))
                .uid("replica-router")
                .name("replica-router")
                .setParallelism(scale.parallelism());
    }

    /** The decision of {@link NormalizeFeaturesOperator} as the record for trainer rank 0. */
    static final class DecisionToPart implements MapFunction<RowNormalization, MiniBatchPart> {
        private static final long serialVersionUID = 1L;

        @Override
        public MiniBatchPart map(RowNormalization decision) {
            return MiniBatchPart.featureNormalization(decision == RowNormalization.TRUE);
        }
    }
}

package io.gnnstream.jobs;

import io.gnnstream.connectors.BrokerException;
import io.gnnstream.connectors.EdgeFormat;
import io.gnnstream.connectors.KafkaIO;
import io.gnnstream.connectors.KafkaTopics;
import io.gnnstream.connectors.NodeFormat;
import io.gnnstream.connectors.ParseFunction;
import io.gnnstream.connectors.RawRecord;
import io.gnnstream.connectors.Reject;
import io.gnnstream.jobs.internal.LayerOutputRecords;
import io.gnnstream.operators.BatchAssembler;
import io.gnnstream.operators.EdgeBundler;
import io.gnnstream.operators.FaultInjector;
import io.gnnstream.operators.GradientReducer;
import io.gnnstream.operators.GraphStoreConfig;
import io.gnnstream.operators.GraphStoreOperator;
import io.gnnstream.operators.MetricsMerger;
import io.gnnstream.operators.PredictionTombstones;
import io.gnnstream.operators.RankSites;
import io.gnnstream.operators.ReplicaRouter;
import io.gnnstream.operators.SchedulerConfig;
import io.gnnstream.operators.SeedScheduler;
import io.gnnstream.operators.TrainerConfig;
import io.gnnstream.operators.TrainerOperator;
import io.gnnstream.operators.messages.BatchSpec;
import io.gnnstream.operators.messages.Credit;
import io.gnnstream.operators.messages.GraphEvent;
import io.gnnstream.operators.messages.GraphStoreInput;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.messages.Prediction;
import io.gnnstream.operators.messages.ReducedChunk;
import io.gnnstream.operators.messages.SampleResponse;
import io.gnnstream.operators.model.ModelConfig;
import io.gnnstream.operators.serialization.GraphStoreInputSerializer;
import io.gnnstream.operators.serialization.MiniBatchPartSerializer;
import io.gnnstream.operators.serialization.SampleResponseSerializer;
import io.gnnstream.state.HashPartitioner;
import io.gnnstream.state.MapPartitioner;
import io.gnnstream.state.PartitionMap;
import io.gnnstream.state.VertexKeyTypeInfo;
import io.gnnstream.state.VertexPartitioner;
import io.gnnstream.state.records.EdgeUpdate;
import io.gnnstream.state.records.NodeUpdate;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.IterativeStream;
import org.apache.flink.streaming.api.datastream.IterativeStream.ConnectedIterativeStreams;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.graph.StreamNode;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;

/**
 * Builds the streaming training topology (docs/design.md, "Dataflow"):
 *
 * <pre>
 * edges, nodes ─ parse ─┬─ rejects ─► dead-letter sink
 *                       └─ GraphStore ◄── requests (feedback, loop 1) ── BatchAssembler
 *                            │ sampled neighbours ─────────────────►│
 *                            │ feature parts ───────────────────────┼───────► Trainer
 *                            │ events ─► SeedScheduler ◄── credits (feedback, loop 2) ── Trainer
 *                                   └── batch specs ─► BatchAssembler ── batch heads ─► Trainer
 * </pre>
 *
 * Sources and sinks are injected, so tests run this exact topology; {@link #buildWithKafka} wires
 * the Kafka ones from the options.
 *
 * <p>The parallelism-1 operators behind the GraphStore and the trainer (graph events, credits,
 * metrics, predictions) are reached by rebalance edges, also when the graph parallelism or the
 * trainer count is 1: an unaligned checkpoint holds the records in flight on those edges, and Flink
 * restores it at another parallelism or trainer count (see {@link #streamGraph}) only if no such
 * edge has become a forward edge or a chain.
 *
 * <p>The operators of the sampling loop flush their output after every record ({@link
 * #LOOP_BUFFER_TIMEOUT_MS}): a batch crosses about ten network edges in turn (spec, a request and a
 * response per hop, features, head, credit), each a handful of records, so waiting for a buffer to
 * fill only delays the next hop. Ingestion keeps the job's buffer timeout.
 */
public final class TrainingJob {

    /**
     * Buffer timeout of the sampling loop's operators: flush after every record, since a batch
     * waits for each of its hops in turn and a record held back in a partly filled buffer delays
     * the batch.
     */
    static final long LOOP_BUFFER_TIMEOUT_MS = 0;

    public static final String JOB_NAME = "gnnstream-training";

    private final ReadableConfig conf;

    /** Whether the topology being built has a predictions sink to feed. */
    private boolean predicting;

    /**
     * The main class {@code flink run} submits: takes the job's flags ({@code --help} lists them),
     * creates the job's own topics when missing, builds the job on the Kafka topics and runs it on
     * the cluster it was submitted to.
     */
    public static void main(String[] args) throws Exception {
        CommandSpec spec = CommandSpec.create().name("gnnstream-training-job");
        spec.mixinStandardHelpOptions(true);
        JobFlags.addTo(spec);
        CommandLine cli = new CommandLine(spec);
        Configuration conf;
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        // Without --checkpoint-dir, the cluster's configured checkpoint directory (flink run passes
        // it on).
        String clusterCheckpoints =
                env.getConfiguration()
                        .getOptional(
                                org.apache.flink.configuration.CheckpointingOptions
                                        .CHECKPOINTS_DIRECTORY)
                        .orElse(null);
        try {
            ParseResult parsed = cli.parseArgs(args);
            if (CommandLine.printHelpIfRequested(parsed)) {
                return;
            }
            conf = JobFlags.configuration(parsed);
            if (clusterCheckpoints != null && !conf.contains(RunOptions.CHECKPOINT_DIR)) {
                conf.set(RunOptions.CHECKPOINT_DIR, clusterCheckpoints);
            }
            JobDefaults.apply(conf, Path.of("checkpoints"));
            validate(conf);
            JobOptions.require(conf, KafkaOptions.BOOTSTRAP_SERVERS);
        } catch (CommandLine.ParameterException | IllegalArgumentException e) {
            System.err.println("error: " + e.getMessage());
            cli.usage(System.err);
            System.exit(CommandLine.ExitCode.USAGE);
            return;
        }
        ensureOutputTopics(conf);
        env.configure(conf);
        env.setParallelism(conf.get(RunOptions.PARALLELISM));
        new TrainingJob(conf).buildWithKafka(env);
        env.execute(streamGraph(env));
    }

    /**
     * Creates the job's output topics that do not exist: dead letters, metrics, the compacted
     * predictions topic and the layer outputs' channel.
     */
    public static void ensureOutputTopics(ReadableConfig conf) throws BrokerException {
        String bootstrap = conf.get(KafkaOptions.BOOTSTRAP_SERVERS);
        KafkaTopics.ensure(
                bootstrap, 1, KafkaOptions.rejectsTopic(conf), KafkaOptions.metricsTopic(conf));
        KafkaTopics.ensure(
                bootstrap,
                1,
                (short) 1,
                List.of(KafkaOptions.predictionsTopic(conf)),
                Map.of("cleanup.policy", "compact"));
        KafkaTopics.ensure(
                bootstrap,
                conf.get(RunOptions.PARALLELISM),
                (short) 1,
                List.of(KafkaOptions.layerOutputsTopic(conf)),
                LayerOutputRecords.TOPIC_CONFIGS);
    }

    /**
     * The stream graph of the job built on {@code env}, named {@link #JOB_NAME}, to execute instead
     * of the environment's own. Flink fixes the max parallelism of an iteration's tail to its
     * parallelism, and a checkpoint then restores only at the parallelism it was written at: the
     * loops' tails (stateless) leave it to Flink here, which takes it from the checkpoint on a
     * restore and otherwise derives one of at least 128, so that a job restores at another graph
     * parallelism or trainer count (docs/design.md, "Checkpoints and restore", "Another trainer
     * count").
     */
    public static StreamGraph streamGraph(StreamExecutionEnvironment env) {
        StreamGraph graph = env.getStreamGraph();
        graph.setJobName(JOB_NAME);
        for (Tuple2<StreamNode, StreamNode> loop : graph.getIterationSourceSinkPairs()) {
            graph.setMaxParallelism(loop.f1.getId(), JobVertex.MAX_PARALLELISM_DEFAULT);
        }
        return graph;
    }

    public TrainingJob(ReadableConfig conf) {
        this.conf = conf;
        validate(conf);
    }

    /** Builds the job reading and writing the Kafka topics named in the options. */
    public void buildWithKafka(StreamExecutionEnvironment env) {
        JobOptions.require(conf, KafkaOptions.BOOTSTRAP_SERVERS);
        String bootstrap = conf.get(KafkaOptions.BOOTSTRAP_SERVERS);
        String group = conf.get(KafkaOptions.GROUP_ID);
        build(
                env,
                KafkaIO.edgeSourceBuilder(
                                bootstrap,
                                KafkaOptions.edgesTopic(conf),
                                group,
                                OffsetsInitializer.earliest())
                        .build(),
                KafkaIO.rawSource(
                        bootstrap,
                        KafkaOptions.nodesTopic(conf),
                        group,
                        OffsetsInitializer.earliest()),
                KafkaIO.deadLetterSink(bootstrap, KafkaOptions.rejectsTopic(conf)),
                KafkaIO.stringSink(
                        bootstrap,
                        KafkaOptions.metricsTopic(conf),
                        DeliveryGuarantee.AT_LEAST_ONCE,
                        null),
                KafkaSink.<Prediction>builder()
                        .setBootstrapServers(bootstrap)
                        .setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)
                        // A round writes a record per vertex: batches of thousands of records.
                        .setProperty("linger.ms", "5")
                        .setProperty("batch.size", Integer.toString(256 << 10))
                        .setRecordSerializer(
                                new PredictionRecords(KafkaOptions.predictionsTopic(conf)))
                        .build(),
                LayerOutputRecords.sink(bootstrap, KafkaOptions.layerOutputsTopic(conf)),
                LayerOutputRecords.source(bootstrap, KafkaOptions.layerOutputsTopic(conf), group));
    }

    /** Builds the job without a predictions sink (evaluation rounds then emit none). */
    public void build(
            StreamExecutionEnvironment env,
            Source<RawRecord, ?, ?> edgeSource,
            Source<RawRecord, ?, ?> nodeSource,
            Sink<Reject> rejectSink,
            Sink<String> metricsSink) {
        build(env, edgeSource, nodeSource, rejectSink, metricsSink, null);
    }

    /**
     * The edges for a GraphStore of {@code parallelism} subtasks, bundled in the edge source's task
     * by the subtask owning their destination ({@link EdgeBundler}, docs/design.md, "Edge
     * bundles"); with {@code cutEdges}, the edges between partitions for the replica router as
     * well, on {@link EdgeBundler#CUT_EDGES}.
     */
    public static SingleOutputStreamOperator<GraphStoreInput> edgeBundles(
            DataStream<EdgeUpdate> edges,
            VertexPartitioner partitioner,
            int parallelism,
            boolean cutEdges) {
        return edgeBundles(edges, partitioner, parallelism, cutEdges, FaultInjector.NONE);
    }

    private static SingleOutputStreamOperator<GraphStoreInput> edgeBundles(
            DataStream<EdgeUpdate> edges,
            VertexPartitioner partitioner,
            int parallelism,
            boolean cutEdges,
            FaultInjector faults) {
        return edges.transform(
                        "edge-bundles",
                        GraphStoreInputSerializer.TYPE_INFO,
                        new EdgeBundler(partitioner, parallelism, cutEdges).withFaults(faults))
                .uid("edge-bundles")
                .name("edge-bundles");
    }

    /**
     * The halo replica path (docs/design.md, "Halo replicas"): the bundles of edges between
     * partitions ({@code cutEdges}, from {@link #edgeBundles}) and the node updates ({@code
     * nodeUpdates}, may be null) reach the replica router keyed by the replicated vertex; out come
     * the replica creations, pushes and drops for a GraphStore of {@code parallelism} subtasks.
     */
    public static DataStream<GraphStoreInput> replicaUpdates(
            DataStream<GraphStoreInput> cutEdges,
            DataStream<GraphStoreInput> nodeUpdates,
            VertexPartitioner partitioner,
            int parallelism) {
        return replicaUpdates(cutEdges, nodeUpdates, partitioner, parallelism, FaultInjector.NONE);
    }

    private static DataStream<GraphStoreInput> replicaUpdates(
            DataStream<GraphStoreInput> cutEdges,
            DataStream<GraphStoreInput> nodeUpdates,
            VertexPartitioner partitioner,
            int parallelism,
            FaultInjector faults) {
        DataStream<GraphStoreInput> toRouter = cutEdges;
        if (nodeUpdates != null) {
            toRouter = toRouter.union(nodeUpdates);
        }
        return toRouter.keyBy(new Wiring.ReplicaSourceKey(partitioner), VertexKeyTypeInfo.INSTANCE)
                .transform(
                        "replica-router",
                        GraphStoreInputSerializer.TYPE_INFO,
                        new ReplicaRouter(partitioner, parallelism).withFaults(faults))
                .uid("replica-router")
                .name("replica-router")
                .setParallelism(parallelism);
    }

    /**
     * Builds the job on the given sources and sinks; {@code predictionsSink} may be null, and
     * predictions are emitted only with one and {@link PredictionOptions#PREDICTIONS} on.
     */
    public void build(
            StreamExecutionEnvironment env,
            Source<RawRecord, ?, ?> edgeSource,
            Source<RawRecord, ?, ?> nodeSource,
            Sink<Reject> rejectSink,
            Sink<String> metricsSink,
            Sink<Prediction> predictionsSink) {
        build(env, edgeSource, nodeSource, rejectSink, metricsSink, predictionsSink, null, null);
    }

    /**
     * Builds the job on the given sources and sinks; {@code predictionsSink} may be null, and
     * predictions are emitted only with one and {@link PredictionOptions#PREDICTIONS} on. The
     * inference rounds' layer outputs go from the trainer ranks to the GraphStore through {@code
     * layerOutputSink} and {@code layerOutputSource}, two ends of one durable channel (a Kafka
     * topic), which absorbs what the GraphStore has not read yet; when both are null they take the
     * sampling loop's feedback edge instead, where a rank that cannot send its outputs stops taking
     * in the parts the GraphStore waits to send it: fine for small graphs and tests, but a large
     * round can stop the loop for good (docs/design.md, "Evaluation").
     */
    public void build(
            StreamExecutionEnvironment env,
            Source<RawRecord, ?, ?> edgeSource,
            Source<RawRecord, ?, ?> nodeSource,
            Sink<Reject> rejectSink,
            Sink<String> metricsSink,
            Sink<Prediction> predictionsSink,
            Sink<GraphStoreInput> layerOutputSink,
            Source<GraphStoreInput, ?, ?> layerOutputSource) {
        if ((layerOutputSink == null) != (layerOutputSource == null)) {
            throw new IllegalArgumentException(
                    "the layer outputs' channel needs both its sink and its source");
        }
        this.predicting = predictionsSink != null && conf.get(PredictionOptions.PREDICTIONS);
        int partitions = conf.get(GraphOptions.PARTITIONS);
        int featureDim = conf.get(GraphOptions.NUM_FEATURES);
        int parallelism = env.getParallelism();
        long seed = conf.get(SamplingOptions.SEED);
        env.setMaxParallelism(partitions);
        // The job's options travel with it (REST /jobs/<id>/config), so that a savepoint of it can
        // be
        // resumed with the same options (bin/gnnstream stop and resume).
        env.getConfig().setGlobalJobParameters(Configuration.fromMap(JobOptions.recorded(conf)));
        VertexPartitioner partitioner = partitioner(conf);
        FaultInjector faults = faults();

        SingleOutputStreamOperator<EdgeUpdate> edges =
                env.fromSource(edgeSource, WatermarkStrategy.noWatermarks(), "edges-source")
                        .uid("edges-source")
                        .process(new ParseFunction<>(new EdgeFormat()))
                        .uid("parse-edges")
                        .name("parse-edges");
        SingleOutputStreamOperator<NodeUpdate> nodes =
                env.fromSource(nodeSource, WatermarkStrategy.noWatermarks(), "nodes-source")
                        .uid("nodes-source")
                        .process(
                                new ParseFunction<>(
                                        new NodeFormat(
                                                featureDim,
                                                conf.get(GraphOptions.NUM_CLASSES),
                                                conf.get(GraphOptions.NORMALIZE_FEATURES))))
                        .uid("parse-nodes")
                        .name("parse-nodes");
        edges.getSideOutput(ParseFunction.REJECTS)
                .union(nodes.getSideOutput(ParseFunction.REJECTS))
                .sinkTo(rejectSink)
                .uid("dead-letter-sink")
                .name("dead-letter-sink");

        boolean halo = GraphOptions.halo(conf) == GraphOptions.Halo.FEATURES;
        SingleOutputStreamOperator<GraphStoreInput> edgeBundles =
                edgeBundles(edges, partitioner, parallelism, halo, faults);
        DataStream<GraphStoreInput> nodeUpdates =
                nodes.flatMap(new Wiring.NodeToStoreInput(partitioner, parallelism))
                        .returns(GraphStoreInputSerializer.TYPE_INFO)
                        .uid("node-updates")
                        .name("node-updates");
        DataStream<GraphStoreInput> updates = edgeBundles.union(nodeUpdates);
        if (halo) {
            updates =
                    updates.union(
                            replicaUpdates(
                                    edgeBundles.getSideOutput(EdgeBundler.CUT_EDGES),
                                    nodeUpdates,
                                    partitioner,
                                    parallelism,
                                    faults));
        }
        if (layerOutputSource != null) {
            updates =
                    updates.union(
                            env.fromSource(
                                            layerOutputSource,
                                            WatermarkStrategy.noWatermarks(),
                                            "layer-outputs-source")
                                    .uid("layer-outputs-source")
                                    .setParallelism(parallelism));
        }

        // The first head carries the requests only, across a forward edge into sampling-requests:
        // Flink keeps no channel state for an iteration head, so a record in flight on a keyed edge
        // out of it would be lost at a restore, and one cut in two would corrupt the channel
        // (docs/design.md, "Checkpoints and restore"). A forward edge is checkpointed aligned.
        IterativeStream<GraphStoreInput> samplingLoop =
                edgeBundles
                        .filter(new Wiring.NoRecords<>())
                        .uid("sampling-loop-input")
                        .name("sampling-loop-input")
                        .setParallelism(parallelism)
                        .iterate(0);
        DataStream<GraphStoreInput> loopRequests =
                samplingLoop
                        .map(new Wiring.Identity<GraphStoreInput>())
                        .returns(GraphStoreInputSerializer.TYPE_INFO)
                        .uid("sampling-requests")
                        .name("sampling-requests")
                        .setParallelism(parallelism)
                        .setBufferTimeout(LOOP_BUFFER_TIMEOUT_MS);
        GraphStoreConfig storeConfig =
                new GraphStoreConfig(
                                seed,
                                featureDim,
                                conf.get(GraphOptions.STATS_INTERVAL_MS),
                                conf.get(GraphOptions.RECORD_CACHE).getBytes(),
                                conf.get(GraphOptions.ADJACENCY_CACHE).getBytes(),
                                conf.get(GraphOptions.EDGE_BUFFER),
                                featureCacheSlots())
                        .withHalo(halo)
                        .withLayerRowCache(conf.get(GraphOptions.LAYER_ROW_CACHE).getBytes())
                        .withLayerRootWidths(roundRowWidths(true))
                        .withAggregationAtOwner(conf.get(GraphOptions.AGGREGATE_AT_OWNER));
        SingleOutputStreamOperator<SampleResponse> store =
                updates.union(loopRequests)
                        .keyBy(new Wiring.StoreInputKey(partitioner), VertexKeyTypeInfo.INSTANCE)
                        .transform(
                                "graph-store",
                                SampleResponseSerializer.TYPE_INFO,
                                new GraphStoreOperator(partitioner, storeConfig).withFaults(faults))
                        .uid("graph-store")
                        .setParallelism(parallelism)
                        .setBufferTimeout(LOOP_BUFFER_TIMEOUT_MS);

        DataStream<GraphEvent> events =
                store.getSideOutput(GraphStoreOperator.EVENTS)
                        .rebalance()
                        .map(new Wiring.GatherEvents())
                        .returns(GraphEvent.class)
                        .uid("graph-events")
                        .name("graph-events")
                        .setParallelism(1);
        ConnectedIterativeStreams<GraphEvent, Credit> creditLoop =
                events.iterate(0).withFeedbackType(TypeInformation.of(Credit.class));
        SingleOutputStreamOperator<BatchSpec> specs =
                creditLoop
                        .transform(
                                "seed-scheduler",
                                TypeInformation.of(BatchSpec.class),
                                new SeedScheduler(
                                        schedulerConfig()
                                                .withLocalBatches(
                                                        SamplingOptions.localBatches(conf)
                                                                ? new RankSites(
                                                                        partitioner,
                                                                        parallelism,
                                                                        conf.get(
                                                                                ModelOptions
                                                                                        .TRAINERS))
                                                                : null)))
                        .uid("seed-scheduler")
                        .setParallelism(1)
                        .setMaxParallelism(1)
                        .setBufferTimeout(LOOP_BUFFER_TIMEOUT_MS);

        SingleOutputStreamOperator<GraphStoreInput> requests =
                specs.connect(store)
                        .keyBy(new Wiring.SpecKey(), new Wiring.ResponseKey(), Types.LONG)
                        .transform(
                                "batch-assembler",
                                GraphStoreInputSerializer.TYPE_INFO,
                                new BatchAssembler(
                                                fanouts(),
                                                featureDim,
                                                partitioner,
                                                parallelism,
                                                conf.get(SamplingOptions.BATCH_TIMEOUT_MS),
                                                conf.get(SamplingOptions.MAX_OUTSTANDING_VERTICES))
                                        .withHalo(halo)
                                        .withLayerWidths(roundRowWidths(false))
                                        .withEvalFanout(conf.get(SamplingOptions.EVAL_FANOUT)))
                        .uid("batch-assembler")
                        .setParallelism(parallelism)
                        .setBufferTimeout(LOOP_BUFFER_TIMEOUT_MS);

        // Loop 3, the all-reduce: trainer ranks -> gradient chunks -> reducers -> sums -> every
        // rank.
        int trainers = conf.get(ModelOptions.TRAINERS);
        int reducers = reducers(conf);
        ConnectedIterativeStreams<MiniBatchPart, ReducedChunk> allReduceLoop =
                requests.getSideOutput(BatchAssembler.BATCHES)
                        .union(store.getSideOutput(GraphStoreOperator.FEATURES))
                        .keyBy(
                                new Wiring.PartTrainer(
                                        new Wiring.SubtaskKeys(partitions, trainers)),
                                Types.INT)
                        .map(new Wiring.Identity<MiniBatchPart>())
                        .returns(MiniBatchPartSerializer.TYPE_INFO)
                        .uid("parts-to-ranks")
                        .name("parts-to-ranks")
                        .setParallelism(trainers)
                        .setBufferTimeout(LOOP_BUFFER_TIMEOUT_MS)
                        .iterate(0)
                        .withFeedbackType(TypeInformation.of(ReducedChunk.class));
        SingleOutputStreamOperator<Credit> trainer =
                allReduceLoop
                        .transform(
                                "trainer",
                                TypeInformation.of(Credit.class),
                                new TrainerOperator(
                                                trainerConfig().withStore(partitioner, parallelism))
                                        .withFaults(faults))
                        .uid("trainer")
                        .setParallelism(trainers)
                        .setBufferTimeout(LOOP_BUFFER_TIMEOUT_MS);
        // The inference rounds' layer outputs go back to the GraphStore through their channel, or
        // with
        // the requests on loop 1 (docs/design.md, "Evaluation").
        DataStream<GraphStoreInput> layerOutputs =
                trainer.getSideOutput(TrainerOperator.LAYER_OUTPUTS);
        if (layerOutputSink != null) {
            layerOutputs
                    .sinkTo(layerOutputSink)
                    .uid("layer-outputs-sink")
                    .name("layer-outputs-sink")
                    .setParallelism(trainers);
            samplingLoop.closeWith(requests);
        } else {
            samplingLoop.closeWith(
                    requests.union(
                            layerOutputs
                                    .rebalance()
                                    .map(new Wiring.Identity<GraphStoreInput>())
                                    .returns(GraphStoreInputSerializer.TYPE_INFO)
                                    .uid("layer-outputs")
                                    .name("layer-outputs")
                                    .setParallelism(parallelism)
                                    .setBufferTimeout(LOOP_BUFFER_TIMEOUT_MS)));
        }
        SingleOutputStreamOperator<ReducedChunk> sums =
                trainer.getSideOutput(TrainerOperator.GRADIENTS)
                        .keyBy(
                                new Wiring.ChunkReducer(
                                        new Wiring.SubtaskKeys(partitions, reducers)),
                                Types.INT)
                        .transform(
                                "gradient-reducer",
                                TypeInformation.of(ReducedChunk.class),
                                new GradientReducer(
                                                trainers, GradientReducer.DEFAULT_RETAINED_STEPS)
                                        .withFaults(faults))
                        .uid("gradient-reducer")
                        .setParallelism(reducers)
                        .setBufferTimeout(LOOP_BUFFER_TIMEOUT_MS);
        allReduceLoop.closeWith(
                sums.broadcast()
                        .map(new Wiring.Identity<ReducedChunk>())
                        .returns(ReducedChunk.class)
                        .uid("sums-to-ranks")
                        .name("sums-to-ranks")
                        .setParallelism(trainers)
                        .setBufferTimeout(LOOP_BUFFER_TIMEOUT_MS));

        creditLoop.closeWith(
                trainer.rebalance()
                        .map(new Wiring.Identity<Credit>())
                        .returns(Credit.class)
                        .uid("credits")
                        .name("credits")
                        .setParallelism(1)
                        .setBufferTimeout(LOOP_BUFFER_TIMEOUT_MS));

        trainer.getSideOutput(TrainerOperator.METRICS)
                .rebalance()
                .transform("metrics-merger", Types.STRING, new MetricsMerger(trainers))
                .uid("metrics-merger")
                .setParallelism(1)
                .setMaxParallelism(1)
                .sinkTo(metricsSink)
                .uid("metrics-sink")
                .name("metrics-sink")
                .setParallelism(1);
        if (predicting) {
            trainer.getSideOutput(TrainerOperator.PREDICTIONS)
                    .rebalance()
                    .flatMap(new Wiring.SplitPredictions())
                    .returns(Prediction.class)
                    .uid("split-predictions")
                    .name("split-predictions")
                    .setParallelism(1)
                    .connect(store.getSideOutput(GraphStoreOperator.DELETED).rebalance())
                    .transform(
                            "prediction-tombstones",
                            TypeInformation.of(Prediction.class),
                            new PredictionTombstones())
                    .uid("prediction-tombstones")
                    .name("prediction-tombstones")
                    .setParallelism(1)
                    .sinkTo(predictionsSink)
                    .uid("predictions-sink")
                    .name("predictions-sink")
                    .setParallelism(1);
        }
    }

    /**
     * The vertex assignment: {@link GraphOptions#PARTITION_MAP} read through Flink's file systems,
     * else hash. Throws {@link IllegalArgumentException} for a missing or malformed map, or one for
     * another number of partitions.
     */
    public static VertexPartitioner partitioner(ReadableConfig conf) {
        int partitions = conf.get(GraphOptions.PARTITIONS);
        String uri = conf.getOptional(GraphOptions.PARTITION_MAP).orElse(null);
        if (uri == null) {
            return new HashPartitioner(partitions);
        }
        org.apache.flink.core.fs.Path path =
                new org.apache.flink.core.fs.Path(JobDefaults.fileSystemUri(uri));
        try (java.io.InputStream in = path.getFileSystem().open(path)) {
            return new MapPartitioner(PartitionMap.read(in), partitions);
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("--partition-map " + uri + ": " + e.getMessage(), e);
        }
    }

    private FaultInjector faults() {
        return FaultInjector.parse(
                conf.getOptional(RunOptions.INJECT_FAULT).orElse(null),
                conf.getOptional(RunOptions.FAULT_MARKER).orElse(null));
    }

    /** Reducer subtasks: {@link ModelOptions#REDUCERS}, or one per trainer rank. */
    static int reducers(ReadableConfig conf) {
        int reducers = conf.get(ModelOptions.REDUCERS);
        return reducers > 0 ? reducers : conf.get(ModelOptions.TRAINERS);
    }

    /**
     * Per hidden layer {@code j} ({@code [j-1]}), the width of the rows an inference round stores
     * for layer {@code j+1} to read ({@code root}: of their leading part only destinations read).
     */
    private int[] roundRowWidths(boolean root) {
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

    private int[] fanouts() {
        return conf.get(SamplingOptions.FANOUTS).stream().mapToInt(Integer::intValue).toArray();
    }

    private SchedulerConfig schedulerConfig() {
        return new SchedulerConfig(
                conf.get(GraphOptions.PARTITIONS),
                conf.get(SamplingOptions.BATCH_SIZE),
                conf.get(SamplingOptions.EVAL_BATCH_SIZE),
                conf.get(SamplingOptions.MAX_STEPS),
                conf.get(SamplingOptions.EVAL_EVERY),
                conf.get(SamplingOptions.PREFETCH),
                conf.get(SamplingOptions.MIN_TRAIN_SEEDS),
                conf.get(SamplingOptions.SEED),
                conf.get(ModelOptions.TRAINERS),
                conf.get(SamplingOptions.MIN_VERTICES),
                conf.get(SamplingOptions.MIN_EDGES),
                fanouts().length,
                conf.get(PredictionOptions.PREDICT_EVERY),
                predicting);
    }

    private TrainerConfig trainerConfig() {
        ModelConfig model =
                ModelConfig.builder()
                        .modelType(conf.get(ModelOptions.MODEL))
                        .inFeatures(conf.get(GraphOptions.NUM_FEATURES))
                        .hidden(conf.get(ModelOptions.HIDDEN))
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
        return new TrainerConfig(
                        model,
                        conf.get(ModelOptions.LOG_EVERY),
                        conf.get(ModelOptions.TRAINER_THREADS),
                        conf.getOptional(ModelOptions.MODEL_OUT).orElse(null),
                        conf.get(ModelOptions.CREDIT_RESEND_MS),
                        conf.get(ModelOptions.COMPUTE),
                        featureCacheSlots(),
                        conf.get(ModelOptions.TRAINERS),
                        reducers(conf),
                        predicting,
                        conf.get(PredictionOptions.EMIT_EMBEDDINGS))
                .withHiddenRows(conf.get(PredictionOptions.STORE_HIDDEN_ROWS));
    }

    /** Slots of the trainer's feature cache; the GraphStore and the trainer must agree on them. */
    private int featureCacheSlots() {
        return TrainerConfig.featureCacheSlots(
                conf.get(ModelOptions.FEATURE_CACHE).getBytes(),
                conf.get(GraphOptions.NUM_FEATURES));
    }

    /**
     * Rejects settings the topology cannot run with, before anything is submitted: every option's
     * own check ({@link JobOptions#validate}).
     */
    public static void validate(ReadableConfig conf) {
        JobOptions.validate(conf);
        int partitions = conf.get(GraphOptions.PARTITIONS);
        if (conf.get(ModelOptions.TRAINERS) > partitions || reducers(conf) > partitions) {
            throw new IllegalArgumentException(
                    "--trainers and --reducers can be at most --partitions ("
                            + partitions
                            + "), the job's max parallelism");
        }
        if (conf.getOptional(SamplingOptions.LOCAL_BATCHES).orElse(false)
                && conf.get(ModelOptions.TRAINERS) > conf.get(RunOptions.PARALLELISM)) {
            throw new IllegalArgumentException(
                    "--local-batches needs --trainers <= --parallelism (a GraphStore subtask "
                            + "per rank), got "
                            + conf.get(ModelOptions.TRAINERS)
                            + " trainers at parallelism "
                            + conf.get(RunOptions.PARALLELISM));
        }
    }
}

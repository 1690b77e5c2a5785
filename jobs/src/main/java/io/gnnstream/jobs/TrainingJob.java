package io.gnnstream.jobs;

import io.gnnstream.connectors.BrokerException;
import io.gnnstream.connectors.KafkaClientConfig;
import io.gnnstream.connectors.KafkaIO;
import io.gnnstream.connectors.KafkaTopics;
import io.gnnstream.connectors.RawRecord;
import io.gnnstream.connectors.Reject;
import io.gnnstream.jobs.internal.LayerOutputRecords;
import io.gnnstream.jobs.topology.AllReduceLoop;
import io.gnnstream.jobs.topology.Ingest;
import io.gnnstream.jobs.topology.Outputs;
import io.gnnstream.jobs.topology.SamplingLoop;
import io.gnnstream.jobs.topology.TopologySettings;
import io.gnnstream.operators.FaultInjector;
import io.gnnstream.operators.JobScale;
import io.gnnstream.operators.messages.GraphStoreInput;
import io.gnnstream.operators.messages.Prediction;
import io.gnnstream.state.HashPartitioner;
import io.gnnstream.state.MapPartitioner;
import io.gnnstream.state.PartitionMap;
import io.gnnstream.state.VertexPartitioner;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.sink.KafkaSinkBuilder;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.runtime.jobgraph.JobVertex;
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

    /** Buffer timeout of the loops' operators ({@link TopologySettings#LOOP_BUFFER_TIMEOUT_MS}). */
    static final long LOOP_BUFFER_TIMEOUT_MS = TopologySettings.LOOP_BUFFER_TIMEOUT_MS;

    public static final String JOB_NAME = "gnnstream-training";

    private final ReadableConfig conf;

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
     * predictions topic and the layer outputs' channel; and, with exactly-once predictions, checks
     * {@link KafkaOptions#TRANSACTION_TIMEOUT} against the broker's {@code
     * transaction.max.timeout.ms}, which would otherwise fail the job at its first transaction.
     */
    public static void ensureOutputTopics(ReadableConfig conf) throws BrokerException {
        KafkaClientConfig bootstrap = KafkaOptions.clients(conf);
        if (exactlyOncePredictions(conf)) {
            long timeout = conf.get(KafkaOptions.TRANSACTION_TIMEOUT).toMillis();
            String max =
                    KafkaTopics.brokerConfig(bootstrap, "transaction.max.timeout.ms").orElse(null);
            if (max != null && timeout > Long.parseLong(max)) {
                throw new BrokerException(
                        "--transaction-timeout "
                                + JobOption.text(conf.get(KafkaOptions.TRANSACTION_TIMEOUT))
                                + " exceeds the broker's transaction.max.timeout.ms ("
                                + max
                                + " ms)",
                        null);
            }
        }
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
        KafkaClientConfig bootstrap = KafkaOptions.clients(conf);
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
                predictionsSink(conf),
                LayerOutputRecords.sink(bootstrap, KafkaOptions.layerOutputsTopic(conf)),
                LayerOutputRecords.source(bootstrap, KafkaOptions.layerOutputsTopic(conf), group));
    }

    /**
     * The predictions' Kafka sink, with {@link KafkaOptions#PREDICTIONS_DELIVERY}: exactly-once
     * through Flink's transactional sink (the transactional id prefix {@link
     * KafkaOptions#predictionsTransactionalIdPrefix}, {@link KafkaOptions#TRANSACTION_TIMEOUT}) or
     * at-least-once (docs/design.md, "Evaluation").
     */
    static KafkaSink<Prediction> predictionsSink(ReadableConfig conf) {
        KafkaOptions.Delivery delivery = conf.get(KafkaOptions.PREDICTIONS_DELIVERY);
        KafkaSinkBuilder<Prediction> builder =
                KafkaIO.<Prediction>sinkBuilder(KafkaOptions.clients(conf))
                        .setDeliveryGuarantee(delivery.guarantee())
                        // A round writes a record per vertex: batches of thousands of records.
                        .setProperty("linger.ms", "5")
                        .setProperty("batch.size", Integer.toString(256 << 10))
                        .setRecordSerializer(
                                new PredictionRecords(KafkaOptions.predictionsTopic(conf)));
        if (delivery == KafkaOptions.Delivery.EXACTLY_ONCE) {
            builder.setTransactionalIdPrefix(KafkaOptions.predictionsTransactionalIdPrefix(conf))
                    .setProperty(
                            "transaction.timeout.ms",
                            Long.toString(conf.get(KafkaOptions.TRANSACTION_TIMEOUT).toMillis()));
        }
        return builder.build();
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
        boolean predicting = predictionsSink != null && conf.get(PredictionOptions.PREDICTIONS);
        JobScale scale = TopologySettings.scale(conf, env.getParallelism());
        env.setMaxParallelism(scale.partitions());
        // The job's options travel with it (REST /jobs/<id>/config), so that a savepoint of it can
        // be resumed with the same options (bin/gnnstream stop and resume).
        env.getConfig().setGlobalJobParameters(Configuration.fromMap(JobOptions.recorded(conf)));
        TopologySettings settings =
                new TopologySettings(conf, scale, partitioner(conf), faults(), predicting);

        Ingest.GraphInput input =
                new Ingest(settings)
                        .build(env, edgeSource, nodeSource, rejectSink, layerOutputSource);
        SamplingLoop sampling = SamplingLoop.open(settings, input);
        AllReduceLoop allReduce = AllReduceLoop.open(settings, sampling, input.normalization());
        Outputs outputs = new Outputs(settings, allReduce.trainer());
        // The inference rounds' layer outputs go back to the GraphStore through their channel, or
        // with the requests on loop 1 (docs/design.md, "Evaluation").
        sampling.close(outputs.layerOutputs(layerOutputSink));
        allReduce.close(sampling);
        if (predicting) {
            outputs.predictions(sampling.store(), predictionsSink);
        }
        // After the predictions: the metrics lines carry incremental predictions' freshness.
        outputs.metrics(metricsSink);
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

    /** The job writes predictions, in Kafka transactions. */
    static boolean exactlyOncePredictions(ReadableConfig conf) {
        return conf.get(PredictionOptions.PREDICTIONS)
                && conf.get(KafkaOptions.PREDICTIONS_DELIVERY)
                        == KafkaOptions.Delivery.EXACTLY_ONCE;
    }

    /** {@link FaultInjector#NONE} unless {@link RunOptions#INJECT_FAULT} is set. */
    private FaultInjector faults() {
        return FaultInjector.parse(
                conf.getOptional(RunOptions.INJECT_FAULT).orElse(null),
                conf.getOptional(RunOptions.FAULT_MARKER).orElse(null));
    }

    /**
     * Rejects settings the topology cannot run with, before anything is submitted: every option's
     * own check ({@link JobOptions#validate}), the model's options against each other ({@link
     * ModelOptions#validateModel}), the job's scale ({@link TopologySettings#scale}) and local
     * batches without a GraphStore subtask per rank.
     */
    public static void validate(ReadableConfig conf) {
        JobOptions.validate(conf);
        ModelOptions.validateModel(
                conf,
                conf.get(PredictionOptions.PREDICTION_UPDATES)
                        == PredictionOptions.Updates.INCREMENTAL);
        if (exactlyOncePredictions(conf)
                && conf.get(KafkaOptions.TRANSACTION_TIMEOUT)
                                .compareTo(conf.get(RunOptions.CHECKPOINT_INTERVAL))
                        <= 0) {
            throw new IllegalArgumentException(
                    "--transaction-timeout must be longer than --checkpoint-interval (a"
                            + " transaction stays open from one checkpoint to the next), got "
                            + JobOption.text(conf.get(KafkaOptions.TRANSACTION_TIMEOUT))
                            + " and "
                            + JobOption.text(conf.get(RunOptions.CHECKPOINT_INTERVAL)));
        }
        JobScale scale = TopologySettings.scale(conf, conf.get(RunOptions.PARALLELISM));
        if (conf.getOptional(SamplingOptions.LOCAL_BATCHES).orElse(false)
                && scale.trainers() > scale.parallelism()) {
            throw new IllegalArgumentException(
                    "--local-batches needs --trainers <= --parallelism (a GraphStore subtask "
                            + "per rank), got "
                            + scale.trainers()
                            + " trainers at parallelism "
                            + scale.parallelism());
        }
    }
}

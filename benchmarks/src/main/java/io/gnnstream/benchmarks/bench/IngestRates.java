package io.gnnstream.benchmarks.bench;

import io.gnnstream.connectors.EdgeFormat;
import io.gnnstream.connectors.InvalidRecordException;
import io.gnnstream.connectors.KafkaIO;
import io.gnnstream.connectors.ParseFunction;
import io.gnnstream.jobs.GraphOptions;
import io.gnnstream.jobs.JobDefaults;
import io.gnnstream.jobs.Wiring;
import io.gnnstream.jobs.topology.Ingest;
import io.gnnstream.operators.EdgeBundler;
import io.gnnstream.operators.GraphStoreConfig;
import io.gnnstream.operators.GraphStoreOperator;
import io.gnnstream.operators.JobScale;
import io.gnnstream.operators.messages.GraphStoreInput;
import io.gnnstream.operators.messages.SampleResponse;
import io.gnnstream.operators.model.ModelConfig;
import io.gnnstream.operators.serialization.SampleResponseSerializer;
import io.gnnstream.state.EvalNeighbourhood;
import io.gnnstream.state.HashPartitioner;
import io.gnnstream.state.VertexKeyTypeInfo;
import io.gnnstream.state.records.EdgeUpdate;
import io.gnnstream.tools.Directories;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.contrib.streaming.state.RocksDBOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * The two sides of the ingest benchmark, on the same topic, both timed at steady state ({@link
 * SteadyRate}): edges/s of the real GraphStore writing RocksDB state (a bounded Kafka source, the
 * production parse function and operator), and edges/s of a plain {@link KafkaConsumer} that reads
 * and parses the same lines and does nothing else.
 *
 * <p>The GraphStore run also measures memory. Peak RSS is this JVM's (MiniCluster, RocksDB, Kafka
 * clients); the broker is a child process and is sampled separately. The RocksDB size is that of
 * the job's final checkpoint, taken once every edge is in state: an incremental RocksDB checkpoint
 * flushes the memtables first (data still in a memtable is not on disk) and then copies the
 * databases' files as they are. RocksDB works in a fresh directory under the bench work directory,
 * deleted with the checkpoint after the run.
 */
final class IngestRates {

    /**
     * How often the GraphStore publishes its sizes, i.e. the time resolution of the progress
     * samples: a 10^5-edge graph is ingested in about 0.25 s, and at most 128 small events per
     * interval cost the GraphStore about 1 % at this rate.
     */
    static final long STATS_INTERVAL_MS = 25;

    private static final Duration TIMEOUT = Duration.ofMinutes(30);

    /** What one GraphStore run measured. */
    record GraphStoreRun(
            SteadyRate.Window rate,
            long rssBeforeBytes,
            long peakRssBytes,
            long brokerPeakRssBytes,
            long rocksDbBytes) {}

    private IngestRates() {}

    /**
     * The GraphStore's edge buffer for a graph of {@code edges}: the job's default, but at most an
     * eighth of the graph, so that the timed 10-90 % window spans several writes of the buffer (the
     * progress samples count edges in state, which grow one buffer at a time).
     */
    static int edgeBuffer(long edges) {
        return (int) Math.max(1, Math.min(GraphOptions.EDGE_BUFFER.defaultValue(), edges / 8));
    }

    /**
     * Runs the GraphStore once over the whole edges topic of {@code data}; with {@code halo}, the
     * edges between partitions also pass the replica router, whose pushes the GraphStore stores;
     * with {@code incremental}, the GraphStore keeps what incremental predictions need from the
     * start (the out-edge index and the site's out-edges, updated with every stored edge).
     */
    static GraphStoreRun graphStore(
            BenchData data, int parallelism, int partitions, boolean halo, boolean incremental)
            throws Exception {
        String runId = "ingest-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        Path runDir = BenchData.WORK.resolve(runId).toAbsolutePath();
        long edges = data.info.edges();
        try (IngestProgress progress =
                IngestProgress.register(runId, parallelism, edges, STATS_INTERVAL_MS)) {
            StreamExecutionEnvironment env =
                    StreamExecutionEnvironment.createLocalEnvironment(
                            parallelism, configuration(runDir));
            env.setMaxParallelism(partitions);
            HashPartitioner partitioner = new HashPartitioner(partitions);
            JobScale scale = JobScale.store(partitions, parallelism);
            DataStream<EdgeUpdate> edgeInput =
                    env.fromSource(
                                    KafkaIO.edgeSourceBuilder(
                                                    data.broker.bootstrapServers(),
                                                    data.edgesTopic,
                                                    runId,
                                                    OffsetsInitializer.earliest())
                                            .setBounded(OffsetsInitializer.latest())
                                            .build(),
                                    WatermarkStrategy.noWatermarks(),
                                    "edges-source")
                            .process(new ParseFunction<>(new EdgeFormat()))
                            .name("parse-edges");
            SingleOutputStreamOperator<GraphStoreInput> bundles =
                    Ingest.edgeBundles(edgeInput, partitioner, scale, halo);
            DataStream<GraphStoreInput> input =
                    !halo
                            ? bundles
                            : bundles.union(
                                    Ingest.replicaUpdates(
                                            bundles.getSideOutput(EdgeBundler.CUT_EDGES),
                                            null,
                                            partitioner,
                                            scale));
            SingleOutputStreamOperator<SampleResponse> store =
                    input.keyBy(new Wiring.StoreInputKey(partitioner), VertexKeyTypeInfo.INSTANCE)
                            .transform(
                                    "graph-store",
                                    SampleResponseSerializer.TYPE_INFO,
                                    new GraphStoreOperator(
                                            partitioner,
                                            new GraphStoreConfig(
                                                            0L,
                                                            data.info.featureDim(),
                                                            STATS_INTERVAL_MS,
                                                            0,
                                                            0,
                                                            edgeBuffer(data.info.edges()),
                                                            0)
                                                    .withHalo(halo)
                                                    .withIncremental(
                                                            incremental
                                                                    ? new ModelConfig(
                                                                            data.info.featureDim(),
                                                                            64,
                                                                            Math.max(
                                                                                    2,
                                                                                    data.info
                                                                                            .numClasses()),
                                                                            2,
                                                                            0.5,
                                                                            0.01,
                                                                            0,
                                                                            1L)
                                                                    : null,
                                                            true,
                                                            EvalNeighbourhood.DEFAULT_FANOUT)))
                            .uid("graph-store");
            store.sinkTo(new DiscardingSink<>());
            store.getSideOutput(GraphStoreOperator.EVENTS)
                    .transform(
                            "ingest-progress",
                            Types.VOID,
                            new IngestProgress.Collector(runId, runDir.resolve("checkpoints")))
                    .uid("ingest-progress");
            long self = ProcessHandle.current().pid();
            long rssBefore = RssSampler.current(self);
            RssSampler rss = RssSampler.start(self, data.broker.pid());
            try (rss) {
                runToEnd(env);
            }
            return new GraphStoreRun(
                    SteadyRate.between(progress.samples(), edges),
                    rssBefore,
                    rss.peakBytes(0),
                    rss.peakBytes(1),
                    progress.checkpointBytes());
        } finally {
            Directories.deleteRecursively(runDir);
        }
    }

    private static void runToEnd(StreamExecutionEnvironment env) throws Exception {
        JobClient job = env.executeAsync("bench-ingest");
        try {
            job.getJobExecutionResult().get(TIMEOUT.toMinutes(), TimeUnit.MINUTES);
        } catch (TimeoutException e) {
            job.cancel();
            throw new IllegalStateException("the ingest job did not finish within " + TIMEOUT, e);
        }
    }

    /**
     * Checkpointing, but no periodic checkpoint while edges arrive (interval and first delay of a
     * day): the only checkpoint is the one Flink triggers as soon as the sink tasks have read all
     * of their input, while the finished tasks still hold their state ({@link IngestProgress}
     * measures it). Every file is written as a file, no state is inlined into {@code _metadata}.
     */
    private static Configuration configuration(Path runDir) {
        Configuration conf = new Configuration();
        conf.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
        conf.set(RocksDBOptions.LOCAL_DIRECTORIES, runDir.resolve("rocksdb").toString());
        conf.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofDays(1));
        conf.set(CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS, Duration.ofDays(1));
        conf.set(CheckpointingOptions.ENABLE_CHECKPOINTS_AFTER_TASKS_FINISH, true);
        conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
        conf.set(
                CheckpointingOptions.CHECKPOINTS_DIRECTORY,
                runDir.resolve("checkpoints").toUri().toString());
        conf.set(CheckpointingOptions.FS_SMALL_FILE_THRESHOLD, MemorySize.ZERO);
        conf.set(PipelineOptions.GENERIC_TYPES, false);
        JobDefaults.tuneThroughput(conf);
        conf.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse("1g"));
        return conf;
    }

    /** Edges per second of a plain consumer that reads and parses the topic from the beginning. */
    static SteadyRate.Window plainConsumer(String bootstrap, String topic, long edges)
            throws InvalidRecordException {
        EdgeFormat format = new EdgeFormat();
        List<SteadyRate.Sample> samples = new ArrayList<>();
        long read = 0;
        long checksum = 0;
        try (KafkaConsumer<String, String> consumer = KafkaIO.stringConsumer(bootstrap, 5000)) {
            List<TopicPartition> partitions = KafkaIO.assignFromBeginning(consumer, topic);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            while (!reachedEnd(consumer, end)) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    checksum += format.parse(r.value()).dst;
                    read++;
                }
                samples.add(new SteadyRate.Sample(System.nanoTime(), read));
            }
        }
        if (read != edges || checksum == Long.MIN_VALUE) {
            throw new IllegalStateException(
                    "plain consumer read " + read + " records, expected " + edges);
        }
        return SteadyRate.between(samples, edges);
    }

    private static boolean reachedEnd(
            KafkaConsumer<String, String> consumer, Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            if (consumer.position(e.getKey()) < e.getValue()) {
                return false;
            }
        }
        return true;
    }
}

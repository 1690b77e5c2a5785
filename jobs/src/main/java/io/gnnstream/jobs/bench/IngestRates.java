package io.gnnstream.jobs.bench;

import io.gnnstream.connectors.EdgeFormat;
import io.gnnstream.connectors.InvalidRecordException;
import io.gnnstream.connectors.KafkaIO;
import io.gnnstream.connectors.ParseFunction;
import io.gnnstream.jobs.internal.Wiring;
import io.gnnstream.operators.GraphStoreOperator;
import io.gnnstream.operators.messages.GraphStoreInput;
import io.gnnstream.operators.messages.SampleResponse;
import io.gnnstream.operators.serialization.SampleResponseSerializer;
import io.gnnstream.state.HashPartitioner;
import io.gnnstream.state.VertexKeyTypeInfo;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * The two sides of the ingest benchmark, on the same topic: edges/s of the real GraphStore writing
 * RocksDB state (a bounded Kafka source, the production parse function and operator), and edges/s
 * of a plain {@link KafkaConsumer} that reads and parses the same lines and does nothing else.
 */
public final class IngestRates {

    private IngestRates() {}

    /** Edges per second into the GraphStore's RocksDB state, timed by the job's own runtime. */
    public static double graphStore(String bootstrap, String topic, long edges, int parallelism, int partitions,
            int featureDim) throws Exception {
        // No checkpoints: a bounded job with checkpointing waits for a final checkpoint once its first
        // subtask finishes, which would be timed as ingestion.
        Configuration conf = new Configuration();
        conf.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
        conf.set(PipelineOptions.GENERIC_TYPES, false);
        conf.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse("1g"));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(parallelism, conf);
        env.setMaxParallelism(partitions);
        HashPartitioner partitioner = new HashPartitioner(partitions);
        env.fromSource(KafkaIO.rawSourceBuilder(bootstrap, topic, "bench-ingest-" + System.nanoTime(),
                                OffsetsInitializer.earliest())
                        .setBounded(OffsetsInitializer.latest()).build(),
                        WatermarkStrategy.noWatermarks(), "edges-source")
                .process(new ParseFunction<>(new EdgeFormat())).name("parse-edges")
                .map(new Wiring.EdgeToStoreInput()).returns(GraphStoreInput.class)
                .keyBy(new Wiring.StoreInputKey(partitioner), VertexKeyTypeInfo.INSTANCE)
                .transform("graph-store", SampleResponseSerializer.TYPE_INFO,
                        new GraphStoreOperator(partitioner, 0L, featureDim, 1000L))
                .sinkTo(new DiscardingSink<>());
        JobExecutionResult result = env.execute("bench-ingest");
        return edges / (result.getNetRuntime(TimeUnit.MILLISECONDS) / 1000.0);
    }

    /** Edges per second of a plain consumer that reads and parses the topic from the beginning. */
    public static double plainConsumer(String bootstrap, String topic, long edges) throws InvalidRecordException {
        EdgeFormat format = new EdgeFormat();
        long started = System.nanoTime();
        long read = 0;
        long checksum = 0;
        try (KafkaConsumer<String, String> consumer = KafkaIO.stringConsumer(bootstrap, 5000)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(i -> new TopicPartition(i.topic(), i.partition()))
                    .collect(Collectors.toList());
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            while (!reachedEnd(consumer, end)) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    checksum += format.parse(r.value()).dst;
                    read++;
                }
            }
        }
        if (read != edges || checksum == Long.MIN_VALUE) {
            throw new IllegalStateException("plain consumer read " + read + " records, expected " + edges);
        }
        return edges / ((System.nanoTime() - started) / 1e9);
    }

    private static boolean reachedEnd(KafkaConsumer<String, String> consumer, Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            if (consumer.position(e.getKey()) < e.getValue()) {
                return false;
            }
        }
        return true;
    }
}

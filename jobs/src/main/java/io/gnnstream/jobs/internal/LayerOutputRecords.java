package io.gnnstream.jobs.internal;

import io.gnnstream.connectors.KafkaClientConfig;
import io.gnnstream.connectors.KafkaIO;
import io.gnnstream.operators.messages.GraphStoreInput;
import io.gnnstream.operators.messages.LayerOutputs;
import io.gnnstream.operators.serialization.GraphStoreInputSerializer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The channel that carries inference rounds' layer outputs from the trainer ranks to the GraphStore
 * through a Kafka topic (docs/design.md, "Evaluation"): records are {@link GraphStoreInput}s
 * holding {@code LayerOutputs}, in {@link GraphStoreInputSerializer}'s versioned format, keyed by
 * the route they go to. The topic absorbs what the GraphStore has not read yet, so a rank never
 * waits for the GraphStore, which may itself be waiting to send the rank feature parts; records
 * left in the topic at a failure are read again after the restore (the source's offsets are in the
 * checkpoint), and writing an output twice stores the same row.
 */
public final class LayerOutputRecords {

    private static final Logger LOG = LoggerFactory.getLogger(LayerOutputRecords.class);

    /**
     * Configs of the topic: records are needed until the GraphStore has read them, seconds after
     * they were written, so old segments go after a quarter of an hour.
     */
    public static final Map<String, String> TOPIC_CONFIGS =
            Map.of(
                    "retention.ms",
                    "900000",
                    "segment.ms",
                    "60000",
                    "segment.bytes",
                    Integer.toString(64 << 20));

    /** Producer batch size of the ranks' sink. */
    static final int BATCH_BYTES = 512 << 10;

    private LayerOutputRecords() {}

    /** The ranks' side: at least once, a repeated output being harmless. */
    public static KafkaSink<GraphStoreInput> sink(KafkaClientConfig clients, String topic) {
        return KafkaIO.<GraphStoreInput>sinkBuilder(clients)
                .setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)
                .setProperty("linger.ms", "5")
                // A round writes about a gigabyte in records of up to 16 KiB: batches of many
                // records (the producer's default batch holds one) keep the requests few, and under
                // the broker's 1 MB batch limit.
                .setProperty("batch.size", Integer.toString(BATCH_BYTES))
                .setProperty("buffer.memory", Integer.toString(16 * BATCH_BYTES))
                .setRecordSerializer(new Serializer(topic))
                .build();
    }

    /** The GraphStore's side, from the earliest offsets of a fresh job. */
    public static KafkaSource<GraphStoreInput> source(
            KafkaClientConfig clients, String topic, String groupId) {
        return KafkaSource.<GraphStoreInput>builder()
                .setProperties(clients.properties())
                .setBootstrapServers(clients.bootstrapServers())
                .setTopics(topic)
                .setGroupId(groupId)
                .setClientIdPrefix(groupId + "-" + topic)
                .setStartingOffsets(OffsetsInitializer.earliest())
                .setDeserializer(new Deserializer())
                .setProperty("fetch.max.bytes", Integer.toString(8 << 20))
                .build();
    }

    static final class Serializer implements KafkaRecordSerializationSchema<GraphStoreInput> {
        private static final long serialVersionUID = 1L;
        private final String topic;

        Serializer(String topic) {
            this.topic = topic;
        }

        @Override
        public ProducerRecord<byte[], byte[]> serialize(
                GraphStoreInput input, KafkaSinkContext context, Long timestamp) {
            if (!(input instanceof GraphStoreInput.Outputs layer)) {
                throw new IllegalArgumentException("only layer outputs travel on " + topic);
            }
            LayerOutputs outputs = layer.outputs();
            DataOutputSerializer out =
                    new DataOutputSerializer(outputs.values.length * Float.BYTES + 256);
            try {
                GraphStoreInputSerializer.INSTANCE.serialize(input, out);
            } catch (IOException e) {
                throw new IllegalStateException("cannot serialize " + outputs, e);
            }
            return new ProducerRecord<>(
                    topic,
                    null,
                    timestamp,
                    Integer.toString(outputs.route).getBytes(StandardCharsets.UTF_8),
                    out.getCopyOfBuffer());
        }
    }

    static final class Deserializer implements KafkaRecordDeserializationSchema<GraphStoreInput> {
        private static final long serialVersionUID = 1L;

        @Override
        public void deserialize(
                ConsumerRecord<byte[], byte[]> record, Collector<GraphStoreInput> out) {
            try {
                GraphStoreInput input =
                        GraphStoreInputSerializer.INSTANCE.deserialize(
                                new DataInputDeserializer(record.value()));
                if (input instanceof GraphStoreInput.Outputs) {
                    out.collect(input);
                    return;
                }
            } catch (IOException | RuntimeException e) {
                LOG.warn(
                        "skipped an unreadable record at offset {} of {}-{}: {}",
                        record.offset(),
                        record.topic(),
                        record.partition(),
                        e.toString());
                return;
            }
            LOG.warn(
                    "skipped a record at offset {} of {}-{} that holds no layer outputs",
                    record.offset(),
                    record.topic(),
                    record.partition());
        }

        @Override
        public TypeInformation<GraphStoreInput> getProducedType() {
            return GraphStoreInputSerializer.TYPE_INFO;
        }
    }
}

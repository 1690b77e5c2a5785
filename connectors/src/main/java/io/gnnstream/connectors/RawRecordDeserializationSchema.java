package io.gnnstream.connectors;

import java.nio.charset.StandardCharsets;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Turns every Kafka record into a {@link RawRecord} (value decoded as UTF-8, a null value as the
 * empty string). It never throws, so no input can fail the source; validation is left to {@link
 * ParseFunction}, which can dead-letter.
 */
public class RawRecordDeserializationSchema implements KafkaRecordDeserializationSchema<RawRecord> {

    private static final long serialVersionUID = 1L;

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<RawRecord> out) {
        byte[] bytes = record.value();
        String value = bytes == null ? "" : new String(bytes, StandardCharsets.UTF_8);
        out.collect(new RawRecord(record.topic(), record.partition(), record.offset(), value));
    }

    @Override
    public TypeInformation<RawRecord> getProducedType() {
        return TypeInformation.of(RawRecord.class);
    }
}

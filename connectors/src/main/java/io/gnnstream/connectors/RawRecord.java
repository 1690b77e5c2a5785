package io.gnnstream.connectors;

import java.util.Objects;

/**
 * A Kafka record value before parsing, with its coordinates. Parsing happens after the source (in
 * {@link ParseFunction}) rather than in the deserializer so that a bad record can be dead-lettered
 * with its topic, partition and offset instead of failing the source. A Flink POJO.
 */
public class RawRecord {

    public String topic;
    public int partition;
    public long offset;
    public String value;

    public RawRecord() {}

    public RawRecord(String topic, int partition, long offset, String value) {
        this.topic = topic;
        this.partition = partition;
        this.offset = offset;
        this.value = value;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof RawRecord)) {
            return false;
        }
        RawRecord r = (RawRecord) o;
        return partition == r.partition
                && offset == r.offset
                && Objects.equals(topic, r.topic)
                && Objects.equals(value, r.value);
    }

    @Override
    public int hashCode() {
        return Objects.hash(topic, partition, offset, value);
    }

    @Override
    public String toString() {
        return topic + "-" + partition + "@" + offset + ": " + value;
    }
}

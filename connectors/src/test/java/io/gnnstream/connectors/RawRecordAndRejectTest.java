package io.gnnstream.connectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

class RawRecordAndRejectTest {

    @Test
    void deserializerKeepsCoordinatesAndDecodesUtf8() throws Exception {
        List<RawRecord> out = new ArrayList<>();
        Collector<RawRecord> collector =
                new Collector<>() {
                    @Override
                    public void collect(RawRecord record) {
                        out.add(record);
                    }

                    @Override
                    public void close() {}
                };
        RawRecordDeserializationSchema schema = new RawRecordDeserializationSchema();
        schema.deserialize(
                new ConsumerRecord<>(
                        "nodes", 2, 42, null, "{\"é\":1}".getBytes(StandardCharsets.UTF_8)),
                collector);
        schema.deserialize(new ConsumerRecord<>("nodes", 3, 7, null, null), collector);
        assertEquals(
                List.of(
                        new RawRecord("nodes", 2, 42, "{\"é\":1}"),
                        new RawRecord("nodes", 3, 7, "")),
                out);
        assertInstanceOf(PojoTypeInfo.class, schema.getProducedType());
    }

    @Test
    void rejectJsonRoundTrips() throws Exception {
        Reject reject =
                Reject.of(
                        new RawRecord("edges", 1, 99, "1,\"x\""),
                        "dst is not a 64-bit integer: \"x\"");
        String json = reject.toJson();
        assertEquals(
                "{\"topic\":\"edges\",\"partition\":1,\"offset\":99,\"reason\":\"dst is not a"
                        + " 64-bit integer: \\\"x\\\"\",\"value\":\"1,\\\"x\\\"\"}",
                json);
        assertEquals(reject, Reject.fromJson(json));
    }
}

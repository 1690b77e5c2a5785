package io.gnnstream.operators.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.junit.jupiter.api.Test;

class TrainingGaugesTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void gaugesFollowTheMergedLines() throws Exception {
        Map<String, Gauge<?>> gauges = new HashMap<>();
        MetricGroup group =
                new UnregisteredMetricsGroup() {
                    @Override
                    public MetricGroup addGroup(String name) {
                        assertEquals(TrainingGauges.GROUP, name);
                        return this;
                    }

                    @Override
                    public <T, G extends Gauge<T>> G gauge(String name, G gauge) {
                        gauges.put(name, gauge);
                        return gauge;
                    }
                };
        TrainingGauges g = new TrainingGauges(group);
        g.update(
                JSON.readTree(
                        "{\"step\":40,\"loss\":0.5,\"train_acc\":0.9,\"seeds_per_s\":1200.0,"
                                + "\"allreduce_s\":0.002,\"replicas_identical\":true}"));
        assertEquals(40L, gauges.get("step").getValue());
        assertEquals(0.5, gauges.get("loss").getValue());
        assertEquals(Double.NaN, gauges.get("valAccuracy").getValue());
        g.update(
                JSON.readTree(
                        "{\"step\":50,\"loss\":0.4,\"val_acc\":0.7,\"test_acc\":0.8,"
                                + "\"replicas_identical\":false}"));
        assertEquals(50L, gauges.get("step").getValue());
        assertEquals(0.9, gauges.get("trainAccuracy").getValue());
        assertEquals(0.7, gauges.get("valAccuracy").getValue());
        assertEquals(0.8, gauges.get("testAccuracy").getValue());
        assertEquals(1200.0, gauges.get("seedsPerSecond").getValue());
        assertEquals(0, gauges.get("replicasIdentical").getValue());
        assertEquals(8, gauges.size());
    }
}

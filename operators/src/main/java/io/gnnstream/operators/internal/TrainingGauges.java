package io.gnnstream.operators.internal;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;

/**
 * The merged metrics line as Flink gauges in the group {@value #GROUP} of the operator that merges
 * the ranks' lines: visible in the Web UI and to any configured reporter (the cluster's Prometheus
 * endpoint). Each gauge holds the value of the latest line that had it; the accuracies on the
 * validation and test sets change at evaluations only.
 */
public final class TrainingGauges {

    public static final String GROUP = "training";

    private volatile long step;
    private volatile double loss = Double.NaN;
    private volatile double trainAccuracy = Double.NaN;
    private volatile double valAccuracy = Double.NaN;
    private volatile double testAccuracy = Double.NaN;
    private volatile double seedsPerSecond;
    private volatile double allReduceSeconds;
    private volatile int replicasIdentical = 1;

    /** Registers the gauges under {@code parent}. */
    public TrainingGauges(MetricGroup parent) {
        MetricGroup g = parent.addGroup(GROUP);
        g.gauge("step", (Gauge<Long>) () -> step);
        g.gauge("loss", (Gauge<Double>) () -> loss);
        g.gauge("trainAccuracy", (Gauge<Double>) () -> trainAccuracy);
        g.gauge("valAccuracy", (Gauge<Double>) () -> valAccuracy);
        g.gauge("testAccuracy", (Gauge<Double>) () -> testAccuracy);
        g.gauge("seedsPerSecond", (Gauge<Double>) () -> seedsPerSecond);
        g.gauge("allReduceSeconds", (Gauge<Double>) () -> allReduceSeconds);
        g.gauge("replicasIdentical", (Gauge<Integer>) () -> replicasIdentical);
    }

    /** Takes the values of a merged line. */
    public void update(JsonNode line) {
        step = line.path("step").asLong(step);
        loss = line.path("loss").asDouble(loss);
        trainAccuracy = line.path("train_acc").asDouble(trainAccuracy);
        if (line.has("val_acc")) {
            valAccuracy = line.path("val_acc").asDouble();
            testAccuracy = line.path("test_acc").asDouble();
        }
        seedsPerSecond = line.path("seeds_per_s").asDouble(seedsPerSecond);
        allReduceSeconds = line.path("allreduce_s").asDouble(allReduceSeconds);
        replicasIdentical = line.path("replicas_identical").asBoolean(true) ? 1 : 0;
    }
}

package io.gnnstream.operators.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.model.TrainResult;

/**
 * The trainer's statistics since its last metrics line. Rates are over the window's wall time; the
 * busy share is the time spent in model steps over that wall time, which is what tells a trainer
 * starved of batches from one that is the bottleneck.
 */
public final class MetricsWindow {

    private final long startNanos;
    private long busyNanos;
    private long seeds;
    private long correct;
    private double lossSum;
    private int steps;
    private long sampledEdges;
    private long vertices;
    private long edgesIngested;
    private long allReduceNanos;

    public MetricsWindow(long startNanos) {
        this.startNanos = startNanos;
    }

    /** A training step of {@code nanos} on {@code b}. */
    public void addStep(TrainResult r, MiniBatch b, long nanos) {
        addStep(r.loss(), r.correct(), r.numSeeds(), sampledEdges(b), b.graphVertices, b.graphEdgesIngested, nanos);
    }

    /** A training step of {@code nanos} with mean loss {@code loss} over {@code numSeeds} seeds. */
    public void addStep(double loss, int correct, int numSeeds, long batchEdges, long graphVertices,
            long graphEdgesIngested, long nanos) {
        busyNanos += nanos;
        seeds += numSeeds;
        this.correct += correct;
        lossSum += loss * numSeeds;
        steps++;
        sampledEdges += batchEdges;
        vertices = graphVertices;
        edgesIngested = graphEdgesIngested;
    }

    /** The edges of a batch's sampled blocks. */
    public static long sampledEdges(MiniBatch b) {
        long edges = 0;
        for (int hop = 1; hop <= b.numLayers; hop++) {
            edges += b.numEdges(hop);
        }
        return edges;
    }

    /** Time a rank waited for the reduced gradient of a step. */
    public void addAllReduce(long nanos) {
        allReduceNanos += nanos;
    }

    /** Model time that is not a training step (evaluation). */
    public void addBusy(long nanos) {
        busyNanos += nanos;
    }

    public void writeTo(ObjectNode line, long nowNanos) {
        double wall = Math.max(1e-9, (nowNanos - startNanos) / 1e9);
        double busy = busyNanos / 1e9;
        line.put("loss", ratio(lossSum, seeds));
        line.put("train_acc", ratio(correct, seeds));
        line.put("seeds_per_s", seeds / wall);
        line.put("trainer_seeds_per_s", busy == 0 ? 0.0 : seeds / busy);
        line.put("busy", Math.min(1.0, busy / wall));
        line.put("batches_per_s", steps / wall);
        line.put("sampled_edges_per_s", sampledEdges / wall);
        line.put("edges_ingested", edgesIngested);
        line.put("vertices", vertices);
    }

    /** The window's raw sums, for a rank line that {@code MetricsMerger} combines with other ranks'. */
    public void writeRawTo(ObjectNode line, long nowNanos) {
        RankLine.window(line, seeds, correct, lossSum, steps, busyNanos / 1e9,
                Math.max(1e-9, (nowNanos - startNanos) / 1e9), sampledEdges, edgesIngested, vertices,
                allReduceNanos / 1e9);
    }

    private static double ratio(double a, double b) {
        return b == 0 ? 0.0 : a / b;
    }
}

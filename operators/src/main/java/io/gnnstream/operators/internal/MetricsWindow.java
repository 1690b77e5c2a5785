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

    public MetricsWindow(long startNanos) {
        this.startNanos = startNanos;
    }

    /** A training step of {@code nanos} on {@code b}. */
    public void addStep(TrainResult r, MiniBatch b, long nanos) {
        busyNanos += nanos;
        seeds += r.numSeeds();
        correct += r.correct();
        lossSum += r.loss() * r.numSeeds();
        steps++;
        for (int hop = 1; hop <= b.numLayers; hop++) {
            sampledEdges += b.numEdges(hop);
        }
        vertices = b.graphVertices;
        edgesIngested = b.graphEdgesIngested;
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

    private static double ratio(double a, double b) {
        return b == 0 ? 0.0 : a / b;
    }
}

package io.gnnstream.operators.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.model.TrainResult;

/**
 * A trainer rank's sums since its last metrics line: seeds, correct predictions, loss, steps, model
 * time, wall time and all-reduce wait. {@code MetricsMerger} turns the ranks' sums into rates and
 * the busy share (model time over wall time), which tells a trainer starved of batches from one
 * that is the bottleneck.
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
    private long replicas;
    private long cutEdgesIngested;
    private long allReduceNanos;
    private long trafficBatches;
    private long loopRequests;
    private long loopRequestVertices;
    private long loopBytes;
    private long featureBytes;
    private long remoteBytes;
    private long remoteRequests;

    public MetricsWindow(long startNanos) {
        this.startNanos = startNanos;
    }

    /** A training step of {@code nanos} on {@code b}. */
    public void addStep(TrainResult r, MiniBatch b, long nanos) {
        addStep(
                r.loss(),
                r.correct(),
                r.numSeeds(),
                sampledEdges(b),
                b.graphVertices,
                b.graphEdgesIngested,
                nanos);
        placement(b.graphReplicas, b.graphCutEdgesIngested);
    }

    /** The graph's halo replicas and ingested edges between partitions as of the latest step. */
    public void placement(long graphReplicas, long graphCutEdgesIngested) {
        replicas = graphReplicas;
        cutEdgesIngested = graphCutEdgesIngested;
    }

    /** A training step of {@code nanos} with mean loss {@code loss} over {@code numSeeds} seeds. */
    public void addStep(
            double loss,
            int correct,
            int numSeeds,
            long batchEdges,
            long graphVertices,
            long graphEdgesIngested,
            long nanos) {
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

    /** A completed training batch's sampling-loop traffic. */
    public void addTraffic(MiniBatch b) {
        trafficBatches++;
        loopRequests += b.loopRequests;
        loopRequestVertices += b.loopRequestVertices;
        loopBytes += b.loopBytes;
        featureBytes += b.featureBytes;
        remoteBytes += b.remoteLoopBytes + b.remoteFeatureBytes;
        remoteRequests += b.remoteLoopRequests;
    }

    /** Time a rank waited for the reduced gradient of a step. */
    public void addAllReduce(long nanos) {
        allReduceNanos += nanos;
    }

    /** Model time that is not a training step (evaluation). */
    public void addBusy(long nanos) {
        busyNanos += nanos;
    }

    /**
     * The window's raw sums, for a rank line that {@code MetricsMerger} combines with other ranks'.
     */
    public void writeRawTo(ObjectNode line, long nowNanos) {
        RankLine.window(
                line,
                seeds,
                correct,
                lossSum,
                steps,
                busyNanos / 1e9,
                Math.max(1e-9, (nowNanos - startNanos) / 1e9),
                sampledEdges,
                edgesIngested,
                vertices,
                allReduceNanos / 1e9);
        RankLine.placement(line, replicas, cutEdgesIngested);
        RankLine.traffic(
                line,
                trafficBatches,
                loopRequests,
                loopRequestVertices,
                loopBytes,
                featureBytes,
                remoteRequests,
                remoteBytes);
    }
}

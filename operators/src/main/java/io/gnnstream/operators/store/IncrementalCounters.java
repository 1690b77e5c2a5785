package io.gnnstream.operators.store;

/**
 * What {@link IncrementalPredictions} did since its subtask started: the work of the recomputation
 * and how the sums were kept, for the GraphStore's log line and gauges.
 */
public final class IncrementalCounters {

    long recomputed;
    long predicted;
    long summedAgain;
    long hubsSummedAgain;
    long rowSumsSummedAgain;
    long summedByRound;
    long featureSumsByRound;
    long summedByDifference;
    long hubDifferences;
    long hubPasses;
    long hubNeighboursPassed;
    long hubSelectionsCached;
    long cleared;
    long roundRowsRewritten;
    long suspensions;

    /** Vertex layers recomputed. */
    public long recomputed() {
        return recomputed;
    }

    /** Predictions emitted. */
    public long predicted() {
        return predicted;
    }

    /** Sums computed from the neighbours (not kept by differences). */
    public long summedAgain() {
        return summedAgain;
    }

    /** Sums of vertices above the eval fanout among {@link #summedAgain}. */
    public long hubsSummedAgain() {
        return hubsSummedAgain;
    }

    /** Sums of rows (not features) among {@link #summedAgain}. */
    public long rowSumsSummedAgain() {
        return rowSumsSummedAgain;
    }

    /** Sums of rows that rounds made for their pins. */
    public long summedByRound() {
        return summedByRound;
    }

    /** Features' sums that rounds made ({@link RoundSums#featureSums}). */
    public long featureSumsByRound() {
        return featureSumsByRound;
    }

    /** Sums that took an edge change as a difference instead of being summed again. */
    public long summedByDifference() {
        return summedByDifference;
    }

    /** Of {@link #summedByDifference}, the sums of hubs above the eval fanout. */
    public long hubDifferences() {
        return hubDifferences;
    }

    /** Passes over a hub's in-neighbours to find how an edge change moved its selection. */
    public long hubPasses() {
        return hubPasses;
    }

    /** In-neighbours ranked by {@link #hubPasses}. */
    public long hubNeighboursPassed() {
        return hubNeighboursPassed;
    }

    /** Hub edge changes whose selection change came from the cache ({@link HubSelections}). */
    public long hubSelectionsCached() {
        return hubSelectionsCached;
    }

    /** Vertices whose sums an edge change cleared (not kept by differences). */
    public long cleared() {
        return cleared;
    }

    /** Rows of a round that a block written again changed ({@link RoundSums#rowsWritten}). */
    public long roundRowsRewritten() {
        return roundRowsRewritten;
    }

    /** How often a burst marked more than the budget. */
    public long suspensions() {
        return suspensions;
    }
}

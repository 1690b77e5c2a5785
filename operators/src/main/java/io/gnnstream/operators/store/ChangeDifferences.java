package io.gnnstream.operators.store;

import io.gnnstream.state.EvalNeighbourhood;
import java.util.Arrays;

/**
 * How a change of the graph reaches {@link IncrementalPredictions}' sums and marks: an edge change
 * moves its destination's sums by the neighbours that entered and left its neighbourhood (or clears
 * them), a feature change or a changed row adds its difference to the sums of its readers (a hub's
 * readers in pieces, {@link FanOuts}), and each marks the vertices to recompute.
 */
final class ChangeDifferences {

    /** Marks a vertex for recomputation at a layer ({@link IncrementalPredictions#mark}). */
    @FunctionalInterface
    interface Marker {
        void mark(int layer, long v, long changedAt);
    }

    private final int layers;
    private final int features;
    private final int evalFanout;
    private final NeighbourSums sums;
    private final IncrementalPredictions.Graph graph;
    private final FanOuts fanOuts;
    private final PinnedRound pinned;
    private final NeighbourParts parts;
    private final Marker marks;
    private final IncrementalCounters counters;

    /** Hubs' selections, so that most of their edge changes need no pass over their lists. */
    private final HubSelections hubs;

    /** Heap for {@link HubSelections}: about 400 hubs' entries at the default eval fanout. */
    static final long HUB_SELECTIONS_BYTES = 32L << 20;

    /** Readers a change reaches at once; a vertex with more fans out in pieces of this many. */
    private int fanOutPiece = IncrementalPredictions.BLOCK_VERTICES;

    ChangeDifferences(
            int layers,
            int features,
            int evalFanout,
            NeighbourSums sums,
            IncrementalPredictions.Graph graph,
            FanOuts fanOuts,
            PinnedRound pinned,
            NeighbourParts parts,
            Marker marks,
            IncrementalCounters counters) {
        this.layers = layers;
        this.features = features;
        this.evalFanout = evalFanout;
        this.sums = sums;
        this.graph = graph;
        this.fanOuts = fanOuts;
        this.pinned = pinned;
        this.parts = parts;
        this.marks = marks;
        this.counters = counters;
        this.hubs = new HubSelections(evalFanout, HUB_SELECTIONS_BYTES);
    }

    /**
     * {@code w}'s in-adjacency changed while no sums were kept by differences: its cached
     * selection, if any, no longer says what the list holds.
     */
    void adjacencyChangedUnseen(long w) {
        hubs.forget(w);
    }

    /** See {@link IncrementalPredictions#adjacencyChanged}. */
    void adjacencyChanged(long w, long changedAt) throws Exception {
        hubs.forget(w);
        sums.clear(w);
        counters.cleared++;
        for (int j = 0; j < layers; j++) {
            marks.mark(j, w, changedAt);
        }
    }

    /**
     * See {@link IncrementalPredictions#edgesApplied}; {@code roundRunning}: a round newer than the
     * pinned one has begun, whose sums made before this change are stale.
     */
    void edgesApplied(
            long w,
            long[] ops,
            int change,
            EdgeWriter.Written written,
            long changedAt,
            boolean roundRunning)
            throws Exception {
        int adds = 0;
        for (long op : ops) {
            adds += op >= 0 ? 1 : 0;
        }
        boolean allTookEffect =
                adds == ops.length && change == ops.length || adds == 0 && change == -ops.length;
        int after = allTookEffect ? written.degree() : 0;
        boolean hub = EvalNeighbourhood.selects(after, evalFanout);
        if (!allTookEffect || hub != EvalNeighbourhood.selects(after - change, evalFanout)) {
            adjacencyChanged(w, changedAt);
            removedFromFanOuts(w, ops);
            return;
        }
        long[] sources = new long[ops.length];
        for (int i = 0; i < ops.length; i++) {
            sources[i] = ops[i] >= 0 ? ops[i] : -1 - ops[i];
        }
        long[] inNeighbours = null;
        // The cached selection takes the batch whether or not a sum needs it.
        HubSelectionChange selection = hub ? hubs.apply(w, sources, adds > 0) : null;
        counters.hubSelectionsCached += selection != null ? 1 : 0;
        long lowestRank = Long.MAX_VALUE;
        if (hub) {
            for (long u : sources) {
                lowestRank = Math.min(lowestRank, EvalNeighbourhood.rank(w, u));
            }
        }
        for (int m = 0; m < layers; m++) {
            NeighbourSums.Sum sum = sums.get(m, w, pinned.tag(m));
            if (sum == null && m > 0 && roundRunning) {
                // A sum the running round made before this change (roundSummed) is stale.
                sums.clear(m, w);
            }
            if (sum != null) {
                long[] entering = adds > 0 ? sources : new long[0];
                long[] leaving = adds > 0 ? new long[0] : sources;
                long bound = Long.MAX_VALUE;
                if (hub && lowestRank > sum.rankBound()) {
                    // No source is within the selection: it took none in and let none go.
                    counters.hubDifferences++;
                    counters.summedByDifference++;
                    marks.mark(m, w, changedAt);
                    continue;
                } else if (hub) {
                    // The layers' sums share their bound: the list is passed over once at most.
                    HubSelectionChange c = selection;
                    if (c == null || c.boundBefore() != sum.rankBound()) {
                        if (inNeighbours == null) {
                            inNeighbours = written.neighbours();
                        }
                        c =
                                HubSelectionChange.of(
                                        w,
                                        inNeighbours,
                                        sources,
                                        adds > 0,
                                        sum.rankBound(),
                                        evalFanout);
                    }
                    if (c != selection && c.ranked() > 0) {
                        counters.hubPasses++;
                        counters.hubNeighboursPassed += c.ranked();
                        hubs.fill(w, inNeighbours);
                    }
                    selection = c;
                    if (!c.consistent()) {
                        adjacencyChanged(w, changedAt);
                        removedFromFanOuts(w, ops);
                        return;
                    }
                    entering = c.entering();
                    leaving = c.leaving();
                    bound = c.bound();
                    counters.hubDifferences++;
                }
                float[] s = sum.values();
                addParts(s, parts.of(m, entering, w), 1f);
                addParts(s, parts.of(m, leaving, w), -1f);
                sums.put(
                        m,
                        w,
                        pinned.tag(m),
                        new NeighbourSums.Sum(s, sum.count() + (hub ? 0 : change), bound));
                counters.summedByDifference++;
            }
            marks.mark(m, w, changedAt);
        }
        removedFromFanOuts(w, ops);
    }

    /** Adds {@code sign} times each of the rows {@code parts} ({@code s.length} floats each). */
    private static void addParts(float[] s, float[] parts, float sign) {
        for (int k = 0; k < parts.length; k += s.length) {
            for (int c = 0; c < s.length; c++) {
                s[c] += sign * parts[k + c];
            }
        }
    }

    /**
     * The removals among {@code ops} took their source's part, as {@code w}'s sums held it, out of
     * them: the source's fan-outs no longer go to {@code w}.
     */
    private void removedFromFanOuts(long w, long[] ops) {
        if (fanOuts.isEmpty()) {
            return;
        }
        for (long op : ops) {
            if (op < 0) {
                fanOuts.edgeChanged(-1 - op, w);
            }
        }
    }

    /** See {@link IncrementalPredictions#featuresChanged}. */
    void featuresChanged(long u, float[] before, float[] after, long changedAt) throws Exception {
        marks.mark(0, u, changedAt);
        float[] delta = new float[features];
        for (int c = 0; c < delta.length; c++) {
            delta[c] = (after == null ? 0 : after[c]) - (before == null ? 0 : before[c]);
        }
        fanOut(0, u, delta, changedAt);
    }

    /**
     * Adds {@code delta} (what layer {@code m} aggregates of {@code u} changed by) to the layer's
     * sums of {@code u}'s readers and marks them: at once for up to {@link #fanOutPiece} readers,
     * else in pieces ({@link FanOuts}), so a hub's change never holds the task thread for long.
     */
    void fanOut(int m, long u, float[] delta, long changedAt) throws Exception {
        long[] readers = graph.outNeighbours(u);
        if (readers.length > fanOutPiece) {
            long[] sorted = readers.clone();
            Arrays.sort(sorted);
            fanOuts.add(m, u, pinned.tag(m), delta, sorted, changedAt);
            return;
        }
        for (long w : readers) {
            sums.add(m, w, pinned.tag(m), EvalNeighbourhood.rank(w, u), delta, 0, delta.length);
            marks.mark(m, w, changedAt);
        }
    }

    /** One piece of the fan-outs on their way; returns the readers it reached. */
    int fanOutPiece() throws Exception {
        return fanOuts.take(
                fanOutPiece,
                (f, w) -> {
                    sums.add(
                            f.layer,
                            w,
                            f.tag,
                            EvalNeighbourhood.rank(w, f.source),
                            f.delta,
                            0,
                            f.delta.length);
                    marks.mark(f.layer, w, f.changedAt);
                });
    }

    /** Readers a change reaches at once (tests take few, to fan out in pieces). */
    void fanOutPiece(int readers) {
        this.fanOutPiece = readers;
    }

    /** See {@link IncrementalPredictions#deleted}. */
    void deleted(long v, long changedAt) throws Exception {
        hubs.forget(v);
        sums.clear(v);
        fanOuts.dropSource(v);
        marks.mark(0, v, changedAt);
    }
}

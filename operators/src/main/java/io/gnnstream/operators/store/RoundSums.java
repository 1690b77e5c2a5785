package io.gnnstream.operators.store;

import io.gnnstream.operators.messages.LayerOutputs;
import io.gnnstream.operators.model.ModelConfig;
import io.gnnstream.state.EvalNeighbourhood;
import java.util.Arrays;

/**
 * What a running round gives {@link IncrementalPredictions}' sums (docs/design.md, "Incremental
 * predictions"): its sums of rows and of features, kept for its pin, and its rows written again,
 * which make the sums of the rows they replaced stale. The engine decides which round's records
 * count; this class keeps them.
 */
final class RoundSums {

    /** A round's stored rows before a write ({@link #rowsBefore}). */
    record RowsBefore(boolean[] had, float[] values) {}

    private final ModelConfig config;
    private final boolean keepHidden;
    private final int evalFanout;
    private final LayerOutputStore rows;
    private final NeighbourSums sums;
    private final IncrementalPredictions.Graph graph;
    private final PendingMarks pending;
    private final FanOuts fanOuts;
    private final ChangeDifferences.Marker marks;
    private final IncrementalCounters counters;

    RoundSums(
            ModelConfig config,
            boolean keepHidden,
            int evalFanout,
            LayerOutputStore rows,
            NeighbourSums sums,
            IncrementalPredictions.Graph graph,
            PendingMarks pending,
            FanOuts fanOuts,
            ChangeDifferences.Marker marks,
            IncrementalCounters counters) {
        this.config = config;
        this.keepHidden = keepHidden;
        this.evalFanout = evalFanout;
        this.rows = rows;
        this.sums = sums;
        this.graph = graph;
        this.pending = pending;
        this.fanOuts = fanOuts;
        this.marks = marks;
        this.counters = counters;
    }

    /** See {@link IncrementalPredictions#roundSummed}; kept under the round's first tag. */
    void summed(int m, long step, long v, float[] sum, long[] neighbours, int from, int count)
            throws Exception {
        long bound = Long.MAX_VALUE;
        if (evalFanout >= 0 && count >= evalFanout) {
            // A selection (or exactly the fanout, where no larger rank exists): its largest rank.
            bound = NeighbourParts.largestRank(v, neighbours, from, from + count);
        }
        sums.put(m, v, PinnedRound.tagOf(step, 0), new NeighbourSums.Sum(sum, count, bound));
        counters.summedByRound++;
    }

    /** See {@link IncrementalPredictions#roundReadRows}. */
    void readRows(int m, long step, long[] vertices, int[] counts, long[] neighbours)
            throws Exception {
        int width = config.roundRowWidth(m, keepHidden);
        int root = config.roundRootWidth(m, keepHidden);
        int n = width - root;
        for (int i = 0, at = 0; i < vertices.length; at += counts[i], i++) {
            long[] hood = Arrays.copyOfRange(neighbours, at, at + counts[i]);
            float[] r = new float[hood.length * width];
            rows.rows(m, step, hood, 0, width, r);
            float[] sum = new float[n];
            for (int k = 0; k < hood.length; k++) {
                for (int c = 0; c < n; c++) {
                    sum[c] += r[k * width + root + c];
                }
            }
            summed(m, step, vertices[i], sum, neighbours, at, counts[i]);
        }
    }

    /** See {@link IncrementalPredictions#roundFeatureSums}; kept under the features' tag. */
    void featureSums(long[] vertices, int dim, float[] values) throws Exception {
        int features = dim - 1;
        for (int i = 0; i < vertices.length; i++) {
            long v = vertices[i];
            if (pending.marked(0, v) || fanOuts.pendingFor(0, v)) {
                continue; // a change came after the reads, or its difference is on its way
            }
            int count = (int) values[i * dim + features];
            long bound = Long.MAX_VALUE;
            if (evalFanout >= 0 && count >= evalFanout) {
                long[] all = graph.inNeighbours(v);
                if (EvalNeighbourhood.selects(all.length, evalFanout)) {
                    long[] hood = EvalNeighbourhood.members(v, all, evalFanout);
                    bound = NeighbourParts.largestRank(v, hood, 0, hood.length);
                }
            }
            float[] sum = Arrays.copyOfRange(values, i * dim, i * dim + features);
            sums.put(0, v, 0, new NeighbourSums.Sum(sum, count, bound));
            counters.featureSumsByRound++;
        }
    }

    /** The rows of {@code outputs} stored before they are written. */
    RowsBefore rowsBefore(LayerOutputs outputs) throws Exception {
        int n = outputs.vertices.length;
        float[] values = new float[n * outputs.dim];
        boolean[] had =
                rows.rows(outputs.layer, outputs.step, outputs.vertices, n, outputs.dim, values);
        return new RowsBefore(had, values);
    }

    /** See {@link IncrementalPredictions#roundRowsWritten}. */
    void rowsWritten(LayerOutputs outputs, RowsBefore before, long changedAt) throws Exception {
        int m = outputs.layer;
        if (m >= pending.layers()) {
            return;
        }
        int dim = outputs.dim;
        for (int i = 0; i < outputs.vertices.length; i++) {
            int from = i * dim;
            if (!before.had()[i]
                    || Arrays.equals(
                            before.values(), from, from + dim, outputs.values, from, from + dim)) {
                continue;
            }
            long v = outputs.vertices[i];
            marks.mark(m, v, changedAt);
            for (long w : graph.outNeighbours(v)) {
                sums.clear(m, w);
                marks.mark(m, w, changedAt);
            }
            counters.roundRowsRewritten++;
        }
    }
}

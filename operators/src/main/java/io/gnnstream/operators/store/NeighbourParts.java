package io.gnnstream.operators.store;

import io.gnnstream.operators.model.ModelConfig;
import io.gnnstream.state.EvalNeighbourhood;

/**
 * What each layer of {@link IncrementalPredictions} aggregates of a vertex's neighbours, read as
 * the engine's sums hold it: the neighbours' features for layer 0, else the neighbour parts of
 * their rows of the pinned round, without the differences of fan-outs that have not reached the
 * reader yet; and a vertex's sum made from them.
 */
final class NeighbourParts {

    private final ModelConfig config;
    private final boolean keepHidden;
    private final int evalFanout;
    private final LayerOutputStore rows;
    private final IncrementalPredictions.Graph graph;
    private final FanOuts fanOuts;
    private final PinnedRound pinned;
    private final IncrementalCounters counters;

    NeighbourParts(
            ModelConfig config,
            boolean keepHidden,
            int evalFanout,
            LayerOutputStore rows,
            IncrementalPredictions.Graph graph,
            FanOuts fanOuts,
            PinnedRound pinned,
            IncrementalCounters counters) {
        this.config = config;
        this.keepHidden = keepHidden;
        this.evalFanout = evalFanout;
        this.rows = rows;
        this.graph = graph;
        this.fanOuts = fanOuts;
        this.pinned = pinned;
        this.counters = counters;
    }

    /**
     * The sum of what layer {@code m} aggregates of {@code v}'s evaluation neighbourhood, from the
     * neighbours' features or stored rows.
     */
    NeighbourSums.Sum sumOf(int m, long v) throws Exception {
        long[] all = graph.inNeighbours(v);
        // A sum does not depend on its terms' order, but for float rounding.
        long[] hood = EvalNeighbourhood.members(v, all, evalFanout);
        long bound = Long.MAX_VALUE;
        if (EvalNeighbourhood.selects(all.length, evalFanout)) {
            counters.hubsSummedAgain++;
            bound = largestRank(v, hood, 0, hood.length);
        }
        float[] s = new float[width(m)];
        float[] parts = of(m, hood, v);
        for (int k = 0; k < hood.length; k++) {
            for (int c = 0; c < s.length; c++) {
                s[c] += parts[k * s.length + c];
            }
        }
        return new NeighbourSums.Sum(s, hood.length, bound);
    }

    /** The floats layer {@code m} aggregates of a neighbour. */
    int width(int m) {
        int width = config.roundRowWidth(m, keepHidden);
        return m == 0 ? width : width - config.roundRootWidth(m, keepHidden);
    }

    /**
     * What layer {@code m} aggregates of each of {@code sources}, one after the other, as {@code
     * reader}'s sum holds it.
     */
    float[] of(int m, long[] sources, long reader) throws Exception {
        float[] parts = current(m, sources);
        if (!fanOuts.isEmpty()) {
            int n = parts.length / Math.max(1, sources.length);
            for (int k = 0; k < sources.length; k++) {
                fanOuts.pending(m, pinned.tag(m), sources[k], reader, parts, k * n, -1f);
            }
        }
        return parts;
    }

    private float[] current(int m, long[] sources) throws Exception {
        int n = width(m);
        float[] parts = new float[sources.length * n];
        if (m == 0) {
            for (int k = 0; k < sources.length; k++) {
                float[] x = graph.features(sources[k]);
                if (x != null) {
                    System.arraycopy(x, 0, parts, k * n, n);
                }
            }
            return parts;
        }
        int width = config.roundRowWidth(m, keepHidden);
        int root = width - n;
        float[] r = new float[sources.length * width];
        rows.rows(m, pinned.step, sources, 0, width, r);
        for (int k = 0; k < sources.length; k++) {
            System.arraycopy(r, k * width + root, parts, k * n, n);
        }
        return parts;
    }

    /**
     * The largest {@link EvalNeighbourhood#rank} of {@code v}'s neighbours {@code ids[from, to)}.
     */
    static long largestRank(long v, long[] ids, int from, int to) {
        long bound = Long.MIN_VALUE;
        for (int k = from; k < to; k++) {
            bound = Math.max(bound, EvalNeighbourhood.rank(v, ids[k]));
        }
        return bound;
    }
}

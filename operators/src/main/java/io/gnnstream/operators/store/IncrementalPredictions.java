package io.gnnstream.operators.store;

import com.carrotsearch.hppc.LongIntHashMap;
import com.carrotsearch.hppc.LongLongHashMap;
import io.gnnstream.operators.messages.LayerOutputs;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.PredictionBatch;
import io.gnnstream.operators.model.Architecture;
import io.gnnstream.operators.model.ClassProbabilities;
import io.gnnstream.operators.model.GnnModel;
import io.gnnstream.operators.model.ModelConfig;
import io.gnnstream.state.EvalNeighbourhood;
import java.util.Arrays;

/**
 * A GraphStore subtask's incremental predictions (docs/design.md, "Incremental predictions"): after
 * a change, the vertices whose L-hop in-neighbourhood it changed get a new prediction under the
 * pinned model, the model of the latest complete inference round, without waiting for the next
 * round. A change marks the vertices whose layer-1 input it changed ({@link #mark}); {@link
 * #process} recomputes marked vertices layer by layer from the rows the round stored ({@link
 * LayerOutputStore}), writes the new hidden rows under the round's step, marks the next layer's
 * readers of each row that changed, and emits the last layer's predictions. A vertex marked again
 * before it is processed is computed once (coalescing). The computation is the round's ({@link
 * GnnModel#inferLayer}, {@link GnnModel#inferProjected} on one-hop blocks over the same
 * neighbourhoods), so the result equals a full round with the pinned model on the current graph.
 *
 * <p>Pinning: each rank, once it has scored its share of a round, sends a pin record ({@link
 * PinAssembly}); rank 0's carry the model's parameters. The first request or row of a newer round
 * pauses processing (its rows replace the pinned model's); once every rank's pin record of that
 * round has come, its model is pinned and processing resumes, with every change marked meanwhile.
 * Marking starts at the first round, which covers every change before it. Not thread-safe.
 */
public final class IncrementalPredictions {

    /** Destinations per computed block. */
    public static final int BLOCK_VERTICES = 512;

    /** Vertices marked per layer at most, by default (about 30 bytes of heap each). */
    public static final long DEFAULT_MAX_MARKS = 1_000_000;

    private static final org.slf4j.Logger LOG =
            org.slf4j.LoggerFactory.getLogger(IncrementalPredictions.class);

    private long maxMarks = DEFAULT_MAX_MARKS;

    private long suspensions;

    /** What the engine reads of the graph; all vertices it is asked about are owned here. */
    public interface Graph {
        /** All in-neighbours of {@code v}. */
        long[] inNeighbours(long v) throws Exception;

        /** The vertices of this site with in-neighbour {@code u}. */
        long[] outNeighbours(long u) throws Exception;

        /** The features of {@code v}, or null without attributes. */
        float[] features(long v) throws Exception;

        /** {@code v}'s label, {@link MiniBatch#NO_LABEL}, or {@link MiniBatch#ABSENT}. */
        int label(long v) throws Exception;
    }

    private final ModelConfig config;
    private final boolean keepHidden;
    private final LayerOutputStore rows;
    private final NeighbourSums sums;
    private final Graph graph;
    private final int evalFanout;

    /** Processing time (ms), for how long a run of the pinned round again was quiet. */
    private final java.util.function.LongSupplier clock;

    private GnnModel model;
    private long pinnedStep = -1;
    private float[] pinnedParams;
    private boolean paused;
    private boolean marking;

    /**
     * The newest round whose reads or rows this subtask took; processing waits while it is newer
     * than the pinned one, also when an older round's pin completes meanwhile.
     */
    private long newestRound = -1;

    private final RoundArrivals arrivals = new RoundArrivals();

    /** How long a run of the pinned round again may be quiet before processing resumes. */
    static final long RERUN_QUIET_MS = 5_000;

    /** When the pinned round last ran again (ms), while it holds processing; -1: it does not. */
    private long rerunSince = -1;

    /**
     * The newest round whose blocks may be written twice ({@link #roundRowsBefore}): after a
     * restore, the rounds up to the first to begin since (issued before the snapshot, it may have
     * blocks both in flight and issued again); -1: none.
     */
    private long rewritesUpTo = -1;

    /** Counts rewrites of the pinned round's rows by a round (see {@link #rowsRewritten}). */
    private long generation;

    private PinAssembly assembly = new PinAssembly();

    /** Per model layer: the vertices to recompute, each with its earliest change time (ms). */
    private final PendingMarks pending;

    /** Hubs' differences on their way to their readers' sums, a piece per {@link #process}. */
    private final FanOuts fanOuts = new FanOuts();

    /** Readers a change reaches at once; a vertex with more fans out in pieces of this many. */
    private int fanOutPiece = BLOCK_VERTICES;

    private long recomputed;
    private long predicted;
    private long summedAgain;
    private long summedByRound;
    private long featureSumsByRound;

    /** The job incarnation (its id and attempt) whose rounds' features' sums this engine keeps. */
    private long incarnation;

    private long roundRowsRewritten;
    private long hubsSummedAgain;
    private long rowSumsSummedAgain;
    private long cleared;
    private long summedByDifference;
    private long hubDifferences;

    /**
     * @param evalFanout the evaluation neighbourhood's fanout ({@link EvalNeighbourhood})
     */
    public IncrementalPredictions(
            ModelConfig config,
            boolean keepHidden,
            int evalFanout,
            LayerOutputStore rows,
            NeighbourSums sums,
            Graph graph,
            java.util.function.LongSupplier clock) {
        this.config = config;
        this.keepHidden = keepHidden;
        this.evalFanout = evalFanout;
        this.rows = rows;
        this.sums = sums;
        this.graph = graph;
        this.clock = clock;
        this.pending = new PendingMarks(config.numLayers());
    }

    /**
     * A round of {@code step} reads the graph or writes rows: changes from now on are marked, and a
     * newer round than the pinned one pauses processing until its pin. A change it may have read
     * before the change is then processed under its model; one processed now under the pinned model
     * could leave a vertex with the round's older prediction.
     */
    public void roundRuns(long step) {
        if (step > newestRound && rewritesUpTo == Long.MAX_VALUE) {
            rewritesUpTo = step;
        }
        if (step > newestRound) {
            // A new round covers every change before its reads, also those a suspension dropped.
            marking = true;
            arrivals.roundBegins(step);
            newestRound = step;
        }
        if (step > pinnedStep) {
            paused = true;
            rerunSince = -1;
        } else if (step == pinnedStep && rerunSince >= 0) {
            rerunSince = clock.getAsLong();
        }
    }

    /**
     * Resumes after a run of the pinned round again whose pins do not come (the scheduler issued
     * only some of its blocks again, which complete no rank's share) once that round was quiet for
     * {@link #RERUN_QUIET_MS}.
     */
    void resumeIfRerunQuiet() {
        if (paused && rerunSince >= 0 && clock.getAsLong() - rerunSince >= RERUN_QUIET_MS) {
            paused = false;
            rerunSince = -1;
        }
    }

    /**
     * The in-neighbourhood of {@code w} changed at {@code changedAt} (ms): its sums are computed
     * again, and it is recomputed at every layer, since every layer aggregates that neighbourhood:
     * a later layer's output of {@code w} changes even where its earlier rows do not (a row of
     * zeros after ReLU stays zeros), and only a changed row marks its readers.
     */
    public void adjacencyChanged(long w, long changedAt) throws Exception {
        if (!marking && pinnedStep < 0) {
            return; // no sums yet
        }
        sums.clear(w);
        cleared++;
        for (int j = 0; j < pending.layers(); j++) {
            mark(j, w, changedAt);
        }
    }

    /**
     * {@code ops} (sources, or {@code -1 - source} for removals) changed {@code w}'s in-adjacency
     * by {@code change} at {@code changedAt} (ms); {@code written} reads the in-adjacency as they
     * left it (its list only where a hub's selection may have changed). Where every operation took
     * effect, all additions or all removals, each valid sum takes the parts of the neighbours that
     * entered the neighbourhood and gives back those of the neighbours that left it (their current
     * features and stored rows, which their own changes keep in step): the operations' sources
     * where the neighbourhood is the whole list before and after, else, for a hub above the eval
     * fanout before and after, the members its selection took in and let go ({@link
     * HubSelectionChange}). Otherwise the sums are computed again, as {@link #adjacencyChanged}.
     * Either way {@code w} is recomputed at every layer.
     */
    public void edgesApplied(
            long w, long[] ops, int change, EdgeWriter.Written written, long changedAt)
            throws Exception {
        if (!marking && pinnedStep < 0) {
            return; // no sums yet
        }
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
        HubSelectionChange selection = null;
        long lowestRank = Long.MAX_VALUE;
        if (hub) {
            for (long u : sources) {
                lowestRank = Math.min(lowestRank, EvalNeighbourhood.rank(w, u));
            }
        }
        for (int m = 0; m < pending.layers(); m++) {
            NeighbourSums.Sum sum = sums.get(m, w, tag(m));
            if (sum == null && m > 0 && newestRound > pinnedStep) {
                // A sum the running round made before this change (roundSummed) is stale.
                sums.clear(m, w);
            }
            if (sum != null) {
                long[] entering = adds > 0 ? sources : new long[0];
                long[] leaving = adds > 0 ? new long[0] : sources;
                long bound = Long.MAX_VALUE;
                if (hub && lowestRank > sum.rankBound()) {
                    // No source is within the selection: it took none in and let none go.
                    hubDifferences++;
                    summedByDifference++;
                    mark(m, w, changedAt);
                    continue;
                } else if (hub) {
                    if (inNeighbours == null) {
                        inNeighbours = written.neighbours();
                    }
                    // The layers' sums share their bound: the list is passed over once.
                    HubSelectionChange c =
                            selection != null && selection.boundBefore() == sum.rankBound()
                                    ? selection
                                    : HubSelectionChange.of(
                                            w,
                                            inNeighbours,
                                            sources,
                                            adds > 0,
                                            sum.rankBound(),
                                            evalFanout);
                    selection = c;
                    if (!c.consistent()) {
                        adjacencyChanged(w, changedAt);
                        removedFromFanOuts(w, ops);
                        return;
                    }
                    entering = c.entering();
                    leaving = c.leaving();
                    bound = c.bound();
                    hubDifferences++;
                }
                float[] s = sum.values();
                addParts(s, neighbourParts(m, entering, w), 1f);
                addParts(s, neighbourParts(m, leaving, w), -1f);
                sums.put(
                        m,
                        w,
                        tag(m),
                        new NeighbourSums.Sum(s, sum.count() + (hub ? 0 : change), bound));
                summedByDifference++;
            }
            mark(m, w, changedAt);
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

    /**
     * {@code u}'s features changed from {@code before} to {@code after} (null: none) at {@code
     * changedAt}: the difference goes into the layer-0 sums of the vertices that aggregate it, and
     * they and {@code u} are recomputed.
     */
    public void featuresChanged(long u, float[] before, float[] after, long changedAt)
            throws Exception {
        if (!marking && pinnedStep < 0) {
            return; // no sums yet
        }
        mark(0, u, changedAt);
        float[] delta = new float[config.inFeatures()];
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
    private void fanOut(int m, long u, float[] delta, long changedAt) throws Exception {
        long[] readers = graph.outNeighbours(u);
        if (readers.length > fanOutPiece) {
            long[] sorted = readers.clone();
            Arrays.sort(sorted);
            fanOuts.add(m, u, tag(m), delta, sorted, changedAt);
            return;
        }
        for (long w : readers) {
            sums.add(m, w, tag(m), EvalNeighbourhood.rank(w, u), delta, 0, delta.length);
            mark(m, w, changedAt);
        }
    }

    /** Readers a change reaches at once (tests take few, to fan out in pieces). */
    void fanOutPiece(int readers) {
        this.fanOutPiece = readers;
    }

    /** Fan-outs on their way ({@link FanOuts}). */
    int fanOutsPending() {
        return fanOuts.size();
    }

    /**
     * A round wrote rows of layer {@code layer} (1-based) of the pinned round's step for {@code
     * vertices}: the pinned round runs again after a restore, whose trainers may be behind the
     * GraphStore's snapshot and have trained that step again on the graph as it then was, into
     * another model. Those rows replace the engine's without a difference reaching the sums, from
     * the graph as the round read it, maybe before a change the engine has processed since. So
     * processing waits for the round's pins as for a new round, every sum of a round's rows is
     * computed again (a new generation), and the vertices are recomputed and predicted after it.
     */
    public void rowsRewritten(int layer, long[] vertices, long changedAt) {
        generation++;
        fanOuts.dropRows();
        if (!paused || rerunSince >= 0) {
            paused = true;
            rerunSince = clock.getAsLong();
        }
        for (long v : vertices) {
            mark(layer - 1, v, changedAt);
            mark(config.numLayers() - 1, v, changedAt);
        }
    }

    /**
     * What a round stored before of the rows in {@code outputs}, where a block of it may be written
     * twice: the pinned round (it runs again after a restore, {@link #rowsRewritten}) and the
     * rounds up to {@link #rewritesUpTo}; null elsewhere. Pass it to {@link #roundRowsWritten} once
     * they are written.
     */
    public RowsBefore roundRowsBefore(LayerOutputs outputs) throws Exception {
        if (outputs.step < pinnedStep || outputs.step > Math.max(pinnedStep, rewritesUpTo)) {
            return null;
        }
        int n = outputs.vertices.length;
        float[] values = new float[n * outputs.dim];
        boolean[] had =
                rows.rows(outputs.layer, outputs.step, outputs.vertices, n, outputs.dim, values);
        return new RowsBefore(had, values);
    }

    /** A round's stored rows before a write ({@link #roundRowsBefore}). */
    public record RowsBefore(boolean[] had, float[] values) {}

    /**
     * The rows of {@code outputs} replaced {@code before}: where a block ran again after a restore
     * on a graph that changed meanwhile, the next layer's pass, or the predictions of the pinned
     * round, may have read the rows it replaced. A row that differs clears its readers' sums (they
     * summed the old row), and marks them and the vertex at that layer: the changes in between may
     * be in the new row already, so recomputing them would not find the row changed.
     */
    public void roundRowsWritten(LayerOutputs outputs, RowsBefore before, long changedAt)
            throws Exception {
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
            mark(m, v, changedAt);
            for (long w : graph.outNeighbours(v)) {
                sums.clear(m, w);
                mark(m, w, changedAt);
            }
            roundRowsRewritten++;
        }
    }

    /**
     * {@code v}'s first attributes came at {@code changedAt} (ms): the next round to begin may not
     * cover it ({@link RoundArrivals}).
     */
    public void arrived(long v, long changedAt) {
        if (marking) {
            arrivals.arrived(v, changedAt);
        }
    }

    /**
     * A round of {@code step}, newer than the pinned one, summed what layer {@code m} aggregates of
     * {@code v}'s whole evaluation neighbourhood ({@code neighbours[from, from + count)}) from its
     * rows ({@link LayerOutputStore#sumOwned}): kept as {@code v}'s sum under that round's pin, so
     * the recomputations after it need not sum the neighbourhood again. A change of {@code v}'s
     * neighbourhood before the pin clears it ({@link #edgesApplied}, {@link #adjacencyChanged});
     * the neighbours' rows change only through recomputations after the pin, which add their
     * differences to it.
     */
    public void roundSummed(
            int m, long step, long v, float[] sum, long[] neighbours, int from, int count)
            throws Exception {
        if (step <= pinnedStep || step != newestRound || m <= 0 || m >= pending.layers()) {
            return;
        }
        long bound = Long.MAX_VALUE;
        if (evalFanout >= 0 && count >= evalFanout) {
            // A selection (or exactly the fanout, where no larger rank exists): its largest rank.
            bound = largestRank(v, neighbours, from, from + count);
        }
        sums.put(m, v, tagOf(step, 0), new NeighbourSums.Sum(sum, count, bound));
        summedByRound++;
    }

    /**
     * A round of {@code step} summed the features of the evaluation neighbourhood of each of {@code
     * vertices} in its first pass ({@code dim - 1} floats and the count per vertex in {@code
     * values}, {@link LayerOutputs#FEATURE_SUMS}): kept as their features' sums, so a change that
     * reaches them later need not sum their neighbours' features, and so float drift never outlives
     * a round. A vertex marked at the first layer since the round began (every change of its
     * neighbourhood or of a neighbour's features after the round read them marks it, and the marks
     * wait for the pin; a deletion marks its vertex too) or that a hub's difference has yet to
     * reach ({@link FanOuts}: it marks its readers as it reaches them) keeps the sum it has; so
     * does every vertex once a suspension dropped marks. The ranks send no sum of a vertex the
     * round found deleted. Sums made by another {@code incarnation} of the job than this engine's
     * are not kept: read again from the topic after a restore, they may hold changes that the
     * restored graph has yet to replay, which would then be added twice.
     */
    public void roundFeatureSums(
            long step, long incarnation, long[] vertices, int dim, float[] values)
            throws Exception {
        if (step <= pinnedStep
                || step != newestRound
                || !marking
                || incarnation != this.incarnation) {
            return;
        }
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
                    bound = largestRank(v, hood, 0, hood.length);
                }
            }
            float[] sum = Arrays.copyOfRange(values, i * dim, i * dim + features);
            sums.put(0, v, tag(0), new NeighbourSums.Sum(sum, count, bound));
            featureSumsByRound++;
        }
    }

    /**
     * A pass of a round of {@code step} that reads layer {@code m}'s rows read the neighbourhoods
     * of {@code vertices} ({@code counts[i]} neighbours each, one after the other in {@code
     * neighbours}) where the owner does not sum them: each vertex's sum of its neighbours' rows of
     * the round is kept for that round's pin, as {@link #roundSummed} keeps the owner's.
     */
    public void roundReadRows(int m, long step, long[] vertices, int[] counts, long[] neighbours)
            throws Exception {
        if (step <= pinnedStep || step != newestRound || m <= 0 || m >= pending.layers()) {
            return;
        }
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
            roundSummed(m, step, vertices[i], sum, neighbours, at, counts[i]);
        }
    }

    /**
     * {@code v} was deleted: its sums go (its out-edges' readers were told as edge changes), and it
     * is marked at the first layer, so that a running round's sum of it is not kept ({@link
     * #roundFeatureSums}; recomputing a deleted vertex predicts nothing).
     */
    public void deleted(long v, long changedAt) throws Exception {
        sums.clear(v);
        fanOuts.dropSource(v);
        mark(0, v, changedAt);
    }

    private void mark(int layer, long v, long changedAt) {
        if (!marking) {
            return;
        }
        pending.mark(layer, v, changedAt);
        if (pending.size(layer) > maxMarks) {
            suspend(layer);
        }
    }

    /**
     * More than {@link #maxMarks} vertices of a layer are marked: the marks go, and so do the
     * changes' predictions until the next round begins, which predicts every vertex from the graph
     * as it then is. The sums stay kept by differences meanwhile (layer 0's outlive rounds).
     */
    private void suspend(int layer) {
        LOG.warn(
                "More than {} vertices of layer {} wait to be predicted again: incremental"
                        + " predictions are suspended until the next round begins"
                        + " (--predict-every; --incremental-max-marks)",
                maxMarks,
                layer + 1);
        pending.clear();
        marking = false;
        suspensions++;
    }

    /** Sets the most vertices marked per layer ({@link #DEFAULT_MAX_MARKS} by default). */
    public void maxMarks(long max) {
        this.maxMarks = max;
    }

    /** How often a burst marked more than the budget since this subtask started. */
    public long suspensions() {
        return suspensions;
    }

    /**
     * Takes a pin record; true when it completed a round's pin. Processing resumes unless a newer
     * round has begun meanwhile; the vertices that came just before the round's first read and have
     * none of its rows are marked at every layer.
     */
    public boolean pin(LayerOutputs record) throws Exception {
        if (record.step < pinnedStep || (record.step == pinnedStep && !paused)) {
            return false;
        }
        if (!assembly.add(record)) {
            return false;
        }
        GnnModel fresh = GnnModel.create(config);
        fresh.setParameterVector(assembly.parameters());
        if (model != null) {
            model.close();
        }
        model = fresh;
        pinnedParams = assembly.parameters();
        // The pinned round's own pins again (it ran again after a restore): a new generation.
        generation = assembly.step() > pinnedStep ? 0 : generation + 1;
        fanOuts.dropRows();
        rerunSince = -1;
        pinnedStep = assembly.step();
        assembly = new PinAssembly();
        paused = newestRound > pinnedStep;
        LongLongHashMap arrived = arrivals.pinned(pinnedStep);
        if (arrived != null) {
            markUncovered(arrived);
        }
        return true;
    }

    /**
     * Marks at every layer the vertices of {@code arrived} that have no row of the pinned round (it
     * did not cover them); with one layer, which stores no rows, all of them.
     */
    private void markUncovered(LongLongHashMap arrived) throws Exception {
        long[] vertices = arrived.keys().toArray();
        boolean[] covered = new boolean[vertices.length];
        if (pending.layers() > 1) {
            int dim = config.roundRowWidth(1, keepHidden);
            float[] ignored = new float[vertices.length * dim];
            covered = rows.rows(1, pinnedStep, vertices, 0, dim, ignored);
        }
        for (int i = 0; i < vertices.length; i++) {
            if (!covered[i]) {
                for (int j = 0; j < pending.layers(); j++) {
                    mark(j, vertices[i], arrived.get(vertices[i]));
                }
            }
        }
    }

    /** Whether {@link #process} has work it may do now. */
    public boolean hasWork() {
        return model != null && !paused && (!pending.isEmpty() || !fanOuts.isEmpty());
    }

    /**
     * Recomputes one block of marked vertices, in first-mark order from the layer whose oldest mark
     * is the oldest ({@link PendingMarks}); returns the vertices computed.
     */
    public int process(StoreOutputs out) throws Exception {
        if (!hasWork()) {
            return 0;
        }
        if (!fanOuts.isEmpty()) {
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
                        mark(f.layer, w, f.changedAt);
                    });
        }
        int layer = pending.nextLayer();
        int max = Math.min(pending.size(layer), BLOCK_VERTICES);
        long[] taken = new long[max];
        long[] times = new long[max];
        pending.take(layer, max, taken, times);
        compute(layer, taken, times, out);
        return max;
    }

    private void compute(int m, long[] candidates, long[] changedAt, StoreOutputs out)
            throws Exception {
        int n = 0;
        long[] dst = new long[candidates.length];
        long[] at = new long[candidates.length];
        int[] labels = new int[candidates.length];
        for (int i = 0; i < candidates.length; i++) {
            int label = graph.label(candidates[i]);
            if (label != MiniBatch.ABSENT) {
                dst[n] = candidates[i];
                at[n] = changedAt[i];
                labels[n++] = label;
            }
        }
        if (n == 0) {
            return;
        }
        dst = Arrays.copyOf(dst, n);
        // One change time per computed vertex (PredictionBatch#changedAt), deleted ones left out.
        at = Arrays.copyOf(at, n);
        int width = config.roundRowWidth(m, keepHidden);
        int root = m == 0 ? 0 : config.roundRootWidth(m, keepHidden);
        float[] own = new float[n * width];
        if (m == 0) {
            for (int i = 0; i < n; i++) {
                float[] x = graph.features(dst[i]);
                if (x != null) {
                    System.arraycopy(x, 0, own, i * width, width);
                }
            }
        } else {
            rows.rows(m, pinnedStep, dst, n, width, own);
        }
        NeighbourSums.Sum[] sum = new NeighbourSums.Sum[n];
        int pseudo = 0;
        for (int i = 0; i < n; i++) {
            sum[i] = sums.get(m, dst[i], tag(m));
            if (sum[i] == null) {
                sum[i] = sumOf(m, dst[i], width, root);
                sums.put(m, dst[i], tag(m), sum[i]);
                summedAgain++;
                rowSumsSummedAgain += m > 0 ? 1 : 0;
            }
            pseudo += sum[i].count() > 0 ? 1 : 0;
        }
        MiniBatch block = block(dst, sum, pseudo);
        float[] input = new float[(n + pseudo) * width];
        System.arraycopy(own, 0, input, 0, own.length);
        Architecture architecture = config.architecture();
        for (int i = 0, p = n; i < n; i++) {
            int count = sum[i].count();
            if (count == 0) {
                continue;
            }
            float[] v = sum[i].values();
            int base = p++ * width + root;
            for (int c = 0; c < v.length; c++) {
                // One source standing for the neighbourhood: the row that, as the only neighbour,
                // gives the architecture's aggregate (SAGE: the mean; GCN: the row that makes the
                // mean of the vertex and it the mean of the vertex and its neighbours).
                input[base + c] =
                        architecture.pseudoNeighbour(own[i * width + root + c], v[c], count);
            }
        }
        boolean projected = config.projectsRoundInput(m, keepHidden);
        float[] result =
                projected
                        ? model.inferProjected(m, block, input)
                        : model.inferLayer(m, block, input);
        recomputed += n;
        if (m == config.numLayers() - 1) {
            out.prediction(predictions(dst, at, result));
            predicted += n;
            return;
        }
        propagate(m + 1, dst, labels, at, result);
    }

    /**
     * Stores the new rows layer {@code next} reads of {@code dst} (their outputs {@code result} of
     * the layer before), adds each changed row's difference to the sums of the vertices that
     * aggregate it, and marks those and the vertex itself for layer {@code next}.
     */
    private void propagate(int next, long[] dst, int[] labels, long[] at, float[] result)
            throws Exception {
        int n = dst.length;
        boolean projected = config.projectsRoundInput(next, keepHidden);
        int dim = config.roundRowWidth(next, keepHidden);
        int root = config.roundRootWidth(next, keepHidden);
        float[] stored = projected ? model.project(next, result, n) : result;
        float[] before = new float[n * dim];
        boolean[] had = rows.rows(next, pinnedStep, dst, n, dim, before);
        LayerOutputs outputs = new LayerOutputs();
        outputs.step = pinnedStep;
        outputs.layer = next;
        outputs.vertices = dst;
        outputs.dim = dim;
        outputs.values = stored;
        LongIntHashMap labelOf = new LongIntHashMap(n);
        for (int i = 0; i < n; i++) {
            labelOf.put(dst[i], labels[i]);
        }
        rows.write(outputs, labelOf::get);
        for (int i = 0; i < n; i++) {
            int from = i * dim;
            // A row the round did not store is new, also where it is zeros (as a missing row
            // reads): the vertex's next layer was never computed under the pinned model.
            if (had[i] && Arrays.equals(before, from, from + dim, stored, from, from + dim)) {
                continue;
            }
            mark(next, dst[i], at[i]);
            float[] delta = new float[dim - root];
            for (int c = root; c < dim; c++) {
                delta[c - root] = stored[from + c] - before[from + c];
            }
            fanOut(next, dst[i], delta, at[i]);
        }
    }

    /**
     * The sum of what layer {@code m} aggregates of {@code v}'s evaluation neighbourhood, from the
     * neighbours' features or stored rows.
     */
    private NeighbourSums.Sum sumOf(int m, long v, int width, int root) throws Exception {
        long[] all = graph.inNeighbours(v);
        // A sum does not depend on its terms' order, but for float rounding.
        long[] hood = EvalNeighbourhood.members(v, all, evalFanout);
        long bound = Long.MAX_VALUE;
        if (EvalNeighbourhood.selects(all.length, evalFanout)) {
            hubsSummedAgain++;
            bound = largestRank(v, hood, 0, hood.length);
        }
        float[] s = new float[width - root];
        float[] parts = neighbourParts(m, hood, v);
        for (int k = 0; k < hood.length; k++) {
            for (int c = 0; c < s.length; c++) {
                s[c] += parts[k * s.length + c];
            }
        }
        return new NeighbourSums.Sum(s, hood.length, bound);
    }

    /**
     * The largest {@link EvalNeighbourhood#rank} of {@code v}'s neighbours {@code ids[from, to)}.
     */
    private static long largestRank(long v, long[] ids, int from, int to) {
        long bound = Long.MIN_VALUE;
        for (int k = from; k < to; k++) {
            bound = Math.max(bound, EvalNeighbourhood.rank(v, ids[k]));
        }
        return bound;
    }

    /**
     * What layer {@code m} aggregates of each of {@code sources}, one after the other, as {@code
     * reader}'s sum holds it: their features (zeros for none) for layer 0, else the neighbour parts
     * of their stored rows, without the differences of fan-outs that have not reached {@code
     * reader} yet.
     */
    private float[] neighbourParts(int m, long[] sources, long reader) throws Exception {
        float[] parts = currentParts(m, sources);
        if (!fanOuts.isEmpty()) {
            int n = parts.length / Math.max(1, sources.length);
            for (int k = 0; k < sources.length; k++) {
                fanOuts.pending(m, tag(m), sources[k], reader, parts, k * n, -1f);
            }
        }
        return parts;
    }

    private float[] currentParts(int m, long[] sources) throws Exception {
        int width = config.roundRowWidth(m, keepHidden);
        int root = m == 0 ? 0 : config.roundRootWidth(m, keepHidden);
        int n = width - root;
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
        float[] r = new float[sources.length * width];
        rows.rows(m, pinnedStep, sources, 0, width, r);
        for (int k = 0; k < sources.length; k++) {
            System.arraycopy(r, k * width + root, parts, k * n, n);
        }
        return parts;
    }

    /**
     * The tag a layer's sums are valid under: the pinned round's step and the generation of its
     * rows for rows of a round, none for the features (layer 0), which do not depend on the model.
     */
    private long tag(int m) {
        return m == 0 ? 0 : tagOf(pinnedStep, generation);
    }

    /**
     * The tag of the sums of a round's rows: its step and the generation of its rows (a new pin of
     * a newer round starts at 0).
     */
    private static long tagOf(long step, long generation) {
        return (step << 20) + (generation & 0xFFFFF);
    }

    private PredictionBatch predictions(long[] dst, long[] changedAt, float[] logits) {
        int classes = config.numClasses();
        PredictionBatch batch = new PredictionBatch();
        batch.step = pinnedStep;
        batch.vertices = dst;
        batch.classes = classes;
        batch.labels = new int[dst.length];
        batch.probs = new float[dst.length * classes];
        batch.changedAt = changedAt;
        for (int i = 0; i < dst.length; i++) {
            batch.labels[i] = ClassProbabilities.argmax(logits, i, classes);
            System.arraycopy(
                    ClassProbabilities.softmax(logits, i, classes),
                    0,
                    batch.probs,
                    i * classes,
                    classes);
        }
        return batch;
    }

    /**
     * A one-hop block of the destinations {@code dst}, each with one source standing for its
     * neighbourhood (none for an empty one), placed after the destinations.
     */
    private MiniBatch block(long[] dst, NeighbourSums.Sum[] sum, int pseudo) {
        int n = dst.length;
        MiniBatch b = new MiniBatch();
        b.numLayers = 1;
        b.indptr = new int[n + 1];
        b.indptrOffsets = new int[] {0};
        b.indicesOffsets = new int[] {0};
        b.indices = new int[pseudo];
        b.nodeIds = new long[n + pseudo];
        System.arraycopy(dst, 0, b.nodeIds, 0, n);
        for (int i = 0, e = 0; i < n; i++) {
            if (sum[i].count() > 0) {
                b.nodeIds[n + e] = -1 - i;
                b.indices[e] = n + e;
                e++;
            }
            b.indptr[i + 1] = e;
        }
        b.nodeCounts = new int[] {n, n + pseudo};
        b.featureDim = config.inFeatures();
        b.labels = new int[n];
        Arrays.fill(b.labels, MiniBatch.NO_LABEL);
        return b;
    }

    /** The step of the pinned model's round; -1 before the first. */
    public long pinnedStep() {
        return pinnedStep;
    }

    public boolean paused() {
        return paused;
    }

    /** Vertices marked and not yet recomputed, over all layers. */
    public long pendingVertices() {
        return pending.size();
    }

    /** Vertex layers recomputed since this subtask started. */
    public long recomputed() {
        return recomputed;
    }

    /** Sums that took an edge change as a difference instead of being summed again. */
    public long summedByDifference() {
        return summedByDifference;
    }

    /** Of {@link #summedByDifference}, the sums of hubs above the eval fanout. */
    public long hubDifferences() {
        return hubDifferences;
    }

    /** Sums of rows that rounds made for their pins. */
    public long summedByRound() {
        return summedByRound;
    }

    /** Keeps the rounds' features' sums of job incarnation {@code id} only (0 until set). */
    public void incarnation(long id) {
        this.incarnation = id;
    }

    /** Features' sums that rounds made ({@link #roundFeatureSums}). */
    public long featureSumsByRound() {
        return featureSumsByRound;
    }

    /** Rows of a running round that a block written again changed ({@link #roundRowsWritten}). */
    public long roundRowsRewritten() {
        return roundRowsRewritten;
    }

    /** Sums of vertices above the eval fanout among {@link #summedAgain}. */
    public long hubsSummedAgain() {
        return hubsSummedAgain;
    }

    /** Sums of rows (not features) among {@link #summedAgain}. */
    public long rowSumsSummedAgain() {
        return rowSumsSummedAgain;
    }

    /** Vertices whose sums an edge change cleared (not kept by differences). */
    public long cleared() {
        return cleared;
    }

    /** Sums computed from the neighbours (not kept by differences) since this subtask started. */
    public long summedAgain() {
        return summedAgain;
    }

    /** Predictions emitted since this subtask started. */
    public long predicted() {
        return predicted;
    }

    /** The state to snapshot ({@link IncrementalState}). */
    public IncrementalState state() {
        long[][] vertices = new long[pending.layers()][];
        long[][] times = new long[pending.layers()][];
        for (int j = 0; j < pending.layers(); j++) {
            vertices[j] = pending.vertices(j);
            times[j] = pending.times(j, vertices[j]);
        }
        long[] rounds = arrivals.rounds();
        long[][] arrived = new long[rounds.length][];
        long[][] arrivedAt = new long[rounds.length][];
        for (int r = 0; r < rounds.length; r++) {
            arrived[r] = arrivals.vertices(rounds[r]);
            arrivedAt[r] = arrivals.times(rounds[r], arrived[r]);
        }
        return new IncrementalState(
                pinnedStep,
                generation,
                pinnedParams,
                paused,
                marking,
                newestRound,
                vertices,
                times,
                rounds,
                arrived,
                arrivedAt,
                assembly,
                fanOuts.isEmpty() ? null : fanOuts.encode());
    }

    /**
     * Restores from the states of every subtask of the snapshot: the newest pinned model, the
     * newest round taken (processing waits if it is newer), and the marks and arrivals of vertices
     * {@code owned} accepts.
     */
    public void restore(Iterable<IncrementalState> states, java.util.function.LongPredicate owned) {
        for (IncrementalState s : states) {
            marking |= s.marking();
            newestRound = Math.max(newestRound, s.newestRound());
        }
        for (IncrementalState s : states) {
            if (s.pinnedStep() > pinnedStep && s.pinnedParams() != null) {
                pinnedStep = s.pinnedStep();
                generation = s.generation();
                pinnedParams = s.pinnedParams();
                paused = s.paused();
            }
            if (s.assembly().step() > assembly.step()) {
                assembly = s.assembly();
            }
            for (int j = 0; j < Math.min(pending.layers(), s.pending().length); j++) {
                for (int i = 0; i < s.pending()[j].length; i++) {
                    if (owned.test(s.pending()[j][i])) {
                        mark(j, s.pending()[j][i], s.changedAt()[j][i]);
                    }
                }
            }
            for (int r = 0; r < s.arrivalRounds().length; r++) {
                arrivals.restore(s.arrivalRounds()[r], s.arrived()[r], s.arrivedAt()[r], owned);
            }
            if (s.fanOuts() != null) {
                fanOuts.restore(s.fanOuts());
            }
        }
        arrivals.forgetUpTo(pinnedStep);
        paused |= newestRound > pinnedStep;
        rewritesUpTo = Long.MAX_VALUE;
        if (pinnedParams != null) {
            model = GnnModel.create(config);
            model.setParameterVector(pinnedParams);
        }
    }
}

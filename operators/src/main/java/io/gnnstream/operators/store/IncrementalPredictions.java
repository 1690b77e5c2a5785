package io.gnnstream.operators.store;

import com.carrotsearch.hppc.LongLongHashMap;
import io.gnnstream.operators.messages.LayerOutputs;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.model.GnnModel;
import io.gnnstream.operators.model.ModelConfig;
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

    /**
     * Vertices marked per layer at most, by default (about 40 bytes of heap each: the vertex, its
     * change time, its place and first-mark time).
     */
    public static final long DEFAULT_MAX_MARKS = 1_000_000;

    private static final org.slf4j.Logger LOG =
            org.slf4j.LoggerFactory.getLogger(IncrementalPredictions.class);

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
    private final IncrementalCounters counters = new IncrementalCounters();
    private final PinnedRound pinned = new PinnedRound();

    /** Per model layer: the vertices to recompute, each with its earliest change time (ms). */
    private final PendingMarks pending;

    /** Hubs' differences on their way to their readers' sums, a piece per {@link #process}. */
    private final FanOuts fanOuts = new FanOuts();

    private final ChangeDifferences changes;
    private final Recomputation recomputation;
    private final RoundSums roundSums;

    /** Processing time (ms), for how long a run of the pinned round again was quiet. */
    private final java.util.function.LongSupplier clock;

    private long maxMarks = DEFAULT_MAX_MARKS;

    /** How long (ms) a vertex marked at a layer waits for further changes before it is computed. */
    private long coalesceMs;

    private boolean paused;
    private boolean marking;

    /**
     * The newest round whose reads or rows this subtask took; processing waits while it is newer
     * than the pinned one, also when an older round's pin completes meanwhile.
     */
    private long newestRound = -1;

    private final RoundArrivals arrivals = new RoundArrivals();

    /** How long a marked vertex may wait before the recomputation counts as behind. */
    public static final long BEHIND_MS = 1_000;

    /**
     * How long a marked vertex may wait before the recomputation takes the time the input leaves
     * idle.
     */
    public static final long WAITING_MS = 250;

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

    private PinAssembly assembly = new PinAssembly();

    /**
     * Whether arrivals are kept though no round has begun: restored before the first pin ({@link
     * #arrived}).
     */
    private boolean arrivalsBeforeFirstRound;

    /** The job incarnation (its id and attempt) whose rounds' features' sums this engine keeps. */
    private long incarnation;

    /**
     * @param evalFanout the evaluation neighbourhood's fanout ({@link
     *     io.gnnstream.state.EvalNeighbourhood})
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
        this.rows = rows;
        this.sums = sums;
        this.clock = clock;
        this.pending = new PendingMarks(config.numLayers());
        NeighbourParts parts =
                new NeighbourParts(
                        config, keepHidden, evalFanout, rows, graph, fanOuts, pinned, counters);
        this.changes =
                new ChangeDifferences(
                        config.numLayers(),
                        config.inFeatures(),
                        evalFanout,
                        sums,
                        graph,
                        fanOuts,
                        pinned,
                        parts,
                        this::mark,
                        counters);
        this.recomputation =
                new Recomputation(
                        config,
                        keepHidden,
                        rows,
                        sums,
                        graph,
                        pinned,
                        parts,
                        changes,
                        this::mark,
                        counters);
        this.roundSums =
                new RoundSums(
                        config,
                        keepHidden,
                        evalFanout,
                        rows,
                        sums,
                        graph,
                        pending,
                        fanOuts,
                        this::mark,
                        counters);
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
            arrivalsBeforeFirstRound = false;
            arrivals.roundBegins(step);
            newestRound = step;
        }
        if (step > pinned.step) {
            paused = true;
            rerunSince = -1;
        } else if (step == pinned.step && rerunSince >= 0) {
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
        if (active()) {
            changes.adjacencyChanged(w, changedAt);
        } else {
            changes.adjacencyChangedUnseen(w);
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
        if (active()) {
            changes.edgesApplied(w, ops, change, written, changedAt, newestRound > pinned.step);
        } else {
            changes.adjacencyChangedUnseen(w);
        }
    }

    /**
     * {@code u}'s features changed from {@code before} to {@code after} (null: none) at {@code
     * changedAt}: the difference goes into the layer-0 sums of the vertices that aggregate it, and
     * they and {@code u} are recomputed.
     */
    public void featuresChanged(long u, float[] before, float[] after, long changedAt)
            throws Exception {
        if (active()) {
            changes.featuresChanged(u, before, after, changedAt);
        }
    }

    /** Whether changes reach the sums: once marking began or a round is pinned. */
    private boolean active() {
        return marking || pinned.step >= 0;
    }

    /** Readers a change reaches at once (tests take few, to fan out in pieces). */
    void fanOutPiece(int readers) {
        changes.fanOutPiece(readers);
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
        pinned.generation++;
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
    RoundSums.RowsBefore roundRowsBefore(LayerOutputs outputs) throws Exception {
        if (outputs.step < pinned.step || outputs.step > Math.max(pinned.step, rewritesUpTo)) {
            return null;
        }
        return roundSums.rowsBefore(outputs);
    }

    /**
     * The rows of {@code outputs} replaced {@code before}: where a block ran again after a restore
     * on a graph that changed meanwhile, the next layer's pass, or the predictions of the pinned
     * round, may have read the rows it replaced. A row that differs clears its readers' sums (they
     * summed the old row), and marks them and the vertex at that layer: the changes in between may
     * be in the new row already, so recomputing them would not find the row changed.
     */
    void roundRowsWritten(LayerOutputs outputs, RoundSums.RowsBefore before, long changedAt)
            throws Exception {
        roundSums.rowsWritten(outputs, before, changedAt);
    }

    /**
     * {@code v}'s first attributes came at {@code changedAt} (ms): the next round to begin may not
     * cover it ({@link RoundArrivals}), and it is marked at every layer. A round may cover it and
     * still have its prediction dropped: a vertex created again after a deletion that named that
     * round ({@code PredictionTombstones}), so its prediction is made here too. After a restore
     * before the first pin, arrivals are kept before any round begins as well: the restored
     * scheduler may have frozen the vertices of a round this subtask has yet to see (at most {@link
     * #maxMarks} of them, then a warning).
     */
    public void arrived(long v, long changedAt) {
        if (marking) {
            arrivals.arrived(v, changedAt);
            for (int j = 0; j < pending.layers(); j++) {
                mark(j, v, changedAt);
            }
        } else if (arrivalsBeforeFirstRound) {
            if (arrivals.size() < maxMarks) {
                arrivals.arrived(v, changedAt);
            } else {
                arrivalsBeforeFirstRound = false;
                LOG.warn(
                        "More than {} vertices came after a restore before the first round began:"
                                + " those its plan left out wait for the next round"
                                + " (--incremental-max-marks)",
                        maxMarks);
            }
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
        if (takesRowsOf(m, step)) {
            roundSums.summed(m, step, v, sum, neighbours, from, count);
        }
    }

    /** Whether sums of layer {@code m}'s rows by the round of {@code step} are kept. */
    private boolean takesRowsOf(int m, long step) {
        return step > pinned.step && step == newestRound && m > 0 && m < pending.layers();
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
        if (step > pinned.step
                && step == newestRound
                && marking
                && incarnation == this.incarnation) {
            roundSums.featureSums(vertices, dim, values);
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
        if (takesRowsOf(m, step)) {
            roundSums.readRows(m, step, vertices, counts, neighbours);
        }
    }

    /**
     * {@code v} was deleted: its sums go (its out-edges' readers were told as edge changes), and it
     * is marked at the first layer, so that a running round's sum of it is not kept ({@link
     * #roundFeatureSums}; recomputing a deleted vertex predicts nothing).
     */
    public void deleted(long v, long changedAt) throws Exception {
        changes.deleted(v, changedAt);
    }

    private void mark(int layer, long v, long changedAt) {
        if (!marking) {
            return;
        }
        pending.mark(layer, v, changedAt, clock.getAsLong());
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
        counters.suspensions++;
    }

    /** Sets the most vertices marked per layer ({@link #DEFAULT_MAX_MARKS} by default). */
    public void maxMarks(long max) {
        this.maxMarks = max;
    }

    /**
     * Takes a pin record; true when it completed a round's pin. Processing resumes unless a newer
     * round has begun meanwhile; the vertices that came just before the round's first read and have
     * none of its rows are marked at every layer.
     */
    public boolean pin(LayerOutputs record) throws Exception {
        if (record.step < pinned.step || (record.step == pinned.step && !paused)) {
            return false;
        }
        if (!assembly.add(record)) {
            return false;
        }
        GnnModel fresh = GnnModel.create(config);
        fresh.setParameterVector(assembly.parameters());
        if (pinned.model != null) {
            pinned.model.close();
        }
        pinned.model = fresh;
        pinned.params = assembly.parameters();
        // The pinned round's own pins again (it ran again after a restore): a new generation.
        pinned.generation = assembly.step() > pinned.step ? 0 : pinned.generation + 1;
        fanOuts.dropRows();
        rerunSince = -1;
        pinned.step = assembly.step();
        assembly = new PinAssembly();
        paused = newestRound > pinned.step;
        LongLongHashMap arrived = arrivals.pinned(pinned.step);
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
            covered = rows.rows(1, pinned.step, vertices, 0, dim, ignored);
        }
        for (int i = 0; i < vertices.length; i++) {
            if (!covered[i]) {
                for (int j = 0; j < pending.layers(); j++) {
                    mark(j, vertices[i], arrived.get(vertices[i]));
                }
            }
        }
    }

    /** Whether {@link #process} has work to do, now or once its marks have waited their window. */
    public boolean hasWork() {
        return pinned.model != null && !paused && (!pending.isEmpty() || !fanOuts.isEmpty());
    }

    /** Whether {@link #process} has work it may do now. */
    public boolean hasReadyWork() {
        return hasWork() && (!fanOuts.isEmpty() || pending.readyLayer(readyBy()) >= 0);
    }

    /**
     * Leaves each marked vertex to wait {@code ms} after its first mark at a layer before it is
     * computed, so that the changes reaching it meanwhile are computed with it (0: computed as soon
     * as processing comes to it).
     */
    public void coalesce(long ms) {
        if (ms < 0) {
            throw new IllegalArgumentException("coalescing window must be >= 0 ms, got " + ms);
        }
        this.coalesceMs = ms;
    }

    /** The latest local first-mark time of a vertex that may be computed now. */
    private long readyBy() {
        return coalesceMs > 0 ? clock.getAsLong() - coalesceMs : Long.MAX_VALUE;
    }

    /**
     * Recomputes one block of marked vertices, in first-mark order from the layer whose oldest mark
     * is the oldest ({@link PendingMarks}), or takes a piece of the fan-outs on their way; returns
     * the vertices computed or reached.
     */
    public int process(StoreOutputs out) throws Exception {
        if (!hasWork()) {
            return 0;
        }
        if (!fanOuts.isEmpty()) {
            return changes.fanOutPiece();
        }
        long readyBy = readyBy();
        int layer = pending.readyLayer(readyBy);
        if (layer < 0) {
            return 0;
        }
        int max = Math.min(pending.size(layer), BLOCK_VERTICES);
        long[] taken = new long[max];
        long[] times = new long[max];
        int n = pending.take(layer, max, readyBy, taken, times);
        if (n < max) {
            taken = Arrays.copyOf(taken, n);
            times = Arrays.copyOf(times, n);
        }
        recomputation.compute(layer, taken, times, out);
        return n;
    }

    /** Gives the keyed state what it does not have yet (before a snapshot of it). */
    public void snapshot() throws Exception {
        sums.flush();
    }

    /** The step of the pinned model's round; -1 before the first. */
    public long pinnedStep() {
        return pinned.step;
    }

    public boolean paused() {
        return paused;
    }

    /**
     * How long (ms) the oldest waiting vertex has waited past its coalescing window; 0 when none
     * waits.
     */
    private long waitedMs() {
        long oldest = pending.oldestMarkedAt();
        return oldest == Long.MAX_VALUE ? 0 : clock.getAsLong() - oldest - coalesceMs;
    }

    /**
     * How long (ms, at least 1) the input gets before the next slice of recomputation after one
     * that took {@code tookMs}, the input having been busy {@code inputNanos} of the {@code
     * gapNanos} since the slice before:
     *
     * <ul>
     *   <li>as long again, so that sampling requests and changes keep half of the thread;
     *   <li>a quarter of that while the recomputation is behind (a vertex has waited over {@link
     *       #BEHIND_MS});
     *   <li>at most twice what the input took in the last gap, where it took under three quarters
     *       of it (it ran dry, and the thread would idle) and a vertex has waited over {@link
     *       #WAITING_MS}.
     * </ul>
     */
    public long sliceGapMs(long tookMs, long gapNanos, long inputNanos) {
        long waited = waitedMs();
        long gap = waited > BEHIND_MS ? tookMs / 4 : tookMs;
        if (waited > WAITING_MS && inputNanos < gapNanos / 4 * 3) {
            gap = Math.min(gap, (2 * inputNanos + 999_999) / 1_000_000);
        }
        return Math.max(1, gap);
    }

    /** Vertices marked and not yet recomputed, over all layers. */
    public long pendingVertices() {
        return pending.size();
    }

    /** What the engine did since this subtask started. */
    public IncrementalCounters counters() {
        return counters;
    }

    /** Keeps the rounds' features' sums of job incarnation {@code id} only (0 until set). */
    public void incarnation(long id) {
        this.incarnation = id;
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
                pinned.step,
                pinned.generation,
                pinned.params,
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
            if (s.pinnedStep() > pinned.step && s.pinnedParams() != null) {
                pinned.step = s.pinnedStep();
                pinned.generation = s.generation();
                pinned.params = s.pinnedParams();
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
        arrivals.forgetUpTo(pinned.step);
        arrivalsBeforeFirstRound = pinned.params == null;
        paused |= newestRound > pinned.step;
        rewritesUpTo = Long.MAX_VALUE;
        if (pinned.params != null) {
            pinned.model = GnnModel.create(config);
            pinned.model.setParameterVector(pinned.params);
        }
    }
}

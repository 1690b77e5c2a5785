package io.gnnstream.operators;

import com.carrotsearch.hppc.LongArrayList;
import com.carrotsearch.hppc.LongLongHashMap;
import com.carrotsearch.hppc.cursors.LongLongCursor;
import io.gnnstream.operators.internal.RankLine;
import io.gnnstream.operators.messages.Prediction;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.metrics.DescriptiveStatisticsHistogram;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.OutputTag;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last stage before the predictions sink, keyed by vertex: passes the trainers' and the
 * GraphStore's predictions on and turns each vertex deletion ({@link Prediction#deletion}) into a
 * tombstone, so the compacted predictions topic forgets a deleted vertex (docs/design.md, "Vertex
 * deletion"). Its decisions are per vertex, on keyed state (RocksDB in the job), so nothing it
 * remembers sits on the heap.
 *
 * <p>A deletion comes from the GraphStore subtask owning the vertex, on the channel of its
 * incremental predictions (so the two arrive in the order they happened), with the step of the
 * latest inference round that subtask had answered. A round that asked for the vertex after its
 * deletion gets no row for it and predicts nothing for it; a round that asked before may still be
 * computing, and its prediction, of that step or an earlier one, would land after the tombstone: so
 * a later round prediction of the vertex up to that step is dropped. An incremental prediction
 * after the deletion is of the vertex created again and passes.
 *
 * <p>Incremental predictions (docs/design.md, "Incremental predictions") carry the pinned round's
 * step; the GraphStore pins a round only once every rank has emitted its share of the round's
 * predictions, so a round prediction of a vertex that arrives after an incremental one of the same
 * or a later step is older and is dropped, and an incremental prediction of an older step than the
 * latest round's is dropped as well: that round reads the graph after it.
 *
 * <p>Per vertex the keyed state holds the latest pinned step of an incremental prediction passed
 * (written blind: a read per incremental prediction would cost more) and, for a deleted vertex, the
 * round step up to which its round predictions are stale. Rounds run one after another: once
 * predictions of two later rounds have come, no prediction of an earlier one is on its way. An
 * entry older than that is cleared when its vertex comes again (every round predicts every vertex
 * with attributes), and the deletions at each new round by a scan of theirs. The steps of the two
 * latest rounds are union operator state.
 *
 * <p>The freshness of each incremental prediction (now minus its change's time) goes into the
 * histogram {@code freshnessMs}, with gauges of its median and 99th percentile, and every second
 * with incremental predictions a {@link RankLine#freshness} line of that second's goes to the side
 * output {@link #FRESHNESS} (the metrics lines carry it).
 */
public class PredictionTombstones extends AbstractStreamOperator<Prediction>
        implements OneInputStreamOperator<Prediction, Prediction> {

    private static final long serialVersionUID = 1L;

    private static final Logger LOG = LoggerFactory.getLogger(PredictionTombstones.class);

    /** No step: the vertex has no incremental prediction passed, or no deletion to remember. */
    static final long NONE = Long.MIN_VALUE;

    /** Per vertex: the latest pinned step of an incremental prediction passed. */
    static final ValueStateDescriptor<Long> INCREMENTAL_AT =
            new ValueStateDescriptor<>("prediction-incremental-at", Types.LONG);

    /** Per deleted vertex: the round step up to which its round predictions are stale. */
    static final ValueStateDescriptor<Long> DELETED_UP_TO =
            new ValueStateDescriptor<>("prediction-deleted-up-to", Types.LONG);

    /** The two latest round steps, as every subtask saw them (union: the largest win). */
    static final ListStateDescriptor<Long> ROUNDS =
            new ListStateDescriptor<>("prediction-rounds", Types.LONG);

    /** Operator state of the layout before the keyed one, read on restore. */
    static final ListStateDescriptor<Tuple2<Long, Long>> LEGACY_DELETIONS =
            new ListStateDescriptor<>(
                    "prediction-tombstone-deletions", Types.TUPLE(Types.LONG, Types.LONG));

    static final ListStateDescriptor<Long> LEGACY_ROUNDS =
            new ListStateDescriptor<>("prediction-tombstone-rounds", Types.LONG);

    static final ListStateDescriptor<Tuple2<Long, Long>> LEGACY_INCREMENTAL =
            new ListStateDescriptor<>(
                    "prediction-incremental", Types.TUPLE(Types.LONG, Types.LONG));

    /** Freshness lines for the metrics merger. */
    public static final OutputTag<String> FRESHNESS = new OutputTag<>("freshness", Types.STRING);

    static final long FRESHNESS_LINE_MS = 1_000;

    /** At most this many values of a second are kept for its line's percentiles. */
    private static final int MAX_WINDOW = 100_000;

    private transient ValueState<Long> incrementalAt;

    /** Vertices whose {@link #INCREMENTAL_AT} holds this step: skipping the write again is safe. */
    private transient LongLongHashMap incrementalWritten;

    /** At most this many vertices in {@link #incrementalWritten} (then it starts again). */
    private static final int MAX_WRITTEN = 1 << 20;

    private transient ValueState<Long> deletedUpTo;
    private transient ListState<Long> roundState;

    private transient DescriptiveStatisticsHistogram freshness;

    /** The freshness (ms) of the incremental predictions since the last freshness line. */
    private transient LongArrayList window;

    private transient long windowCount;

    /** The step of the latest round seen in predictions, and of the one before it. */
    private transient long latestRound;

    private transient long previousRound;

    /**
     * At least the deletions remembered (exact at the last sweep, counted up since): none, and a
     * round prediction needs no look at them.
     */
    private transient long deletionEntries;

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        incrementalAt = context.getKeyedStateStore().getState(INCREMENTAL_AT);
        deletedUpTo = context.getKeyedStateStore().getState(DELETED_UP_TO);
        roundState = context.getOperatorStateStore().getUnionListState(ROUNDS);
        latestRound = -1;
        previousRound = -1;
        List<Long> rounds = new ArrayList<>();
        roundState.get().forEach(rounds::add);
        Set<String> restored = context.getOperatorStateStore().getRegisteredStateNames();
        if (restored.contains(LEGACY_ROUNDS.getName())) {
            ListState<Long> legacy = context.getOperatorStateStore().getListState(LEGACY_ROUNDS);
            legacy.get().forEach(rounds::add);
            legacy.clear();
        }
        // Each subtask stored [latest, previous]: the largest of each position wins.
        for (int i = 0; i + 1 < rounds.size(); i += 2) {
            latestRound = Math.max(latestRound, rounds.get(i));
            previousRound = Math.max(previousRound, rounds.get(i + 1));
        }
        if (restored.contains(LEGACY_DELETIONS.getName())
                || restored.contains(LEGACY_INCREMENTAL.getName())) {
            restoreLegacy(context);
        }
        if (context.isRestored()) {
            deletionEntries = 1; // the restored state may hold deletions to sweep
        }
    }

    /**
     * Moves the entries of the heap layout's operator state into the keyed state: those of vertices
     * in this subtask's key groups (all of them at the parallelism that wrote them).
     */
    private void restoreLegacy(StateInitializationContext context) throws Exception {
        LongLongHashMap deleted = read(context, LEGACY_DELETIONS);
        LongLongHashMap incremental = read(context, LEGACY_INCREMENTAL);
        long elsewhere = 0;
        var task = getRuntimeContext().getTaskInfo();
        for (LongLongHashMap map : List.of(deleted, incremental)) {
            for (LongLongCursor c : map) {
                if (KeyGroupRangeAssignment.assignKeyToParallelOperator(
                                c.key,
                                task.getMaxNumberOfParallelSubtasks(),
                                task.getNumberOfParallelSubtasks())
                        != task.getIndexOfThisSubtask()) {
                    elsewhere++;
                    continue;
                }
                getKeyedStateBackend().setCurrentKey(c.key);
                (map == deleted ? deletedUpTo : incrementalAt).update(c.value);
            }
        }
        if (elsewhere > 0) {
            LOG.warn(
                    "{} entries of the predictions stage's earlier layout name vertices of other"
                            + " subtasks and were not restored (restored at another parallelism)",
                    elsewhere);
        }
    }

    private static LongLongHashMap read(
            StateInitializationContext context, ListStateDescriptor<Tuple2<Long, Long>> d)
            throws Exception {
        LongLongHashMap map = new LongLongHashMap();
        if (!context.getOperatorStateStore().getRegisteredStateNames().contains(d.getName())) {
            return map;
        }
        ListState<Tuple2<Long, Long>> state = context.getOperatorStateStore().getListState(d);
        for (Tuple2<Long, Long> e : state.get()) {
            map.put(e.f0, Math.max(e.f1, map.getOrDefault(e.f0, NONE)));
        }
        state.clear();
        return map;
    }

    @Override
    public void open() throws Exception {
        super.open();
        freshness = new DescriptiveStatisticsHistogram(10_000);
        getMetricGroup().histogram("freshnessMs", freshness);
        getMetricGroup().gauge("freshnessP50Ms", () -> freshness.getStatistics().getQuantile(0.5));
        getMetricGroup().gauge("freshnessP99Ms", () -> freshness.getStatistics().getQuantile(0.99));
        window = new LongArrayList();
        incrementalWritten = new LongLongHashMap();
        scheduleFreshnessLine();
    }

    @Override
    public void processElement(StreamRecord<Prediction> element) throws Exception {
        Prediction p = element.getValue();
        if (p.isTombstone()) {
            deleted(p.vertex, p.step);
            output.collect(element); // a null value in the topic
            return;
        }
        if (p.step > latestRound) {
            previousRound = latestRound;
            latestRound = p.step;
            if (deletionEntries > 0) {
                sweepDeletions();
            }
        }
        if (p.changedAt > 0) {
            if (p.step < latestRound) {
                return; // a newer round's predictions are coming or came, from a later graph
            }
            // A blind write: the GraphStore's pins only grow, so the step is the largest yet.
            // Most vertices are predicted again and again under one pin: the state holds that
            // step already after the first (a RocksDB write each took most of this stage's CPU).
            if (incrementalWritten.getOrDefault(p.vertex, NONE) != p.step) {
                incrementalAt.update(p.step);
                if (incrementalWritten.size() >= MAX_WRITTEN) {
                    incrementalWritten.clear();
                }
                incrementalWritten.put(p.vertex, p.step);
            }
            long ms =
                    Math.max(
                            0, getProcessingTimeService().getCurrentProcessingTime() - p.changedAt);
            freshness.update(ms);
            windowCount++;
            if (window.size() < MAX_WINDOW) {
                window.add(ms);
            }
        } else if ((deletionEntries > 0 && stale(deletedUpTo, p.step))
                || stale(incrementalAt, p.step)) {
            // A round that asked for the vertex before its deletion, or one older than an
            // incremental prediction that came first.
            return;
        }
        output.collect(element);
    }

    /**
     * The vertex was deleted when its owner had answered the round of {@code step}: a round
     * prediction of it up to that step is stale. Its incremental step goes with it (the pinned
     * round's, which its owner had answered).
     */
    private void deleted(long vertex, long step) throws Exception {
        Long before = deletedUpTo.value();
        long upTo = Math.max(step, before == null ? NONE : before);
        incrementalAt.clear();
        incrementalWritten.remove(vertex);
        if (upTo < 0 || upTo < previousRound) {
            deletedUpTo.clear(); // no round that asked before is still on its way
        } else {
            deletedUpTo.update(upTo);
            deletionEntries++;
        }
    }

    /**
     * Whether a round prediction of {@code step} is at most the step {@code entry} holds for the
     * current vertex; an entry older than the previous round is cleared instead (no prediction of a
     * round before it is on its way).
     */
    private boolean stale(ValueState<Long> entry, long step) throws Exception {
        Long upTo = entry.value();
        if (upTo == null) {
            return false;
        }
        if (upTo < previousRound) {
            entry.clear();
            if (entry == incrementalAt) {
                incrementalWritten.remove((Long) getCurrentKey());
            }
            return false;
        }
        return step <= upTo;
    }

    /**
     * Clears the deletions older than the previous round: a deleted vertex is not predicted by
     * rounds, so nothing else would.
     */
    private void sweepDeletions() throws Exception {
        Object current = getCurrentKey();
        LongArrayList stale = new LongArrayList();
        long[] kept = {0};
        try (Stream<Object> keys =
                getKeyedStateBackend().getKeys(DELETED_UP_TO.getName(), VoidNamespace.INSTANCE)) {
            keys.forEach(
                    k -> {
                        getKeyedStateBackend().setCurrentKey(k);
                        try {
                            Long upTo = deletedUpTo.value();
                            if (upTo != null && upTo < previousRound) {
                                stale.add((Long) k);
                            } else if (upTo != null) {
                                kept[0]++;
                            }
                        } catch (Exception ex) {
                            throw new IllegalStateException(ex);
                        }
                    });
        }
        for (int i = 0; i < stale.size(); i++) {
            getKeyedStateBackend().setCurrentKey(stale.get(i));
            deletedUpTo.clear();
        }
        getKeyedStateBackend().setCurrentKey(current);
        deletionEntries = kept[0];
    }

    private void scheduleFreshnessLine() {
        long now = getProcessingTimeService().getCurrentProcessingTime();
        getProcessingTimeService()
                .registerTimer(
                        now + FRESHNESS_LINE_MS,
                        time -> {
                            if (windowCount > 0) {
                                long[] v = window.toArray();
                                Arrays.sort(v);
                                output.collect(
                                        FRESHNESS,
                                        new StreamRecord<>(
                                                RankLine.freshness(
                                                        v[v.length / 2],
                                                        v[
                                                                Math.min(
                                                                        v.length - 1,
                                                                        (int) (v.length * 0.99))],
                                                        windowCount)));
                                window.clear();
                                windowCount = 0;
                            }
                            scheduleFreshnessLine();
                        });
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        roundState.update(List.of(latestRound, previousRound));
    }
}

package io.gnnstream.operators;

import com.carrotsearch.hppc.LongArrayList;
import com.carrotsearch.hppc.LongLongHashMap;
import com.carrotsearch.hppc.cursors.LongLongCursor;
import io.gnnstream.operators.internal.RankLine;
import io.gnnstream.operators.messages.Prediction;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.metrics.DescriptiveStatisticsHistogram;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.OutputTag;

/**
 * The last stage before the predictions sink (parallelism 1): passes the trainers' predictions on
 * and turns each vertex deletion into a tombstone ({@link Prediction#tombstone}), so the compacted
 * predictions topic forgets a deleted vertex (docs/design.md, "Vertex deletion").
 *
 * <p>A deletion comes from the GraphStore subtask owning the vertex with the step of the latest
 * inference round that subtask had answered requests of. A round that asked for the vertex after
 * its deletion gets no row for it and predicts nothing for it; a round that asked before may still
 * be computing, and its prediction, of that step or an earlier one, would land after the tombstone.
 * So each deletion is remembered as (vertex, step) and a later prediction of the vertex from a
 * round up to that step is dropped. Rounds run one after another: once predictions of two later
 * rounds have come, no prediction of an earlier one is on its way, and the entry is forgotten. The
 * entries (primitive maps on the heap, about 20 bytes each) and the two latest round steps are
 * operator state.
 *
 * <p>Incremental predictions (docs/design.md, "Incremental predictions") come from the GraphStore
 * with the pinned round's step; the GraphStore pins a round only once every rank has emitted its
 * share of the round's predictions, so a round prediction of a vertex that arrives after an
 * incremental one of the same or a later step is older and is dropped, and an incremental
 * prediction of an older step than the latest round's is dropped as well: that round reads the
 * graph after it. Those vertices are remembered as deletions are, and forgotten alike. The
 * freshness of each incremental prediction (now minus its change's time) goes into the histogram
 * {@code freshnessMs}, with gauges of its median and 99th percentile, and every second with
 * incremental predictions a {@link RankLine#freshness} line of that second's goes to the side
 * output {@link #FRESHNESS} (the metrics lines carry it).
 */
public class PredictionTombstones extends AbstractStreamOperator<Prediction>
        implements TwoInputStreamOperator<Prediction, Tuple2<Long, Long>, Prediction> {

    private static final long serialVersionUID = 1L;

    static final ListStateDescriptor<Tuple2<Long, Long>> DELETIONS =
            new ListStateDescriptor<>(
                    "prediction-tombstone-deletions", Types.TUPLE(Types.LONG, Types.LONG));
    static final ListStateDescriptor<Long> ROUNDS =
            new ListStateDescriptor<>("prediction-tombstone-rounds", Types.LONG);

    private transient ListState<Tuple2<Long, Long>> deletionState;
    private transient ListState<Long> roundState;
    private transient ListState<Tuple2<Long, Long>> incrementalState;

    static final ListStateDescriptor<Tuple2<Long, Long>> INCREMENTAL =
            new ListStateDescriptor<>(
                    "prediction-incremental", Types.TUPLE(Types.LONG, Types.LONG));

    /** Vertex -> the latest pinned step of an incremental prediction of it passed on. */
    private transient LongLongHashMap incrementalAt;

    private transient DescriptiveStatisticsHistogram freshness;

    /** Freshness lines for the metrics merger. */
    public static final OutputTag<String> FRESHNESS = new OutputTag<>("freshness", Types.STRING);

    static final long FRESHNESS_LINE_MS = 1_000;

    /** The freshness (ms) of the incremental predictions since the last freshness line. */
    private transient LongArrayList window;

    private transient long windowCount;

    /** Deleted vertex -> the latest round step whose predictions of it are stale. */
    private transient LongLongHashMap deletedUpTo;

    /** The step of the latest round seen in predictions, and of the one before it. */
    private transient long latestRound;

    private transient long previousRound;

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        deletionState = context.getOperatorStateStore().getListState(DELETIONS);
        roundState = context.getOperatorStateStore().getListState(ROUNDS);
        incrementalState = context.getOperatorStateStore().getListState(INCREMENTAL);
        incrementalAt = new LongLongHashMap();
        for (Tuple2<Long, Long> d : incrementalState.get()) {
            putMax(incrementalAt, d.f0, d.f1);
        }
        deletedUpTo = new LongLongHashMap();
        for (Tuple2<Long, Long> d : deletionState.get()) {
            putMax(deletedUpTo, d.f0, d.f1);
        }
        List<Long> rounds = new ArrayList<>();
        roundState.get().forEach(rounds::add);
        latestRound = rounds.isEmpty() ? -1 : rounds.get(0);
        previousRound = rounds.size() < 2 ? -1 : rounds.get(1);
    }

    @Override
    public void open() throws Exception {
        super.open();
        freshness = new DescriptiveStatisticsHistogram(10_000);
        getMetricGroup().histogram("freshnessMs", freshness);
        getMetricGroup().gauge("freshnessP50Ms", () -> freshness.getStatistics().getQuantile(0.5));
        getMetricGroup().gauge("freshnessP99Ms", () -> freshness.getStatistics().getQuantile(0.99));
        window = new LongArrayList();
        scheduleFreshnessLine();
    }

    @Override
    public void processElement1(StreamRecord<Prediction> element) {
        Prediction p = element.getValue();
        if (p.step > latestRound) {
            previousRound = latestRound;
            latestRound = p.step;
            long before = previousRound;
            deletedUpTo.removeAll((vertex, step) -> step < before);
            incrementalAt.removeAll((vertex, step) -> step < before);
        }
        if (deletedUpTo.containsKey(p.vertex) && p.step <= deletedUpTo.get(p.vertex)) {
            return;
        }
        if (p.changedAt > 0) {
            if (p.step < latestRound) {
                return; // a newer round's predictions are coming or came, from a later graph
            }
            putMax(incrementalAt, p.vertex, p.step);
            long ms =
                    Math.max(
                            0, getProcessingTimeService().getCurrentProcessingTime() - p.changedAt);
            freshness.update(ms);
            windowCount++;
            if (window.size() < MAX_WINDOW) {
                window.add(ms);
            }
        } else {
            if (incrementalAt.containsKey(p.vertex) && p.step <= incrementalAt.get(p.vertex)) {
                return;
            }
        }
        output.collect(element);
    }

    /** At most this many values of a second are kept for its line's percentiles. */
    private static final int MAX_WINDOW = 100_000;

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
    public void processElement2(StreamRecord<Tuple2<Long, Long>> element) {
        long vertex = element.getValue().f0;
        putMax(deletedUpTo, vertex, element.getValue().f1);
        output.collect(new StreamRecord<>(Prediction.tombstone(vertex)));
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        deletionState.update(entries(deletedUpTo));
        roundState.update(List.of(latestRound, previousRound));
        incrementalState.update(entries(incrementalAt));
    }

    private static List<Tuple2<Long, Long>> entries(LongLongHashMap map) {
        List<Tuple2<Long, Long>> out = new ArrayList<>(map.size());
        for (LongLongCursor c : map) {
            out.add(Tuple2.of(c.key, c.value));
        }
        return out;
    }

    /** Keeps the larger of {@code step} and the one {@code vertex} has. */
    private static void putMax(LongLongHashMap map, long vertex, long step) {
        int slot = map.indexOf(vertex);
        if (!map.indexExists(slot)) {
            map.indexInsert(slot, vertex, step);
        } else if (map.indexGet(slot) < step) {
            map.indexReplace(slot, step);
        }
    }

    /** Deletions remembered, for tests. */
    int remembered() {
        return deletedUpTo.size();
    }
}

package io.gnnstream.operators;

import io.gnnstream.operators.internal.JobIncarnation;
import io.gnnstream.operators.messages.GraphEvent;
import io.gnnstream.operators.messages.GraphStoreInput;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.messages.PredictionBatch;
import io.gnnstream.operators.messages.SampleRequest;
import io.gnnstream.operators.messages.SampleResponse;
import io.gnnstream.operators.serialization.MiniBatchPartSerializer;
import io.gnnstream.operators.store.GraphStore;
import io.gnnstream.operators.store.HaloReplicas;
import io.gnnstream.operators.store.IncrementalState;
import io.gnnstream.operators.store.Site;
import io.gnnstream.operators.store.StoreOutputs;
import io.gnnstream.state.VertexKey;
import io.gnnstream.state.VertexPartitioner;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.OutputTag;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns the graph: per vertex, its attributes and in-adjacency in keyed (RocksDB) state under {@link
 * VertexKey}. The decisions are the {@link GraphStore}'s; this operator feeds it the records (graph
 * updates keyed by their vertex, edge bundles, deletions and requests keyed by a partition anchor),
 * the statistics timer and the snapshots, and sends what it returns: sampled neighbours to the
 * assembler (main output), feature parts straight to the batch's trainer ({@link #FEATURES}), graph
 * events to the scheduler ({@link #EVENTS}) and incremental predictions with deleted vertices to
 * the prediction tombstones ({@link #PREDICTIONS}). It also shows the core's counters as metrics
 * and injects test failures.
 *
 * <p>See docs/design.md, "Graph state", "Graph changes", "Feature paths and caches" and
 * "Checkpoints and restore", "GraphStore".
 */
public class GraphStoreOperator extends KeyedStateOperator<SampleResponse>
        implements OneInputStreamOperator<GraphStoreInput, SampleResponse> {

    private static final long serialVersionUID = 1L;

    public static final OutputTag<GraphEvent> EVENTS =
            new OutputTag<>("graph-events", TypeInformation.of(GraphEvent.class));
    public static final OutputTag<MiniBatchPart> FEATURES =
            new OutputTag<>("feature-parts", MiniBatchPartSerializer.TYPE_INFO);

    /**
     * Incremental predictions (docs/design.md, "Incremental predictions") and, in their order, the
     * vertices whose deletion this subtask applied as it owns them ({@link
     * PredictionBatch#deletion}, with the step of the latest round it had answered then: see
     * "Vertex deletion"), which the job turns into prediction tombstones.
     */
    public static final OutputTag<PredictionBatch> PREDICTIONS =
            new OutputTag<>("incremental-predictions", TypeInformation.of(PredictionBatch.class));

    /** Each subtask's {@link IncrementalState}, encoded. */
    static final ListStateDescriptor<byte[]> INCREMENTAL =
            new ListStateDescriptor<>(
                    "incremental-predictions",
                    PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO);

    /** Each subtask's {@link io.gnnstream.operators.store.Lineage}, as pairs. */
    static final ListStateDescriptor<long[]> LINEAGE =
            new ListStateDescriptor<>(
                    "layer-output-lineage", PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO);

    private transient ListState<long[]> lineageState;

    /** How often the task thread looks for marked vertices to recompute while none was ready. */
    static final long INCREMENTAL_INTERVAL_MS = 20;

    /** The longest stretch the task thread recomputes before it takes input again. */
    static final long INCREMENTAL_SLICE_NANOS = 4_000_000L;

    /** The attribute records' state ({@link GraphStore#ATTRIBUTES}). */
    public static final ValueStateDescriptor<byte[]> ATTRIBUTES = GraphStore.ATTRIBUTES;

    private final VertexPartitioner partitioner;
    private final GraphStoreConfig config;
    private FaultInjector faults = FaultInjector.NONE;

    /** Sample requests answered since this subtask started (counts for {@link FaultInjector}). */
    private transient long requestsAnswered;

    /**
     * Graph updates (edge bundles, node updates, deletions, replica messages) applied since this
     * subtask started (counts for {@link FaultInjector}, {@code graph-store-ingest}).
     */
    private transient long updatesApplied;

    /**
     * Layer-output records stored since this subtask started (counts for {@link FaultInjector}).
     */
    private transient long layerRecordsStored;

    private transient GraphStore store;

    /** What the last call to the store returned, emptied as it is sent. */
    private transient StoreOutputs out;

    /** This subtask's index. */
    private transient int subtask;

    private transient ListState<byte[]> incrementalState;

    /** When the incremental predictions' work was last logged, and how much was recomputed. */
    private transient long reportedAt;

    private transient long reportedRecomputed;

    /** Nanoseconds the input took since this subtask started ({@link #processElement}). */
    private transient long inputNanos;

    /** When the last slice of recomputation ended ({@link System#nanoTime}), and the input's. */
    private transient long sliceEnd;

    private transient long inputAtSliceEnd;

    private static final Logger LOG = LoggerFactory.getLogger(GraphStoreOperator.class);

    /** How often the incremental predictions' work is logged while there is any. */
    static final long INCREMENTAL_REPORT_MS = 30_000;

    /** Makes this operator fail once as {@code faults} says (failure-injection tests). */
    public GraphStoreOperator withFaults(FaultInjector faults) {
        this.faults = faults;
        return this;
    }

    public GraphStoreOperator(VertexPartitioner partitioner, GraphStoreConfig config) {
        this.partitioner = partitioner;
        this.config = config;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        var task = getRuntimeContext().getTaskInfo();
        subtask = task.getIndexOfThisSubtask();
        Site site =
                siteOf(
                        partitioner.numPartitions(),
                        task.getMaxNumberOfParallelSubtasks(),
                        task.getNumberOfParallelSubtasks(),
                        subtask);
        store =
                new GraphStore(
                        partitioner,
                        config,
                        site,
                        context.getKeyedStateStore(),
                        this::setCurrentKey,
                        this::storedKeys,
                        config.halo
                                ? context.getOperatorStateStore()
                                        .getUnionListState(HaloReplicas.MADE_FOR)
                                : null,
                        context.isRestored(),
                        GraphStoreProbe.installed());
        out = new StoreOutputs();
        store.lineage().current(JobIncarnation.of(getRuntimeContext()));
        lineageState = context.getOperatorStateStore().getUnionListState(LINEAGE);
        if (context.isRestored()) {
            store.lineage()
                    .restore(lineageState.get(), context.getRestoredCheckpointId().orElse(0));
        }
        if (store.incremental() != null) {
            store.incremental().incarnation(JobIncarnation.of(getRuntimeContext()));
            incrementalState = context.getOperatorStateStore().getUnionListState(INCREMENTAL);
            if (context.isRestored()) {
                List<IncrementalState> states = new ArrayList<>();
                for (byte[] encoded : incrementalState.get()) {
                    states.add(IncrementalState.decode(encoded));
                }
                store.incremental().restore(states, v -> site.owns(partitioner.partition(v)));
            }
        }
    }

    /**
     * Subtask {@code subtask} of {@code parallelism} as Flink assigns key groups at {@code
     * maxParallelism}: logical partition {@code p} is owned where its anchor's key group is, and
     * the site's replicas live under the first key group of its range.
     */
    public static Site siteOf(int partitions, int maxParallelism, int parallelism, int subtask) {
        KeyGroupRange range =
                KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
                        maxParallelism, parallelism, subtask);
        boolean[] owned = new boolean[partitions];
        for (int p = 0; p < partitions; p++) {
            owned[p] =
                    range.contains(
                            KeyGroupRangeAssignment.assignToKeyGroup(
                                    VertexKey.anchor(p), maxParallelism));
        }
        return new Site(subtask, parallelism, owned, range.getStartKeyGroup());
    }

    @Override
    public void open() throws Exception {
        super.open();
        var counters = store.counters();
        counter("edgesIngested", counters::edgesIngested);
        counter("cutEdgesIngested", counters::cutEdgesIngested);
        counter("nodesIngested", counters::nodesIngested);
        counter("verticesDeleted", counters::verticesDeleted);
        counter("sampleRequests", counters::sampleRequests);
        counter("malformedRequests", counters::malformedRequests);
        counter("staleLayerOutputs", counters::staleLayerOutputs);
        counter("supersededLayerOutputs", counters::supersededLayerOutputs);
        var layers = store.layerOutputs();
        getMetricGroup().gauge("layerRowsWritten", layers::rowsWritten);
        getMetricGroup().gauge("layerOutputsOfFailedRuns", store.lineage()::dropped);
        getMetricGroup().gauge("missingLayerRows", layers::missingRows);
        getMetricGroup().gauge("layerRowCacheHits", layers::cacheHits);
        getMetricGroup().gauge("layerRowsSummedAtOwner", layers::summedRows);
        getMetricGroup().gauge("haloReplicas", store::replicas);
        getMetricGroup().gauge("liveVertices", store::vertices);
        getMetricGroup().gauge("liveEdges", store::edges);
        getMetricGroup()
                .gauge(
                        "replicationFactor",
                        () -> {
                            long vertices = store.vertices();
                            return vertices == 0 ? 0.0 : (double) store.replicas() / vertices;
                        });
        scheduleStats();
        var incremental = store.incremental();
        if (incremental != null) {
            getMetricGroup().gauge("incrementalPending", incremental::pendingVertices);
            getMetricGroup().gauge("incrementalPredictions", incremental.counters()::predicted);
            getMetricGroup().gauge("incrementalRecomputed", incremental.counters()::recomputed);
            getMetricGroup().gauge("pinnedRoundStep", incremental::pinnedStep);
            getMetricGroup().gauge("incrementalSuspensions", incremental.counters()::suspensions);
            getMetricGroup().gauge("incrementalSummedAgain", incremental.counters()::summedAgain);
            getMetricGroup()
                    .gauge("incrementalSummedByRound", incremental.counters()::summedByRound);
            getMetricGroup()
                    .gauge(
                            "incrementalFeatureSumsByRound",
                            incremental.counters()::featureSumsByRound);
            getMetricGroup()
                    .gauge(
                            "incrementalSummedByDifference",
                            incremental.counters()::summedByDifference);
            schedulePredictions(INCREMENTAL_INTERVAL_MS);
        }
    }

    @Override
    public void processElement(StreamRecord<GraphStoreInput> element) throws Exception {
        long start = System.nanoTime();
        try {
            process(element);
        } finally {
            inputNanos += System.nanoTime() - start;
        }
    }

    private void process(StreamRecord<GraphStoreInput> element) throws Exception {
        GraphStoreInput input = element.getValue();
        store.inputTime(
                element.hasTimestamp()
                        ? element.getTimestamp()
                        : getProcessingTimeService().getCurrentProcessingTime());
        if (input instanceof GraphStoreInput.Requests bundle) {
            for (SampleRequest request : bundle.requests()) {
                if (store.accepts(request)) {
                    faults.check("graph-store", subtask, ++requestsAnswered);
                    store.answer(request, out);
                    emit();
                }
            }
            return;
        }
        if (input instanceof GraphStoreInput.Outputs outputs) {
            if (store.accepts(outputs.outputs())) {
                faults.check("layer-store", subtask, ++layerRecordsStored);
                store.write(outputs.outputs(), out);
            }
        } else {
            faults.check("graph-store-ingest", subtask, ++updatesApplied);
            if (input instanceof GraphStoreInput.Update update) {
                store.applyUpdate((VertexKey) getCurrentKey(), update.update(), out);
            } else if (input instanceof GraphStoreInput.Edges edges) {
                store.applyEdges(edges.bundle());
            } else if (input instanceof GraphStoreInput.Replica replica) {
                store.applyReplica(replica.message());
            } else {
                store.applyDeletion(((GraphStoreInput.Deletion) input).deletion().vertex, out);
            }
        }
        emit();
    }

    /** Sends what the store returned, and empties it. */
    private void emit() {
        if (out.isEmpty()) {
            return;
        }
        List<MiniBatchPart> parts = out.parts();
        for (int i = 0; i < parts.size(); i++) {
            output.collect(FEATURES, new StreamRecord<>(parts.get(i)));
        }
        List<SampleResponse> responses = out.responses();
        for (int i = 0; i < responses.size(); i++) {
            output.collect(new StreamRecord<>(responses.get(i)));
        }
        List<GraphEvent> events = out.events();
        for (int i = 0; i < events.size(); i++) {
            output.collect(EVENTS, new StreamRecord<>(events.get(i)));
        }
        List<PredictionBatch> predictions = out.predictions();
        for (int i = 0; i < predictions.size(); i++) {
            output.collect(PREDICTIONS, new StreamRecord<>(predictions.get(i)));
        }
        out.clear();
    }

    /**
     * The keys holding a value of keyed state {@code state} that {@code which} accepts, collected
     * before the caller switches keys (the backend's key stream must not see state changes).
     */
    private List<VertexKey> storedKeys(String state, Predicate<VertexKey> which) throws Exception {
        List<VertexKey> keys = new ArrayList<>();
        try (Stream<VertexKey> all =
                this.<VertexKey>getKeyedStateBackend().getKeys(state, VoidNamespace.INSTANCE)) {
            all.filter(which).forEach(keys::add);
        }
        return keys;
    }

    /** The core, for tests. */
    GraphStore store() {
        return store;
    }

    /** A bounded input may end without another snapshot: its buffered edges are written here. */
    @Override
    public void finish() throws Exception {
        store.writeAll();
        super.finish();
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        store.snapshot();
        lineageState.update(List.of(store.lineage().snapshot()));
        if (incrementalState != null) {
            incrementalState.update(List.of(store.incremental().state().encode()));
        }
    }

    private void scheduleStats() {
        long now = getProcessingTimeService().getCurrentProcessingTime();
        getProcessingTimeService()
                .registerTimer(now + config.statsIntervalMs, time -> publishStats());
    }

    /**
     * Recomputes marked vertices in slices of the task thread, {@code delayMs} from now. While work
     * is ready, the next slice comes after the core's gap ({@link
     * io.gnnstream.operators.store.IncrementalPredictions#sliceGapMs}); else after {@link
     * #INCREMENTAL_INTERVAL_MS}.
     */
    private void schedulePredictions(long delayMs) {
        long now = getProcessingTimeService().getCurrentProcessingTime();
        getProcessingTimeService()
                .registerTimer(
                        now + delayMs,
                        time -> {
                            long start = System.nanoTime();
                            long gap = start - sliceEnd;
                            long input = inputNanos - inputAtSliceEnd;
                            boolean more = store.predictIncrementally(INCREMENTAL_SLICE_NANOS, out);
                            emit();
                            // A timer's mail goes before the input: the gap is the input's.
                            sliceEnd = System.nanoTime();
                            inputAtSliceEnd = inputNanos;
                            long took = (sliceEnd - start) / 1_000_000;
                            schedulePredictions(
                                    more
                                            ? store.incremental().sliceGapMs(took, gap, input)
                                            : INCREMENTAL_INTERVAL_MS);
                        });
    }

    private void publishStats() {
        store.publishSizes(out);
        emit();
        reportIncremental();
        scheduleStats();
    }

    /**
     * Every {@link #INCREMENTAL_REPORT_MS} with incremental predictions computed since the last
     * report, a log line of the work they took: what was recomputed and predicted, and how the sums
     * were kept (by differences, of hubs among them, or summed again from the neighbours).
     */
    private void reportIncremental() {
        var incremental = store.incremental();
        long now = getProcessingTimeService().getCurrentProcessingTime();
        if (incremental == null
                || now - reportedAt < INCREMENTAL_REPORT_MS
                || incremental.counters().recomputed() == reportedRecomputed) {
            return;
        }
        LOG.info(
                "Incremental predictions of subtask {}: {} recomputed, {} predicted, {} pending;"
                    + " sums made by rounds {} of rows and {} of features, kept by differences {}"
                    + " ({} of hubs; {} passes over {} hub in-neighbours, {} from cached"
                    + " selections), cleared by edge changes {}, summed again {} ({} of hubs, {} of"
                    + " rows)",
                subtask,
                incremental.counters().recomputed(),
                incremental.counters().predicted(),
                incremental.pendingVertices(),
                incremental.counters().summedByRound(),
                incremental.counters().featureSumsByRound(),
                incremental.counters().summedByDifference(),
                incremental.counters().hubDifferences(),
                incremental.counters().hubPasses(),
                incremental.counters().hubNeighboursPassed(),
                incremental.counters().hubSelectionsCached(),
                incremental.counters().cleared(),
                incremental.counters().summedAgain(),
                incremental.counters().hubsSummedAgain(),
                incremental.counters().rowSumsSummedAgain());
        reportedAt = now;
        reportedRecomputed = incremental.counters().recomputed();
    }

    /** Shows one of the core's counts as a Flink counter named {@code name}. */
    private void counter(String name, LongSupplier count) {
        getMetricGroup().counter(name, new CountOf(count));
    }

    /** A Flink counter whose count the GraphStore keeps. */
    private static final class CountOf implements Counter {
        private final LongSupplier count;

        CountOf(LongSupplier count) {
            this.count = count;
        }

        @Override
        public void inc() {
            throw new UnsupportedOperationException("the GraphStore counts");
        }

        @Override
        public void inc(long n) {
            throw new UnsupportedOperationException("the GraphStore counts");
        }

        @Override
        public void dec() {
            throw new UnsupportedOperationException("the GraphStore counts");
        }

        @Override
        public void dec(long n) {
            throw new UnsupportedOperationException("the GraphStore counts");
        }

        @Override
        public long getCount() {
            return count.getAsLong();
        }
    }
}

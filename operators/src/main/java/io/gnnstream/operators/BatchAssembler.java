package io.gnnstream.operators;

import io.gnnstream.operators.internal.BatchBuilder;
import io.gnnstream.operators.messages.BatchSpec;
import io.gnnstream.operators.messages.GraphStoreInput;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.messages.SampleRequest;
import io.gnnstream.operators.messages.SampleResponse;
import io.gnnstream.operators.schedule.BatchAttempts;
import io.gnnstream.operators.schedule.RequestWindow;
import io.gnnstream.operators.serialization.MiniBatchPartSerializer;
import io.gnnstream.state.InAdjacency;
import io.gnnstream.state.StoreSites;
import io.gnnstream.state.VertexPartitioner;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.streaming.api.operators.Triggerable;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.OutputTag;

/**
 * Drives the sampling loop for the batches it owns (keyed by batch id).
 *
 * <p>Input 1: {@link BatchSpec}s from the scheduler. Input 2: {@link SampleResponse}s from the
 * GraphStore. Main output: {@link SampleRequest}s, which the job sends back through the iteration's
 * feedback edge to the GraphStore, bundled per GraphStore subtask (the requests that one call lets
 * through the window for partitions of that subtask go as one record). Side output {@link
 * #BATCHES}: the head (structure) of each finished mini-batch for its trainer, which joins it with
 * the feature parts the GraphStore sent it directly ({@link GraphStoreOperator#FEATURES}).
 *
 * <p>Requests leave through a {@link RequestWindow} of at most {@code maxOutstandingVertices}
 * vertices (docs/design.md, "Sampling loop and flow control").
 *
 * <p>Checkpoints: only the spec and the attempt number of an unfinished batch are keyed state, its
 * partial subgraph is heap-only; every batch has a processing-time timer, and {@link BatchAttempts}
 * decides what a spec or a timer does (a restored batch is sampled again from hop 1 as a new
 * attempt, a stalled one sends its pending requests again; docs/design.md, "Glossary" and
 * "Checkpoints and restore", "BatchAssembler").
 */
public class BatchAssembler extends KeyedStateOperator<GraphStoreInput>
        implements TwoInputStreamOperator<BatchSpec, SampleResponse, GraphStoreInput>,
                Triggerable<Long, VoidNamespace> {

    private static final long serialVersionUID = 1L;

    public static final OutputTag<MiniBatchPart> BATCHES =
            new OutputTag<>("mini-batches", MiniBatchPartSerializer.TYPE_INFO);

    static final ValueStateDescriptor<BatchSpec> SPEC =
            new ValueStateDescriptor<>("batch-spec", TypeInformation.of(BatchSpec.class));
    static final ValueStateDescriptor<Integer> ATTEMPT =
            new ValueStateDescriptor<>("batch-attempt", Types.INT);

    private final int[] fanouts;
    private final int featureDim;
    private int[] layerWidths = new int[0];
    private int evalFanout = -1;
    private final VertexPartitioner partitioner;

    /**
     * Per partition, its route: the lowest partition of the GraphStore subtask that owns it.
     * Requests are keyed and bundled by route.
     */
    private final int[] routeOf;

    /** Per GraphStore subtask, its route. */
    private final int[] routeOfSubtask;

    /** Period of the heartbeats on the sampling loop (see {@link #scheduleHeartbeat}). */
    static final long HEARTBEAT_MS = 100;

    private final long timeoutMs;
    private final int maxOutstandingVertices;
    private final int maxRequestVertices;

    private transient ValueState<BatchSpec> specs;
    private transient ValueState<Integer> attempts;
    private transient InternalTimerService<VoidNamespace> timers;
    private transient Map<Long, InProgress> inProgress;
    private transient RequestWindow window;
    private transient Counter retries;
    private transient Counter completed;

    /** The completed batches' traffic on the sampling loop (see {@link MiniBatch#loopRequests}). */
    private transient Counter loopRequests;

    private transient Counter loopRequestVertices;
    private transient Counter loopBytes;
    private transient Counter remoteLoopBytes;
    private transient Counter remoteLoopRequests;

    /**
     * The route of the GraphStore subtask of this subtask's index (-1 if none): requests to others
     * leave the site.
     */
    private transient int localRoute;

    /** Nodes of the last batch built, the size hint of the next. */
    private transient int lastBatchNodes;

    /** Whether the GraphStore keeps halo replicas, so training batches take neighbour parts. */
    private boolean halo;

    private int maxSampleVertices;

    /**
     * @param storeParallelism the GraphStore's parallelism, whose maximum parallelism is the number
     *     of partitions (each partition is a key group)
     */
    public BatchAssembler(
            int[] fanouts,
            int featureDim,
            VertexPartitioner partitioner,
            int storeParallelism,
            long timeoutMs,
            int maxOutstandingVertices) {
        if (maxOutstandingVertices < 1
                || storeParallelism < 1
                || storeParallelism > partitioner.numPartitions()) {
            throw new IllegalArgumentException(
                    "maxOutstandingVertices must be >= 1 (got "
                            + maxOutstandingVertices
                            + ") and storeParallelism in [1, "
                            + partitioner.numPartitions()
                            + "] (got "
                            + storeParallelism
                            + ")");
        }
        this.fanouts = fanouts.clone();
        this.featureDim = featureDim;
        this.partitioner = partitioner;
        StoreSites sites = new StoreSites(partitioner.numPartitions(), storeParallelism);
        this.routeOf = new int[partitioner.numPartitions()];
        for (int p = 0; p < routeOf.length; p++) {
            routeOf[p] = sites.holderOf(p);
        }
        this.routeOfSubtask = new int[storeParallelism];
        for (int s = 0; s < storeParallelism; s++) {
            routeOfSubtask[s] = sites.holderOfSite(s);
        }
        this.timeoutMs = timeoutMs;
        this.maxOutstandingVertices = maxOutstandingVertices;
        this.maxRequestVertices = maxRequestVertices(fanouts, featureDim, maxOutstandingVertices);
        this.maxSampleVertices = maxRequestVertices;
    }

    /**
     * With halo replicas and more than one GraphStore subtask: training batches take the features
     * of sampled neighbours from the GraphStore subtasks that sampled them ({@link BatchBuilder}),
     * and requests shrink so that a neighbour part of a request's sampled neighbours stays under
     * the record cap too. A single subtask owns every vertex, so its batches fetch features by row,
     * each vertex once, as without replicas.
     */
    public BatchAssembler withHalo(boolean on) {
        this.halo = on && routeOfSubtask.length > 1;
        long neighbourBytes =
                (long) maxFanout(fanouts) * (Float.BYTES * featureDim + 2L * Long.BYTES);
        this.maxSampleVertices =
                halo
                        ? (int)
                                Math.max(
                                        1,
                                        Math.min(
                                                maxRequestVertices,
                                                MiniBatchPart.MAX_RECORD_BYTES
                                                        / Math.max(1, neighbourBytes)))
                        : maxRequestVertices;
        return this;
    }

    /**
     * The widths of the rows an inference round stores for the layers after the first ({@code
     * widths[j-1]} for layer {@code j+1}, see {@code ModelConfig.roundRowWidth}): blocks of layer
     * {@code j+1} ask the GraphStore for their sources' stored rows of layer {@code j}, in requests
     * small enough for rows of that width.
     */
    public BatchAssembler withLayerWidths(int... widths) {
        this.layerWidths = widths.clone();
        return this;
    }

    /**
     * Neighbours per vertex in evaluation blocks ({@link BatchBuilder#evalFanout}); -1 (the
     * default): all.
     */
    public BatchAssembler withEvalFanout(int fanout) {
        this.evalFanout = fanout;
        return this;
    }

    private int layerWidth(int layer) {
        if (layer < 1 || layer > layerWidths.length) {
            throw new IllegalStateException(
                    "an inference block reads outputs of layer "
                            + layer
                            + ", but the "
                            + "assembler knows the widths of "
                            + layerWidths.length
                            + " hidden layers");
        }
        return layerWidths[layer - 1];
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        specs = context.getKeyedStateStore().getState(SPEC);
        attempts = context.getKeyedStateStore().getState(ATTEMPT);
        inProgress = new HashMap<>();
        window = new RequestWindow(maxOutstandingVertices);
    }

    @Override
    public void open() throws Exception {
        super.open();
        timers = getInternalTimerService("batch-timeouts", VoidNamespaceSerializer.INSTANCE, this);
        retries = getMetricGroup().counter("batchRetries");
        completed = getMetricGroup().counter("batchesCompleted");
        loopRequests = getMetricGroup().counter("loopRequests");
        loopRequestVertices = getMetricGroup().counter("loopRequestVertices");
        loopBytes = getMetricGroup().counter("loopBytes");
        remoteLoopBytes = getMetricGroup().counter("remoteLoopBytes");
        remoteLoopRequests = getMetricGroup().counter("remoteLoopRequests");
        int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        localRoute = subtask < routeOfSubtask.length ? routeOfSubtask[subtask] : -1;
        scheduleHeartbeat();
    }

    /**
     * Sends a heartbeat request around the sampling loop every {@link #HEARTBEAT_MS}: the loop's
     * head emits a checkpoint barrier only when a record arrives on the feedback edge, and once the
     * job's sources have finished (bounded input) the GraphStore's barriers come only from there,
     * while operators downstream may hold aligned inputs blocked until they arrive.
     */
    private void scheduleHeartbeat() {
        long now = getProcessingTimeService().getCurrentProcessingTime();
        getProcessingTimeService()
                .registerTimer(
                        now + HEARTBEAT_MS,
                        t -> {
                            output.collect(
                                    new StreamRecord<>(
                                            GraphStoreInput.of(
                                                    SampleRequest.heartbeat(routeOf[0]))));
                            scheduleHeartbeat();
                        });
    }

    @Override
    public void processElement1(StreamRecord<BatchSpec> element) throws Exception {
        BatchSpec spec = element.getValue();
        switch (BatchAttempts.onSpec(spec, inProgress.containsKey(spec.batchId), specs.value())) {
            case RESTART -> restart(spec);
            case START -> {
                specs.update(spec);
                start(spec, BatchAttempts.first(spec));
                timers.registerProcessingTimeTimer(VoidNamespace.INSTANCE, now() + timeoutMs);
            }
            default -> {}
        }
    }

    @Override
    public void processElement2(StreamRecord<SampleResponse> element) throws Exception {
        SampleResponse response = element.getValue();
        window.answered(response);
        InProgress batch = inProgress.get(response.batchId);
        if (batch != null) {
            List<SampleRequest> next = batch.builder.accept(response);
            batch.lastProgress = now();
            window.enqueue(next);
            if (batch.builder.isComplete()) {
                finish(batch);
            }
        }
        pump();
    }

    @Override
    public void onProcessingTime(InternalTimer<Long, VoidNamespace> timer) throws Exception {
        BatchSpec spec = specs.value();
        InProgress batch = spec == null ? null : inProgress.get(spec.batchId);
        BatchAttempts.OnTimer action =
                BatchAttempts.onTimer(
                        spec,
                        batch != null,
                        batch == null ? 0 : now() - batch.lastProgress,
                        timeoutMs);
        if (action == BatchAttempts.OnTimer.NONE && spec == null) {
            return;
        }
        if (action == BatchAttempts.OnTimer.RESTART) {
            restart(spec);
        } else if (action == BatchAttempts.OnTimer.RESEND) {
            retries.inc();
            window.resend(batch.builder.pending());
            pump();
            batch.lastProgress = now();
        }
        timers.registerProcessingTimeTimer(VoidNamespace.INSTANCE, now() + timeoutMs);
    }

    @Override
    public void onEventTime(InternalTimer<Long, VoidNamespace> timer) {}

    /**
     * Samples again from hop 1 a batch whose partial state a restore lost, as the next attempt;
     * {@code spec} is the restored one or, if the scheduler issued it again after the restore, the
     * newer generation, whose attempts are numbered above all earlier ones.
     */
    private void restart(BatchSpec spec) throws Exception {
        retries.inc();
        int attempt = BatchAttempts.next(attempts.value(), spec);
        specs.update(spec);
        attempts.update(attempt);
        start(spec, attempt);
    }

    private void start(BatchSpec spec, int attempt) throws Exception {
        BatchBuilder builder;
        if (spec.layer >= 2) {
            int dim = layerWidth(spec.layer - 1);
            builder =
                    new BatchBuilder(
                                    spec,
                                    attempt,
                                    fanouts,
                                    featureDim,
                                    partitioner,
                                    routeOf,
                                    maxRequestVertices(fanouts, dim, maxOutstandingVertices),
                                    lastBatchNodes,
                                    false)
                            .layerInput(spec.layer - 1, dim);
        } else {
            builder =
                    new BatchBuilder(
                            spec,
                            attempt,
                            fanouts,
                            featureDim,
                            partitioner,
                            routeOf,
                            halo ? maxSampleVertices : maxRequestVertices,
                            lastBatchNodes,
                            halo);
        }
        InProgress batch =
                new InProgress(builder.localRoute(localRoute).evalFanout(evalFanout), now());
        inProgress.put(spec.batchId, batch);
        window.enqueue(batch.builder.start());
        if (batch.builder.isComplete()) {
            finish(batch);
        }
        pump();
    }

    private void finish(InProgress batch) {
        lastBatchNodes = batch.builder.numNodes();
        MiniBatchPart head = batch.builder.buildHead();
        loopRequests.inc(head.head.loopRequests);
        loopRequestVertices.inc(head.head.loopRequestVertices);
        loopBytes.inc(head.head.loopBytes);
        remoteLoopBytes.inc(head.head.remoteLoopBytes);
        remoteLoopRequests.inc(head.head.remoteLoopRequests);
        output.collect(BATCHES, new StreamRecord<>(head));
        inProgress.remove(batch.builder.spec().batchId);
        specs.clear();
        attempts.clear();
        completed.inc();
    }

    /** Sends the queued requests that fit into the window, one bundle per GraphStore subtask. */
    private void pump() {
        for (List<SampleRequest> bundle :
                window.take(
                        r -> {
                            InProgress batch = inProgress.get(r.batchId);
                            return batch != null && batch.builder.awaits(r);
                        })) {
            output.collect(
                    new StreamRecord<>(GraphStoreInput.of(bundle.toArray(new SampleRequest[0]))));
        }
    }

    /**
     * Vertices per request: a quarter of the window, so that one partition's share of a large batch
     * is split and several requests are always in flight; and few enough that the GraphStore's
     * records for it (sampled neighbours to the assembler, features to the trainer) stay under
     * {@link MiniBatchPart#MAX_RECORD_BYTES}, which Flink would otherwise spill to disk.
     */
    private static int maxRequestVertices(
            int[] fanouts, int featureDim, int maxOutstandingVertices) {
        long bytesPerVertex =
                (long) Float.BYTES * featureDim + (long) Long.BYTES * (maxFanout(fanouts) + 2);
        return (int)
                Math.max(
                        1,
                        Math.min(
                                maxOutstandingVertices / 4,
                                MiniBatchPart.MAX_RECORD_BYTES / bytesPerVertex));
    }

    /**
     * The largest fanout, a block's worth for "all neighbours" ({@code -1}), whose responses are
     * estimated so.
     */
    private static int maxFanout(int[] fanouts) {
        int fanout = 0;
        for (int f : fanouts) {
            fanout = Math.max(fanout, f < 0 ? InAdjacency.BLOCK_SIZE : f);
        }
        return fanout;
    }

    private long now() {
        return getProcessingTimeService().getCurrentProcessingTime();
    }

    private static final class InProgress {
        final BatchBuilder builder;
        long lastProgress;

        InProgress(BatchBuilder builder, long lastProgress) {
            this.builder = builder;
            this.lastProgress = lastProgress;
        }
    }
}

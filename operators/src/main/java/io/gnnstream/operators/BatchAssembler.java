package io.gnnstream.operators;

import io.gnnstream.operators.assembly.AssemblerConfig;
import io.gnnstream.operators.assembly.AssemblerCore;
import io.gnnstream.operators.assembly.AssemblerOutput;
import io.gnnstream.operators.assembly.RequestWindow;
import io.gnnstream.operators.messages.BatchSpec;
import io.gnnstream.operators.messages.GraphStoreInput;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.messages.SampleRequest;
import io.gnnstream.operators.messages.SampleResponse;
import io.gnnstream.operators.schedule.BatchAttempts;
import io.gnnstream.operators.serialization.MiniBatchPartSerializer;
import io.gnnstream.state.VertexPartitioner;
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
 * Drives the sampling loop for the batches it owns (keyed by batch id): the Flink adapter of the
 * assembler role, {@link AssemblerCore}, which it feeds with records, timers and keyed state and
 * whose {@link AssemblerOutput} it sends.
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

    /** Period of the heartbeats on the sampling loop (see {@link #scheduleHeartbeat}). */
    static final long HEARTBEAT_MS = 100;

    private final AssemblerConfig config;

    private transient AssemblerCore core;
    private transient AssemblerOutput out;
    private transient InternalTimerService<VoidNamespace> timers;
    private transient Counter retries;
    private transient Counter completed;

    /** The completed batches' traffic on the sampling loop (see {@link MiniBatch#loopRequests}). */
    private transient Counter loopRequests;

    private transient Counter loopRequestVertices;
    private transient Counter loopBytes;
    private transient Counter remoteLoopBytes;
    private transient Counter remoteLoopRequests;

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
        this(
                new AssemblerConfig(
                        fanouts,
                        featureDim,
                        partitioner,
                        storeParallelism,
                        timeoutMs,
                        maxOutstandingVertices));
    }

    /** An assembler with {@code config}, which the {@code with} methods below change further. */
    public BatchAssembler(AssemblerConfig config) {
        this.config = config;
    }

    /** See {@link AssemblerConfig#withHalo}. */
    public BatchAssembler withHalo(boolean on) {
        config.withHalo(on);
        return this;
    }

    /** See {@link AssemblerConfig#withLayerWidths}. */
    public BatchAssembler withLayerWidths(int... widths) {
        config.withLayerWidths(widths);
        return this;
    }

    /** See {@link AssemblerConfig#withEvalFanout}. */
    public BatchAssembler withEvalFanout(int fanout) {
        config.withEvalFanout(fanout);
        return this;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        core =
                new AssemblerCore(
                        config,
                        getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(),
                        context.getKeyedStateStore().getState(SPEC),
                        context.getKeyedStateStore().getState(ATTEMPT),
                        this::useKey);
        out = new AssemblerOutput();
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
                                    new StreamRecord<>(GraphStoreInput.of(core.heartbeat())));
                            scheduleHeartbeat();
                        });
    }

    @Override
    public void processElement1(StreamRecord<BatchSpec> element) throws Exception {
        core.onSpec(element.getValue(), now(), out);
        send();
    }

    @Override
    public void processElement2(StreamRecord<SampleResponse> element) throws Exception {
        core.onResponse(element.getValue(), now(), out);
        send();
    }

    @Override
    public void onProcessingTime(InternalTimer<Long, VoidNamespace> timer) throws Exception {
        core.onTimer(timer.getKey(), now(), out);
        send();
    }

    @Override
    public void onEventTime(InternalTimer<Long, VoidNamespace> timer) {}

    /** Sends what the core decided: request bundles, heads (counted), timers and retries. */
    private void send() {
        for (SampleRequest[] bundle : out.bundles()) {
            output.collect(new StreamRecord<>(GraphStoreInput.of(bundle)));
        }
        for (MiniBatchPart head : out.heads()) {
            loopRequests.inc(head.head.loopRequests);
            loopRequestVertices.inc(head.head.loopRequestVertices);
            loopBytes.inc(head.head.loopBytes);
            remoteLoopBytes.inc(head.head.remoteLoopBytes);
            remoteLoopRequests.inc(head.head.remoteLoopRequests);
            output.collect(BATCHES, new StreamRecord<>(head));
            completed.inc();
        }
        for (AssemblerOutput.Timer t : out.timers()) {
            useKey(t.batchId());
            timers.registerProcessingTimeTimer(VoidNamespace.INSTANCE, t.at());
        }
        retries.inc(out.retries());
        out.clear();
    }

    /**
     * The core's key switch: Flink has set the record's or the timer's key, so this only checks
     * that it is {@code batchId}.
     */
    private void useKey(long batchId) {
        if (!(getCurrentKey() instanceof Long current) || current != batchId) {
            setCurrentKey(batchId);
        }
    }

    private long now() {
        return getProcessingTimeService().getCurrentProcessingTime();
    }
}

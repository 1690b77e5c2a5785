package io.gnnstream.operators;

import io.gnnstream.operators.assembly.PartialBatches;
import io.gnnstream.operators.internal.InferenceRound;
import io.gnnstream.operators.internal.JobIncarnation;
import io.gnnstream.operators.internal.LayerOutputSender;
import io.gnnstream.operators.internal.PendingStep;
import io.gnnstream.operators.internal.RankReport;
import io.gnnstream.operators.internal.ReplicaSteps;
import io.gnnstream.operators.internal.StepRunner;
import io.gnnstream.operators.internal.TrainerFeatureCache;
import io.gnnstream.operators.messages.Credit;
import io.gnnstream.operators.messages.GradientChunk;
import io.gnnstream.operators.messages.GraphStoreInput;
import io.gnnstream.operators.messages.LayerOutputs;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.messages.PredictionBatch;
import io.gnnstream.operators.messages.ReducedChunk;
import io.gnnstream.operators.model.EvalResult;
import io.gnnstream.operators.model.GnnModel;
import io.gnnstream.operators.model.ModelFactory;
import io.gnnstream.operators.model.ModelState;
import io.gnnstream.operators.model.Nd4jThreads;
import io.gnnstream.operators.model.NpyExport;
import io.gnnstream.operators.model.gpu.Device;
import io.gnnstream.operators.model.gpu.GpuUnavailableException;
import io.gnnstream.operators.schedule.GradientExchange;
import io.gnnstream.operators.schedule.ModelSelection;
import io.gnnstream.operators.schedule.TrainerRank;
import io.gnnstream.operators.serialization.GraphStoreInputSerializer;
import io.gnnstream.state.StoreSites;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.externalresource.ExternalResourceInfo;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.FlinkRuntimeException;
import org.apache.flink.util.OutputTag;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One trainer rank (docs/design.md, "Glossary", "Trainer", "Checkpoints and restore" and
 * "All-reduce"): the Flink adapter of the rank's roles. It feeds {@link TrainerRank} (sequencing,
 * credits, round shares) and {@link GradientExchange} (the rank side of the all-reduce) with the
 * records, timers and snapshots of the task, and runs their decisions' model work on a step thread
 * of its own ({@link ReplicaSteps} on a {@link StepRunner}), one step at a time, so the task thread
 * keeps taking in batch parts while the model computes.
 *
 * <p>Input 1: {@link MiniBatchPart}s (heads from the assembler, feature parts from the GraphStore),
 * joined into whole batches by {@link PartialBatches} with the {@link TrainerFeatureCache}. Input
 * 2: the reducers' sums ({@link ReducedChunk}) on the all-reduce's feedback edge. Main output: the
 * {@link Credit}s of loop 2. Side outputs: gradient chunks ({@link #GRADIENTS}) with a heartbeat
 * every {@link #HEARTBEAT_MS}, a round's hidden-layer outputs ({@link #LAYER_OUTPUTS}), predictions
 * ({@link #PREDICTIONS}, one record per block) and per-rank metrics lines ({@link #METRICS}) that
 * {@link MetricsMerger} combines.
 *
 * <p>Checkpoints: the step in flight finishes before the barrier goes downstream, so its credit and
 * metrics line precede the barrier and the snapshot holds the model after it. The snapshot ({@link
 * TrainerCheckpoint}) holds every rank's {@link TrainerReplica} in union list state and per rank
 * its buffered batches, the parts of incomplete ones and the step waiting for its reduced gradient
 * ({@link PendingStep}, sent again after a restore). Timers re-send the credit while the rank is
 * idle and the gradient while its sums are missing, since neither survives on a feedback edge.
 *
 * <p>Model selection ({@link TrainerConfig#select()}, {@link ModelSelection}): a round's validation
 * counts ride on the next step's gradient, so every rank reads the round's accuracy from the sum
 * and keeps the same best round's parameters (in its replica state); after the final round a
 * selection exchange carries them. Rank 0 exports the kept parameters and, in the serving round
 * after the final one, predicts with them once the selection has decided (docs/design.md, "Model
 * selection").
 *
 * <p>Device: the model runs where {@link TrainerConfig#device()} says, made by {@link
 * ModelFactory#of}; {@code cuda} without an index opens a GPU of Flink's external resource {@link
 * #GPU_RESOURCE} on the TaskManager ({@link #assignedGpu}). A rank whose GPU cannot be opened fails
 * the job without restarts ({@link SuppressRestartsException}): a restart on the same TaskManager
 * finds the same library, driver and devices. Every gradient chunk and heartbeat names the model's
 * {@link GnnModel#deviceKind()}, so that reducers refuse ranks of different kinds.
 */
public class TrainerOperator extends AbstractStreamOperator<Credit>
        implements TwoInputStreamOperator<MiniBatchPart, ReducedChunk, Credit> {

    private static final long serialVersionUID = 1L;

    public static final OutputTag<String> METRICS = new OutputTag<>("metrics", Types.STRING);

    /**
     * A prediction per vertex after every evaluation round (rank 0, when {@code predictions} is
     * on).
     */
    public static final OutputTag<PredictionBatch> PREDICTIONS =
            new OutputTag<>("predictions", TypeInformation.of(PredictionBatch.class));

    /**
     * A hidden layer's outputs of an inference block, for the GraphStore's layer-output store; they
     * reach it through the sampling loop's feedback edge (docs/design.md, "Evaluation").
     */
    public static final OutputTag<GraphStoreInput> LAYER_OUTPUTS =
            new OutputTag<>("layer-outputs", GraphStoreInputSerializer.TYPE_INFO);

    /** Period of the heartbeats on the all-reduce loop (see {@link #scheduleHeartbeat}). */
    static final long HEARTBEAT_MS = 100;

    /**
     * A rank whose pending step has had no reduced chunk for this long sends its gradient again:
     * the reducers answer a contribution they hold with nothing and one of a summed step with its
     * sum, so a sum lost on the feedback edge is sent again.
     */
    static final long ALL_REDUCE_RESEND_MS = 10_000;

    /**
     * Gradient chunks of this rank's steps, for the reducers (when there is more than one rank).
     */
    public static final OutputTag<GradientChunk> GRADIENTS =
            new OutputTag<>("gradients", TypeInformation.of(GradientChunk.class));

    private static final Logger LOG = LoggerFactory.getLogger(TrainerOperator.class);

    /**
     * Name of the external resource whose GPU a rank of {@code --device cuda} opens ({@code
     * external-resources: gpu} with Flink's GPU driver, which gives each GPU an {@code index}).
     */
    public static final String GPU_RESOURCE = "gpu";

    private final TrainerConfig config;
    private FaultInjector faults = FaultInjector.NONE;

    private transient TrainerCheckpoint checkpoint;

    /**
     * The feature normalisation decided on the node topic, from its {@link
     * MiniBatchPart#FEATURE_NORMALIZATION} record (sent again after every restore); null until then
     * or when the config states it.
     */
    private transient String featureNormalization;

    /** This task's job incarnation and the last checkpoint it snapshotted or restored from. */
    private transient long incarnation;

    private transient long lastCheckpoint;

    /**
     * A pending step of the rank's snapshot that the further replica it took at the restore had
     * applied: its batch is finished at open, without its sum.
     */
    private transient PendingStep caughtUp;

    private transient ReplicaSteps work;
    private transient Counter layerRowsSent;
    private transient LayerOutputSender layerOutputs;
    private transient GradientExchange exchange;
    private transient long exchangeStartNanos;

    /**
     * When (processing time) the pending step's gradient was last sent or a reduced chunk of it
     * arrived.
     */
    private transient long exchangeActiveAt;

    private transient GnnModel model;

    /** {@link GnnModel#deviceKind()} of {@link #model}, named by every chunk this rank sends. */
    private transient String deviceKind;

    private transient TrainerProgress progress;

    /** The parameters kept for the report, the export and the served predictions. */
    private transient ModelSelection selection;

    private transient TrainerRank sequence;
    private transient PartialBatches partials;
    private transient TrainerFeatureCache featureCache;
    private transient Counter unresolvedParts;
    private transient long lastInputNanos;
    private transient RankReport report;
    private transient StepRunner<ReplicaSteps.Outcome> steps;

    /** Set while the operator needs the model at rest (a checkpoint, an export): no step starts. */
    private transient boolean holdSteps;

    private transient int rank;

    private transient Counter foreignParts;

    public TrainerOperator(TrainerConfig config) {
        this.config = config;
    }

    /**
     * Makes this operator fail once as {@code faults} says (failure-injection tests; counts steps).
     */
    public TrainerOperator withFaults(FaultInjector faults) {
        this.faults = faults;
        return this;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        incarnation = JobIncarnation.of(getRuntimeContext());
        lastCheckpoint = context.getRestoredCheckpointId().orElse(0);
        rank = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        Nd4jThreads.configure(config.threads);
        checkpoint = new TrainerCheckpoint(context.getOperatorStateStore());
        TrainerCheckpoint.Restored restored;
        try {
            restored =
                    checkpoint.restore(
                            rank,
                            config.scale.trainers(),
                            config.model,
                            context.isRestored(),
                            models());
        } catch (GpuUnavailableException e) {
            // A restart would find the same library, driver and devices: fail the job once.
            throw new SuppressRestartsException(e);
        }
        model = restored.model();
        deviceKind = model.deviceKind();
        if (config.device().cuda()) {
            LOG.info("rank {} runs on {} ({})", rank, deviceKind, config.device());
        }
        progress = restored.progress();
        // State written before the applied step was kept has 0 there: the model's step is it, and
        // a round of a step above it is the serving round (TrainerRank.serving).
        progress.appliedStep = Math.max(progress.appliedStep, model.step());
        selection = new ModelSelection(config.select(), progress, restored.bestParameters());
        partials = new PartialBatches();
        featureCache = new TrainerFeatureCache(config.featureCacheSlots, config.model.inFeatures());
        exchange =
                new GradientExchange(
                        rank,
                        config.model.numParameters(),
                        config.scale.reducers(),
                        progress.layout);
        work =
                new ReplicaSteps(
                        model,
                        config.model.numParameters(),
                        new InferenceRound(
                                        config.model,
                                        config.predictions,
                                        config.embeddings,
                                        config.keepsHiddenRows(),
                                        config.partitioner(),
                                        config.storeParallelism())
                                .withFeatureSums(config.sendsPins()),
                        rank,
                        config.scale.trainers(),
                        config.compute);
        sequence =
                new TrainerRank(
                        rank,
                        progress,
                        restored.own() ? checkpoint.buffered() : List.of(),
                        !restored.own());
        if (restored.own()) {
            for (MiniBatchPart p : checkpoint.partials()) {
                partials.accept(p, featureCache);
            }
            for (PendingStep p : checkpoint.pending()) {
                if (p.selection || p.step > progress.appliedStep) {
                    exchange.restore(p);
                } else {
                    caughtUp = p; // taken with a further replica: its batch is done at open
                }
            }
            if (restored.fromRank() != rank) {
                LOG.info(
                        "rank {} of {}: restored a step behind, continues from rank {}'s replica"
                                + " at step {}",
                        rank,
                        config.scale.trainers(),
                        restored.fromRank(),
                        progress.appliedStep);
            }
        } else {
            LOG.info(
                    "rank {} of {}: restored from {} checkpointed ranks at step {} (rank {}'s"
                            + " replica), layout {}",
                    rank,
                    config.scale.trainers(),
                    restored.fromRanks(),
                    progress.layoutStep,
                    restored.fromRank(),
                    progress.layout);
            if (selection.joinsFinalExchange(rank, config.scale.trainers(), config.maxSteps())) {
                // Sent when the operator opens, as a restored pending step.
                exchange.restore(selectionStep(config.maxSteps()));
            }
        }
    }

    /**
     * The factory of this rank's models: on the configured device, else the TaskManager's GPU, else
     * GPU {@code rank mod n} of the n this process sees.
     */
    private ModelFactory models() {
        Device device = config.device();
        if (!device.cuda()) {
            return ModelFactory.CPU;
        }
        return ModelFactory.of(
                device,
                assignedGpu(getRuntimeContext().getExternalResourceInfos(GPU_RESOURCE), rank),
                rank);
    }

    /**
     * The GPU of Flink's external resource {@link #GPU_RESOURCE} this rank opens, or -1 when the
     * TaskManager has none. Flink gives every slot of a TaskManager all of its GPUs (the {@code
     * index} property Flink's GPU driver sets): rank {@code rank} takes the {@code rank mod n}-th
     * of the n indices in ascending order, so one GPU per TaskManager is that GPU, and ranks on a
     * TaskManager of several GPUs spread over them.
     */
    static int assignedGpu(Set<ExternalResourceInfo> infos, int rank) {
        List<Integer> indices = new ArrayList<>();
        for (ExternalResourceInfo info : infos) {
            String index = info.getProperty("index").orElse("").trim();
            if (!index.isEmpty()
                    && index.length() <= 9
                    && index.chars().allMatch(Character::isDigit)) {
                indices.add(Integer.parseInt(index));
            }
        }
        return Device.pick(indices, rank);
    }

    @Override
    public void open() throws Exception {
        super.open();
        lastInputNanos = System.nanoTime();
        unresolvedParts = getMetricGroup().counter("unresolvedFeatureParts");
        foreignParts = getMetricGroup().counter("foreignParts");
        layerRowsSent = getMetricGroup().counter("layerRowsSent");
        report =
                new RankReport(
                        rank,
                        config.scale.trainers(),
                        config.logEvery,
                        model,
                        progress,
                        line -> output.collect(METRICS, new StreamRecord<>(line)));
        if (selection.bestVal()) {
            report.withSelect(selection.mode().id()).withServingRound(config.servingRound());
        }
        MailboxExecutor mailbox =
                getContainingTask()
                        .getMailboxExecutorFactory()
                        .createExecutor(getOperatorConfig().getChainIndex());
        steps = new StepRunner<>("gnnstream-trainer-" + rank + "-steps", mailbox, this::onStepDone);
        layerOutputs =
                new LayerOutputSender(
                        getContainingTask().getEnvironment().getAllWriters(),
                        mailbox,
                        o ->
                                output.collect(
                                        LAYER_OUTPUTS, new StreamRecord<>(GraphStoreInput.of(o))),
                        this::startNextStep);
        exchangeActiveAt = getProcessingTimeService().getCurrentProcessingTime();
        sendGradient(exchange.chunks());
        Credit announcement = sequence.startCredit();
        if (announcement != null) {
            output.collect(new StreamRecord<>(announcement));
        }
        if (caughtUp != null) {
            PendingStep p = caughtUp;
            caughtUp = null;
            stepDone(p.seq, p.step, p.roundSize, p.roundShare, p.finalRound);
        }
        startNextStep();
        scheduleCreditResend();
        scheduleHeartbeat();
        scheduleAllReduceResend(
                getProcessingTimeService().getCurrentProcessingTime() + ALL_REDUCE_RESEND_MS / 4);
    }

    /**
     * Finishes the step in flight before the barrier goes downstream, so that its credit and
     * metrics line belong to the checkpoint that holds its model; no new step starts until the
     * snapshot.
     */
    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        pauseSteps();
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        pauseSteps();
        // After the step in flight: its outputs belong to the state this snapshot holds.
        lastCheckpoint = context.getCheckpointId();
        checkpoint.snapshot(
                new TrainerReplica(
                        rank,
                        config.scale.trainers(),
                        model.snapshot(),
                        progress,
                        selection.best()),
                sequence.waiting(),
                partials.parts(featureCache),
                exchange.pending());
        resumeSteps();
    }

    /** A checkpoint aborted between its barrier and its snapshot must not leave the steps held. */
    @Override
    public void notifyCheckpointAborted(long checkpointId) throws Exception {
        super.notifyCheckpointAborted(checkpointId);
        resumeSteps();
    }

    /** At the end of input (bounded runs) every batch that is complete is still trained on. */
    @Override
    public void finish() throws Exception {
        while (steps != null && steps.busy()) {
            steps.await();
        }
        super.finish();
    }

    @Override
    public void close() throws Exception {
        if (steps != null) {
            steps.close();
        }
        if (model != null) {
            model.close();
        }
        super.close();
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        if (config.modelOut != null && !progress.finished) {
            pauseSteps();
            exportModel(false);
            resumeSteps();
        }
    }

    @Override
    public void processElement1(StreamRecord<MiniBatchPart> element) throws Exception {
        lastInputNanos = System.nanoTime();
        MiniBatchPart part = element.getValue();
        if (part.part == MiniBatchPart.FEATURE_NORMALIZATION) {
            featureNormalization = part.numParts == 1 ? "sum" : "none";
            return;
        }
        TrainerRank.Arrival arrival =
                sequence.arrival(part.address(), steps.busy() || stepPending());
        if (arrival == TrainerRank.Arrival.FOREIGN) {
            // Its cache slots are another directory's.
            foreignParts.inc();
            return;
        }
        MiniBatch batch = null;
        if (!featureCache.holdsAll(part)) {
            unresolvedParts.inc();
            LOG.warn(
                    "rank {} dropped a feature part of {}: it names cache slots this rank does not"
                            + " hold",
                    rank,
                    part.address());
        } else if (arrival == TrainerRank.Arrival.WANTED) {
            batch = partials.accept(part, featureCache);
        }
        partials.beforeFills(part, featureCache);
        featureCache.storeFills(part);
        if (batch != null) {
            if (batch.isTraining()) {
                report.window().addTraffic(batch);
            }
            sequence.buffer(batch);
            startNextStep();
        }
    }

    /** A reduced gradient chunk: once the pending step has all of them, its update is applied. */
    @Override
    public void processElement2(StreamRecord<ReducedChunk> element) throws Exception {
        int before = exchange.receivedChunks();
        float[] mean = exchange.accept(element.getValue());
        if (exchange.receivedChunks() != before) {
            exchangeActiveAt = getProcessingTimeService().getCurrentProcessingTime();
        }
        if (mean != null) {
            PendingStep step = exchange.pending();
            // The sum carries every rank's counts of the round before the step: decide on it while
            // the replica still holds that round's parameters.
            long[] val = exchange.roundValidation();
            if (step.selection) {
                pauseSteps(); // blocks of the final round's hidden passes may still run
                selection.offer(step.step - 1, val[0], val[1], model::parameterVector);
                exchange.complete();
                finishTraining();
                resumeSteps();
                return;
            }
            selection.offer(step.step - 1, val[0], val[1], model::parameterVector);
            report.window().addAllReduce(System.nanoTime() - exchangeStartNanos);
            steps.submit(() -> work.apply(step, mean));
        }
    }

    /**
     * Starts the model step of the next batch in sequence, if it is here and no step is running.
     */
    private void startNextStep() {
        if (holdSteps || steps.busy() || stepPending() || !layerOutputs.isEmpty()) {
            return;
        }
        MiniBatch batch = sequence.takeNext();
        if (batch != null && sequence.appliedAlready(batch)) {
            partials.recycle(batch.features);
            try {
                // Taken with a further replica at the restore: done without training.
                stepDone(
                        batch.seq, batch.step, batch.roundSize, batch.roundShare, batch.finalRound);
            } catch (Exception e) {
                throw new FlinkRuntimeException(e);
            }
            return;
        }
        if (batch != null) {
            // The serving round computes with the kept parameters (decided: takeNext holds its
            // blocks while the final selection exchange runs).
            float[] kept = sequence.serving(batch) ? selection.best() : null;
            steps.submit(() -> work.compute(batch, kept));
        }
    }

    /**
     * A training step waits for its reduced gradient. A selection exchange holds nothing up: a rank
     * whose share of the final round's last pass is empty begins it at once, while its blocks of
     * the hidden passes, which the other ranks' shares need, are still to come.
     */
    private boolean stepPending() {
        return exchange.pending() != null && !exchange.pending().selection;
    }

    /** Bookkeeping and output of a finished step, on the task thread; then the next step. */
    private void onStepDone(ReplicaSteps.Outcome done) throws Exception {
        MiniBatch batch = done.batch();
        if (batch != null && done.pending() != null) {
            // Gradient computed: send it and wait for the sums; the batch's matrices are free
            // again.
            partials.recycle(batch.features);
            long[] val = selection.contribution(done.pending().step);
            done.pending().valCorrect = val[0];
            done.pending().valTotal = val[1];
            exchangeStartNanos = System.nanoTime();
            exchangeActiveAt = getProcessingTimeService().getCurrentProcessingTime();
            sendGradient(exchange.begin(done.pending()));
            return;
        }
        if (done.pending() != null) {
            // Reduced update applied.
            PendingStep p = done.pending();
            exchange.complete();
            report.window()
                    .addStep(
                            p.loss,
                            p.correct,
                            p.seeds,
                            p.sampledEdges,
                            p.graphVertices,
                            p.graphEdgesIngested,
                            p.computeNanos + done.nanos());
            report.window().placement(p.graphReplicas, p.graphCutEdgesIngested);
            stepDone(p.seq, p.step, p.roundSize, p.roundShare, p.finalRound);
            return;
        }
        if (batch.isTraining()) {
            report.trained(done.train(), batch, done.nanos());
        } else {
            report.evaluated(done.nanos());
        }
        partials.recycle(batch.features);
        if (batch.isTraining()) {
            stepDone(batch.seq, batch.step, batch.roundSize, batch.roundShare, batch.finalRound);
        } else {
            if (done.inferred() != null) {
                for (LayerOutputs outputs : done.inferred().outputs()) {
                    layerRowsSent.inc(outputs.isFeatureSums() ? 0 : outputs.vertices.length);
                }
                sendOutputs(done.inferred().outputs());
                if (done.inferred().predictions() != null) {
                    output.collect(PREDICTIONS, new StreamRecord<>(done.inferred().predictions()));
                }
            }
            evaluated(batch, done.eval());
            finishBatch(batch.seq);
        }
    }

    /** A training step is complete: its metrics line (or the start of an evaluation round). */
    private void stepDone(long seq, long step, int roundSize, int roundShare, boolean finalRound)
            throws Exception {
        faults.check("trainer", rank, step);
        sequence.applied(step);
        report.stepApplied(step, roundSize > 0);
        if (roundSize > 0 && sequence.roundBegins(step, roundShare)) {
            roundComplete(step, finalRound);
        }
        finishBatch(seq);
    }

    private void finishBatch(long seq) {
        output.collect(new StreamRecord<>(sequence.finish(seq)));
        startNextStep();
    }

    private void sendGradient(List<GradientChunk> chunks) {
        for (GradientChunk chunk : chunks) {
            chunk.device = deviceKind;
            output.collect(GRADIENTS, new StreamRecord<>(chunk));
        }
    }

    /**
     * Feature parts dropped because they named cache slots this trainer does not hold, for tests.
     */
    long unresolvedFeatureParts() {
        return unresolvedParts.getCount();
    }

    /** Parts dropped because they named another rank, for tests. */
    long foreignParts() {
        return foreignParts.getCount();
    }

    /** The replica's parameters, for tests. */
    float[] parameters() {
        return model.parameterVector();
    }

    /** The parameters {@code --select} keeps (the best round's, or the replica's), for tests. */
    float[] keptParameters() {
        return selection.best() != null ? selection.best() : model.parameterVector();
    }

    /** True while a model step runs or its outcome waits in the mailbox. */
    boolean stepInFlight() {
        return steps.busy();
    }

    /**
     * Runs the step in flight to its end and starts no new one: the model and progress are at rest.
     */
    private void pauseSteps() throws Exception {
        holdSteps = true;
        steps.await();
    }

    private void resumeSteps() {
        holdSteps = false;
        startNextStep();
    }

    private void evaluated(MiniBatch batch, EvalResult r) throws Exception {
        boolean scored = batch.layer == 0 || batch.layer == config.model.numLayers();
        if (sequence.evaluated(batch, r, scored)) {
            roundComplete(batch.step, batch.finalRound);
        }
    }

    /** This rank has scored its share of the round of {@code step}: its evaluation line. */
    private void roundComplete(long step, boolean finalRound) throws Exception {
        if (sequence.servingRound(step)) {
            servingComplete(step);
            return;
        }
        boolean alone = sequence.alone(step);
        // The final round again after a restore at another count: the other ranks joined the
        // selection exchange at their start (ModelSelection.joinsFinalExchange), which decides it.
        boolean exchanged = finalRound && selection.bestVal() && config.scale.trainers() > 1;
        if ((config.scale.trainers() == 1 || alone && !exchanged) && !progress.finished) {
            // This rank's counts are the round's.
            selection.offer(step, progress.valCorrect, progress.valTotal, model::parameterVector);
        }
        report.roundComplete(step, finalRound, alone);
        if (config.sendsPins()) {
            sendOutputs(
                    LayerOutputs.pins(
                            step,
                            rank,
                            sequence.roundRanks(step, config.scale.trainers()),
                            rank == 0 ? model.parameterVector() : null,
                            storeRoutes()));
        }
        if (finalRound && !progress.finished) {
            if (exchanged) {
                beginSelection(step);
            } else {
                finishTraining();
            }
        }
    }

    /**
     * Queues {@code records} for the GraphStore, stamped for its lineage ({@code store.Lineage})
     * with the checkpoint before they were made: one queued before a barrier and sent after it
     * belongs to the state that checkpoint holds, which will not make it again.
     */
    private void sendOutputs(Iterable<LayerOutputs> records) {
        for (LayerOutputs o : records) {
            o.incarnation = incarnation;
            o.checkpoint = lastCheckpoint;
        }
        layerOutputs.send(records);
    }

    /**
     * Rank 0 has computed the serving round of {@code step} (the step after the final one) with the
     * kept parameters: its line names the step whose model serves, which the merger's final line
     * reports, and its pin records carry the kept parameters, to which incremental predictions are
     * pinned from then on. It decides no selection.
     */
    private void servingComplete(long step) {
        long served = selection.best() != null ? selection.selectedStep() : model.step();
        report.servingComplete(step, served, GnnModel.checksumOf(keptParameters()));
        if (config.sendsPins()) {
            sendOutputs(
                    LayerOutputs.pins(
                            step,
                            rank,
                            sequence.roundRanks(step, config.scale.trainers()),
                            rank == 0 ? keptParameters() : null,
                            storeRoutes()));
        }
    }

    /**
     * After the final round of {@code step} with {@code --select best-val}: no step follows to
     * carry the round's counts, so the ranks all-reduce a zero gradient of step {@code step + 1}
     * with them (checkpointed and sent again like a step's); its sum is not applied but decides the
     * selection, and then the training finishes ({@link #processElement2}).
     */
    private void beginSelection(long step) {
        PendingStep p = selectionStep(step);
        exchangeStartNanos = System.nanoTime();
        exchangeActiveAt = getProcessingTimeService().getCurrentProcessingTime();
        sendGradient(exchange.begin(p));
    }

    /**
     * The selection exchange after the final round of {@code step}, with this rank's counts of it
     * (none for a rank that joins it at its start); the rank is {@code selecting} from now on.
     */
    private PendingStep selectionStep(long step) {
        PendingStep p = new PendingStep();
        p.step = step + 1;
        p.seq = progress.nextSeq;
        p.grad = new float[config.model.numParameters()];
        p.selection = true;
        p.valCorrect = progress.roundStep == step ? progress.valCorrect : 0;
        p.valTotal = progress.roundStep == step ? progress.valTotal : 0;
        progress.selecting = true;
        return p;
    }

    /** The final round is done and the selection decided: the final export. */
    private void finishTraining() throws Exception {
        progress.selecting = false;
        progress.finished = true;
        exportModel(true);
    }

    /** The route (first partition) of every GraphStore subtask. */
    private int[] storeRoutes() {
        if (config.partitioner() == null) {
            return new int[] {0};
        }
        StoreSites sites =
                new StoreSites(config.partitioner().numPartitions(), config.storeParallelism());
        int[] routes = new int[config.storeParallelism()];
        for (int s = 0; s < routes.length; s++) {
            routes[s] = sites.holderOfSite(s);
        }
        return routes;
    }

    private void exportModel(boolean force) throws Exception {
        if (config.modelOut == null || rank != 0 || (!force && progress.finished)) {
            return;
        }
        String normalization =
                config.featureNormalization() != null
                        ? config.featureNormalization()
                        : featureNormalization;
        float[] best = selection.best();
        if (best == null) {
            NpyExport.export(
                    model,
                    Path.of(config.modelOut),
                    config.evalFanout(),
                    normalization,
                    Map.of("rank", rank, "next_seq", progress.nextSeq));
            return;
        }
        // --select best-val: the kept round's parameters, under its step.
        ModelState state = model.snapshot();
        state.step = selection.selectedStep();
        try (GnnModel kept = GnnModel.restore(config.model, state)) {
            kept.setParameterVector(best);
            NpyExport.export(
                    kept,
                    Path.of(config.modelOut),
                    config.evalFanout(),
                    normalization,
                    Map.of(
                            "rank",
                            rank,
                            "next_seq",
                            progress.nextSeq,
                            "select",
                            selection.mode().id(),
                            "last_step",
                            model.step()));
        }
    }

    /**
     * Sends a heartbeat through the all-reduce loop every {@link #HEARTBEAT_MS}. The loop's head
     * emits a checkpoint barrier only after a record arrives on the feedback edge, and the edges
     * into this operator are checkpointed aligned (Flink aligns pointwise edges even in unaligned
     * checkpoints): without records on the feedback edge (one rank, or ranks waiting for batches) a
     * checkpoint would hold this operator's inputs blocked for good.
     */
    private void scheduleHeartbeat() {
        long now = getProcessingTimeService().getCurrentProcessingTime();
        getProcessingTimeService()
                .registerTimer(
                        now + HEARTBEAT_MS,
                        t -> {
                            output.collect(
                                    GRADIENTS,
                                    new StreamRecord<>(GradientChunk.heartbeat(rank, deviceKind)));
                            scheduleHeartbeat();
                        });
    }

    private void scheduleAllReduceResend(long at) {
        getProcessingTimeService()
                .registerTimer(
                        at,
                        t -> {
                            long quiet = t - exchangeActiveAt;
                            if (exchange.waiting() && quiet >= ALL_REDUCE_RESEND_MS) {
                                LOG.warn(
                                        "rank {}: step {} has {} of {} reduced chunks and none"
                                                + " arrived for {} ms; sending its gradient again",
                                        rank,
                                        exchange.pending().step,
                                        exchange.receivedChunks(),
                                        exchange.numChunks(),
                                        quiet);
                                exchangeActiveAt = t;
                                sendGradient(exchange.chunks());
                            }
                            scheduleAllReduceResend(t + ALL_REDUCE_RESEND_MS / 4);
                        });
    }

    private void scheduleCreditResend() {
        long now = getProcessingTimeService().getCurrentProcessingTime();
        getProcessingTimeService()
                .registerTimer(
                        now + config.creditResendMs,
                        t -> {
                            if (System.nanoTime() - lastInputNanos
                                    >= config.creditResendMs * 1_000_000L) {
                                output.collect(new StreamRecord<>(sequence.current()));
                            }
                            scheduleCreditResend();
                        });
    }
}

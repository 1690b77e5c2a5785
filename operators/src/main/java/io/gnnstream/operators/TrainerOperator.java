package io.gnnstream.operators;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gnnstream.operators.internal.InferenceRound;
import io.gnnstream.operators.internal.LayerOutputSender;
import io.gnnstream.operators.internal.MetricsWindow;
import io.gnnstream.operators.internal.PartialBatches;
import io.gnnstream.operators.internal.PendingStep;
import io.gnnstream.operators.internal.RankLine;
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
import io.gnnstream.operators.model.Gradients;
import io.gnnstream.operators.model.Nd4jThreads;
import io.gnnstream.operators.model.NpyExport;
import io.gnnstream.operators.model.TrainResult;
import io.gnnstream.operators.schedule.GradientExchange;
import io.gnnstream.operators.schedule.TrainerRank;
import io.gnnstream.operators.serialization.GraphStoreInputSerializer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.OutputTag;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One trainer rank: trains its replica of the model on the rank's mini-batches, strictly in
 * sequence order, and keeps it identical to the other ranks' by an all-reduce of gradients.
 *
 * <p>Batches arrive as {@link MiniBatchPart}s: the head from the assembler and the feature parts
 * straight from the GraphStore subtasks, in any order, and are joined by {@link PartialBatches},
 * which copies the rows a part names by cache slot from the {@link TrainerFeatureCache}; then the
 * cache stores the rows the part brings. A part naming slots the cache does not hold (sent before a
 * restore) is dropped and counted, and its batch comes again. Once whole, batches are buffered
 * until their {@code seq} is next, so the sequence of updates is the scheduler's, whatever the
 * timing. Training batches update the model. Evaluation rounds are layer-wise inference with the
 * model of the step they follow, spread over the ranks: one-hop blocks in layer order ({@link
 * InferenceRound}); a hidden layer's outputs go to the GraphStore's layer-output store ({@link
 * #LAYER_OUTPUTS}), where the next layer's blocks read them; blocks of the last layer are scored
 * and give the predictions of their vertices ({@link #PREDICTIONS}, one record per block), and when
 * the rank's share of them is done ({@code roundShare}) its metrics line with validation and test
 * counts is emitted. After every batch a {@link Credit} (absolute progress) goes back to the
 * scheduler through the feedback edge; it is re-sent while the trainer is idle, because credits in
 * flight are not part of a checkpoint.
 *
 * <p>Model steps run on a thread of their own ({@link StepRunner}), one at a time, so the task
 * thread keeps taking in the parts of the next batches while the model computes and the sampling
 * loop is never blocked by the trainer; everything else (bookkeeping, state, output) stays on the
 * task thread. A checkpoint lets the step in flight finish before its barrier goes downstream (at
 * most one step of delay), so the step's credit and metrics line precede the barrier, and snapshots
 * the model after it; no step runs between the barrier and the snapshot.
 *
 * <p>Checkpointed: every rank's {@link TrainerReplica} (model and optimizer state, progress
 * bookkeeping) in union list state ({@link TrainerCheckpoint}), and per rank the tables of an
 * evaluation round in progress, the pending step, the buffered batches and the parts of incomplete
 * ones (a checkpoint can fall between the parts of a batch: those before it are state, those after
 * it are in flight or are sent again). At the checkpoint's trainer count each rank restores its
 * own; at another count every rank starts from the replica of the furthest step any old rank
 * applied, drops the rest, numbers its batches in a new layout ({@code RankLayout}) and announces
 * that step to the scheduler in its first credit (docs/design.md, "Checkpoints and restore",
 * "Another trainer count"). Parts addressed to another rank (of a rank that no longer exists) are
 * dropped. Metrics lines (JSON) leave through side output {@link #METRICS}.
 *
 * <p>All-reduce (more than one rank): a training step computes the gradient of the rank's summed
 * loss and sends it in chunks ({@link #GRADIENTS}) to the {@link GradientReducer}s, which sum the
 * ranks' chunks in rank order and send every rank the sums through the third iteration's feedback
 * edge (input 2). When all chunks of the step are in, the rank divides by the step's total seed
 * count and applies the same Adam update as every other rank, so replicas stay bit-identical; only
 * then does the step count as done (credit, next batch). A single rank applies its own gradient.
 *
 * <p>The protocol survives the loss of the feedback edge's records at a failure, without ever
 * waiting for the feedback in a checkpoint (the feedback arrives on this task's own thread): the
 * step waiting for its reduced gradient ({@link PendingStep}, with its gradient) is part of the
 * checkpoint, and a restored rank sends that gradient again. Reducers drop contributions they hold
 * and answer contributions of a step they have summed with the sum again; a rank ignores reduced
 * chunks of any step but its pending one. Ranks are never more than one step apart (a step's sum
 * needs every rank's gradient, which a rank computes only after applying the previous step), so
 * every rank restored from one checkpoint reaches the same step with the same parameters.
 *
 * <p>Metrics leave as per-rank lines ({@link #METRICS}: raw sums, the parameter checksum) that
 * {@link MetricsMerger} combines into one line per step. See docs/design.md, "Trainer" and
 * "Checkpoints and restore", "Trainer".
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

    private final TrainerConfig config;
    private FaultInjector faults = FaultInjector.NONE;

    private transient TrainerCheckpoint checkpoint;
    private transient InferenceRound inference;
    private transient Counter layerRowsSent;
    private transient LayerOutputSender layerOutputs;
    private transient long roundStartNanos;
    private transient long roundComputeNanos;
    private transient GradientExchange exchange;
    private transient long exchangeStartNanos;

    /**
     * When (processing time) the pending step's gradient was last sent or a reduced chunk of it
     * arrived.
     */
    private transient long exchangeActiveAt;

    private transient GnnModel model;
    private transient TrainerProgress progress;
    private transient TrainerRank sequence;
    private transient PartialBatches partials;
    private transient TrainerFeatureCache featureCache;
    private transient Counter unresolvedParts;
    private transient long startNanos;
    private transient long lastInputNanos;
    private transient MetricsWindow window;
    private transient StepRunner<StepOutcome> steps;

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
        rank = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        Nd4jThreads.configure(config.threads);
        checkpoint = new TrainerCheckpoint(context.getOperatorStateStore());
        TrainerCheckpoint.Restored restored =
                checkpoint.restore(rank, config.trainers, config.model, context.isRestored());
        model = restored.model();
        progress = restored.progress();
        partials = new PartialBatches();
        featureCache = new TrainerFeatureCache(config.featureCacheSlots, config.model.inFeatures());
        exchange =
                new GradientExchange(
                        rank, config.model.numParameters(), config.reducers, progress.layout);
        inference =
                new InferenceRound(
                        config.model,
                        config.predictions,
                        config.embeddings,
                        config.partitioner(),
                        config.storeParallelism());
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
                exchange.restore(p);
            }
        } else {
            LOG.info(
                    "rank {} of {}: restored from {} checkpointed ranks at step {} (rank {}'s"
                            + " replica), layout {}",
                    rank,
                    config.trainers,
                    restored.fromRanks(),
                    progress.layoutStep,
                    restored.fromRank(),
                    progress.layout);
        }
    }

    @Override
    public void open() throws Exception {
        super.open();
        startNanos = System.nanoTime();
        lastInputNanos = startNanos;
        unresolvedParts = getMetricGroup().counter("unresolvedFeatureParts");
        foreignParts = getMetricGroup().counter("foreignParts");
        layerRowsSent = getMetricGroup().counter("layerRowsSent");
        roundStartNanos = startNanos;
        window = new MetricsWindow(startNanos);
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
        checkpoint.snapshot(
                new TrainerReplica(rank, config.trainers, model.snapshot(), progress),
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
        while (steps.busy()) {
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
        if (part.trainer != rank) {
            // Of a rank that no longer exists, for a batch begun before a restore at fewer ranks:
            // its
            // cache slots are another directory's.
            foreignParts.inc();
            return;
        }
        MiniBatch batch = null;
        if (!featureCache.holdsAll(part)) {
            unresolvedParts.inc();
            LOG.warn(
                    "rank {} dropped a feature part of batch {} (seq {}): it names cache slots this"
                            + " rank does not hold",
                    rank,
                    part.batchId,
                    part.seq);
        } else if (!alreadyHave(part.seq)) {
            batch = partials.accept(part, featureCache);
        }
        partials.beforeFills(part, featureCache);
        featureCache.storeFills(part);
        if (batch != null) {
            if (batch.isTraining()) {
                window.addTraffic(batch);
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
            window.addAllReduce(System.nanoTime() - exchangeStartNanos);
            steps.submit(
                    () -> {
                        long begin = System.nanoTime();
                        model.applyGradients(mean);
                        return new StepOutcome(
                                null, step, null, null, null, System.nanoTime() - begin);
                    });
        }
    }

    /**
     * True when the batch of {@code seq} was trained on, is buffered, is in the step running or
     * waits for its reduced gradient.
     */
    private boolean alreadyHave(long seq) {
        return sequence.alreadyHave(seq, steps.busy() || exchange.pending() != null);
    }

    /**
     * Starts the model step of the next batch in sequence, if it is here and no step is running.
     */
    private void startNextStep() {
        if (holdSteps || steps.busy() || exchange.pending() != null || !layerOutputs.isEmpty()) {
            return;
        }
        MiniBatch batch = sequence.takeNext();
        if (batch != null) {
            steps.submit(() -> compute(batch));
        }
    }

    /**
     * The model work of one batch; runs on the step thread and touches nothing but the model.
     * Running out of heap fails the task with what the rank was doing, so that the job's failure
     * names it.
     */
    private StepOutcome compute(MiniBatch batch) {
        try {
            return computeStep(batch);
        } catch (OutOfMemoryError e) {
            throw new IllegalStateException(
                    "trainer rank "
                            + rank
                            + " ran out of heap in "
                            + (batch.layer > 0
                                    ? "the evaluation round of step "
                                            + batch.step
                                            + " (layer "
                                            + batch.layer
                                            + ")"
                                    : "training step " + batch.step)
                            + ": "
                            + e.getMessage(),
                    e);
        }
    }

    private StepOutcome computeStep(MiniBatch batch) {
        long begin = System.nanoTime();
        TrainResult train = null;
        EvalResult eval = null;
        PendingStep pending = null;
        InferenceRound.Outcome inferred = null;
        if (batch.layer > 0 && config.compute) {
            inferred = inference.compute(model, batch);
            eval = inferred.eval();
        } else if (batch.isTraining() && config.trainers > 1) {
            pending = gradientStep(batch);
        } else if (batch.isTraining()) {
            train =
                    config.compute
                            ? model.trainStep(batch)
                            : new TrainResult(0, 0, batch.numSeeds());
        } else if (batch.numSeeds() > 0 && config.compute) {
            eval = model.evaluate(batch);
        }
        long nanos = System.nanoTime() - begin;
        if (pending != null) {
            pending.computeNanos = nanos;
        }
        return new StepOutcome(batch, pending, train, eval, inferred, nanos);
    }

    /**
     * The gradient of the batch's summed loss, ready for the all-reduce; runs on the step thread.
     */
    private PendingStep gradientStep(MiniBatch batch) {
        PendingStep p = new PendingStep();
        if (config.compute && batch.numSeeds() > 0) {
            Gradients g = model.computeGradients(batch);
            p.grad = g.grad();
            float weight = g.numSeeds();
            for (int i = 0; i < p.grad.length; i++) {
                p.grad[i] *= weight;
            }
            p.seeds = g.numSeeds();
            p.loss = g.loss();
            p.correct = g.correct();
        } else {
            p.grad = new float[config.model.numParameters()];
        }
        p.step = batch.step;
        p.seq = batch.seq;
        p.sampledEdges = MetricsWindow.sampledEdges(batch);
        p.graphVertices = batch.graphVertices;
        p.graphEdgesIngested = batch.graphEdgesIngested;
        p.graphReplicas = batch.graphReplicas;
        p.graphCutEdgesIngested = batch.graphCutEdgesIngested;
        p.roundSize = batch.roundSize;
        p.roundShare = batch.roundShare;
        p.finalRound = batch.finalRound;
        return p;
    }

    /** Bookkeeping and output of a finished step, on the task thread; then the next step. */
    private void onStepDone(StepOutcome done) throws Exception {
        MiniBatch batch = done.batch;
        if (batch != null && done.pending != null) {
            // Gradient computed: send it and wait for the sums; the batch's matrices are free
            // again.
            partials.recycle(batch.features);
            exchangeStartNanos = System.nanoTime();
            exchangeActiveAt = getProcessingTimeService().getCurrentProcessingTime();
            sendGradient(exchange.begin(done.pending));
            return;
        }
        if (done.pending != null) {
            // Reduced update applied.
            PendingStep p = done.pending;
            exchange.complete();
            window.addStep(
                    p.loss,
                    p.correct,
                    p.seeds,
                    p.sampledEdges,
                    p.graphVertices,
                    p.graphEdgesIngested,
                    p.computeNanos + done.nanos);
            window.placement(p.graphReplicas, p.graphCutEdgesIngested);
            stepDone(p.seq, p.step, p.roundSize, p.roundShare, p.finalRound);
            return;
        }
        if (batch.isTraining()) {
            window.addStep(done.train, batch, done.nanos);
        } else {
            window.addBusy(done.nanos);
            roundComputeNanos += done.nanos;
        }
        partials.recycle(batch.features);
        if (batch.isTraining()) {
            stepDone(batch.seq, batch.step, batch.roundSize, batch.roundShare, batch.finalRound);
        } else {
            if (done.inferred != null) {
                for (LayerOutputs outputs : done.inferred.outputs()) {
                    layerRowsSent.inc(outputs.vertices.length);
                }
                layerOutputs.send(done.inferred.outputs());
                if (done.inferred.predictions() != null) {
                    output.collect(PREDICTIONS, new StreamRecord<>(done.inferred.predictions()));
                }
            }
            evaluated(batch, done.eval);
            finishBatch(batch.seq);
        }
    }

    /** A training step is complete: its metrics line (or the start of an evaluation round). */
    private void stepDone(long seq, long step, int roundSize, int roundShare, boolean finalRound)
            throws Exception {
        faults.check("trainer", rank, step);
        if (progress.firstStepNanos == 0) {
            progress.firstStepNanos = Math.max(1, System.nanoTime() - startNanos);
        }
        sequence.applied(step);
        if (roundSize > 0) {
            roundStartNanos = System.nanoTime();
            if (sequence.roundBegins(step, roundShare)) {
                roundComplete(step, finalRound);
            }
        } else if (step % Math.max(1, config.logEvery) == 0) {
            emit(
                    rankLine(
                            RankLine.train(
                                    rank,
                                    config.trainers,
                                    step,
                                    elapsedSeconds(),
                                    model.checksum())));
        }
        finishBatch(seq);
    }

    private void finishBatch(long seq) {
        output.collect(new StreamRecord<>(sequence.finish(seq)));
        startNextStep();
    }

    private void sendGradient(List<GradientChunk> chunks) {
        for (GradientChunk chunk : chunks) {
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
        sequence.inRound(batch.step);
        if (r != null) {
            if (batch.kind == MiniBatch.Kind.EVAL_VAL) {
                progress.valCorrect += r.correct();
                progress.valTotal += r.numSeeds();
                progress.valLoss += r.lossSum();
            } else {
                progress.testCorrect += r.correct();
                progress.testTotal += r.numSeeds();
                progress.testLoss += r.lossSum();
            }
        }
        boolean scored = batch.layer == 0 || batch.layer == config.model.numLayers();
        if (scored && sequence.scored(batch.roundShare)) {
            roundComplete(batch.step, batch.finalRound);
        }
    }

    /** This rank has scored its share of the round of {@code step}: its evaluation line. */
    private void roundComplete(long step, boolean finalRound) throws Exception {
        long roundNanos = System.nanoTime() - roundStartNanos;
        progress.evalNanos += roundNanos;
        LOG.info(
                "rank {}: evaluation round of step {} took {} ms, {} ms of it in the model",
                rank,
                step,
                roundNanos / 1_000_000,
                roundComputeNanos / 1_000_000);
        roundComputeNanos = 0;
        ObjectNode line =
                rankLine(
                        RankLine.eval(
                                rank, config.trainers, step, elapsedSeconds(), model.checksum()));
        if (progress.layout > 0 && step == progress.layoutStep) {
            // The round of the restored step, issued again after a restore at another trainer
            // count:
            // the other ranks reported this step before the restore.
            line.put(RankLine.ALONE, true);
        }
        emit(
                RankLine.evalTotals(
                        line,
                        progress.valCorrect,
                        progress.valTotal,
                        progress.valLoss,
                        progress.testCorrect,
                        progress.testTotal,
                        progress.testLoss,
                        finalRound,
                        progress.evalNanos / 1e9,
                        progress.firstStepNanos / 1e9));
        if (finalRound && !progress.finished) {
            progress.finished = true;
            exportModel(true);
        }
    }

    /** Completes a rank line with the window's raw sums and starts a new window. */
    private ObjectNode rankLine(ObjectNode line) {
        long now = System.nanoTime();
        window.writeRawTo(line, now);
        window = new MetricsWindow(now);
        return line;
    }

    private void emit(ObjectNode line) {
        output.collect(METRICS, new StreamRecord<>(line.toString()));
    }

    private void exportModel(boolean force) throws Exception {
        if (config.modelOut == null || rank != 0 || (!force && progress.finished)) {
            return;
        }
        NpyExport.export(
                model,
                Path.of(config.modelOut),
                Map.of("rank", rank, "next_seq", progress.nextSeq));
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
                                    GRADIENTS, new StreamRecord<>(GradientChunk.heartbeat(rank)));
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

    private double elapsedSeconds() {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    private static double ratio(double a, double b) {
        return b == 0 ? 0.0 : a / b;
    }

    /**
     * What a step hands back to the task thread: a batch with the model's result for it (with a
     * pending step when its gradient waits for the all-reduce), or, without a batch, the pending
     * step whose reduced update was applied.
     */
    private record StepOutcome(
            MiniBatch batch,
            PendingStep pending,
            TrainResult train,
            EvalResult eval,
            InferenceRound.Outcome inferred,
            long nanos) {}
}

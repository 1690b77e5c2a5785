package io.gnnstream.operators;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gnnstream.operators.messages.Credit;
import io.gnnstream.operators.internal.MetricsWindow;
import io.gnnstream.operators.internal.PartialBatches;
import io.gnnstream.operators.internal.StepRunner;
import io.gnnstream.operators.internal.TrainerFeatureCache;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.serialization.MiniBatchPartSerializer;
import io.gnnstream.operators.serialization.MiniBatchSerializer;
import io.gnnstream.operators.model.EvalResult;
import io.gnnstream.operators.model.ModelState;
import io.gnnstream.operators.model.Nd4jThreads;
import io.gnnstream.operators.model.NpyExport;
import io.gnnstream.operators.model.SageModel;
import io.gnnstream.operators.model.TrainResult;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.OutputTag;

/**
 * Trains the model on the mini-batches of one trainer rank, strictly in sequence order.
 *
 * <p>Batches arrive as {@link MiniBatchPart}s: the head from the assembler and the feature parts
 * straight from the GraphStore subtasks, in any order, and are joined by {@link PartialBatches},
 * which copies the rows a part names by cache slot from the {@link TrainerFeatureCache}; then the
 * cache stores the rows the part brings. A part naming slots the cache does not hold (sent before a
 * restore) is dropped and counted, and its batch comes again. Once whole, batches are buffered
 * until their {@code seq} is next, so the sequence of updates is the scheduler's, whatever the
 * timing. Training batches update the model;
 * evaluation batches of a round are scored with the model of the step they follow, and when the
 * round is complete a metrics line with validation and test accuracy is emitted. After every batch
 * a {@link Credit} (absolute progress) goes back to the scheduler through the feedback edge; it is
 * re-sent while the trainer is idle, because credits in flight are not part of a checkpoint.
 *
 * <p>Model steps run on a thread of their own ({@link StepRunner}), one at a time, so the task
 * thread keeps taking in the parts of the next batches while the model computes and the sampling
 * loop is never blocked by the trainer; everything else (bookkeeping, state, output) stays on the
 * task thread. A checkpoint lets the step in flight finish before its barrier goes downstream (at
 * most one step of delay), so the step's credit and metrics line precede the barrier, and
 * snapshots the model after it; no step runs between the barrier and the snapshot.
 *
 * <p>Checkpointed: the model and optimizer state, the progress bookkeeping, the buffered
 * batches and the parts of incomplete ones (a checkpoint can fall between the parts of a batch:
 * those before it are state, those after it are in flight or are sent again). Metrics
 * lines (JSON) leave through side output {@link #METRICS}.
 *
 * <p>See docs/design.md, "Trainer" and "Checkpoints and restore", "Trainer".
 */
public class TrainerOperator extends AbstractStreamOperator<Credit>
        implements OneInputStreamOperator<MiniBatchPart, Credit> {

    private static final long serialVersionUID = 1L;

    public static final OutputTag<String> METRICS = new OutputTag<>("metrics", Types.STRING);

    private static final ObjectMapper JSON = new ObjectMapper();

    private final TrainerConfig config;

    private transient ListState<ModelState> modelState;
    private transient ListState<TrainerProgress> progressState;
    private transient ListState<MiniBatch> bufferedState;
    private transient ListState<MiniBatchPart> partialState;
    private transient SageModel model;
    private transient TrainerProgress progress;
    private transient TreeMap<Long, MiniBatch> buffered;
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

    public TrainerOperator(TrainerConfig config) {
        this.config = config;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        rank = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        Nd4jThreads.configure(config.threads);
        modelState = context.getOperatorStateStore().getListState(
                new ListStateDescriptor<>("model", TypeInformation.of(ModelState.class)));
        progressState = context.getOperatorStateStore().getListState(
                new ListStateDescriptor<>("progress", TypeInformation.of(TrainerProgress.class)));
        bufferedState = context.getOperatorStateStore().getListState(
                new ListStateDescriptor<>("buffered-batches", MiniBatchSerializer.TYPE_INFO));
        partialState = context.getOperatorStateStore().getListState(
                new ListStateDescriptor<>("partial-batches", MiniBatchPartSerializer.TYPE_INFO));
        model = null;
        for (ModelState m : modelState.get()) {
            model = SageModel.restore(config.model, m);
        }
        if (model == null) {
            model = new SageModel(config.model);
        }
        progress = new TrainerProgress();
        for (TrainerProgress p : progressState.get()) {
            progress = p;
        }
        buffered = new TreeMap<>();
        for (MiniBatch b : bufferedState.get()) {
            buffered.put(b.seq, b);
        }
        partials = new PartialBatches();
        featureCache = new TrainerFeatureCache(config.featureCacheSlots, config.model.inFeatures());
        for (MiniBatchPart p : partialState.get()) {
            partials.accept(p, featureCache);
        }
    }

    @Override
    public void open() throws Exception {
        super.open();
        startNanos = System.nanoTime();
        lastInputNanos = startNanos;
        unresolvedParts = getMetricGroup().counter("unresolvedFeatureParts");
        window = new MetricsWindow(startNanos);
        MailboxExecutor mailbox = getContainingTask().getMailboxExecutorFactory()
                .createExecutor(getOperatorConfig().getChainIndex());
        steps = new StepRunner<>("gnnstream-trainer-" + rank + "-steps", mailbox, this::onStepDone);
        startNextStep();
        scheduleCreditResend();
    }

    /**
     * Finishes the step in flight before the barrier goes downstream, so that its credit and metrics
     * line belong to the checkpoint that holds its model; no new step starts until the snapshot.
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
        modelState.update(List.of(model.snapshot()));
        progressState.update(List.of(progress));
        bufferedState.update(new ArrayList<>(buffered.values()));
        partialState.update(partials.parts());
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
    public void processElement(StreamRecord<MiniBatchPart> element) throws Exception {
        lastInputNanos = System.nanoTime();
        MiniBatchPart part = element.getValue();
        MiniBatch batch = null;
        if (!featureCache.holdsAll(part)) {
            unresolvedParts.inc();
        } else if (!alreadyHave(part.seq)) {
            batch = partials.accept(part, featureCache);
        }
        featureCache.storeFills(part);
        if (batch != null) {
            buffered.put(batch.seq, batch);
            startNextStep();
        }
    }

    /** True when the batch of {@code seq} was trained on, is buffered, or is in the step running. */
    private boolean alreadyHave(long seq) {
        return seq < progress.nextSeq || buffered.containsKey(seq) || steps.busy() && seq == progress.nextSeq;
    }

    /** Starts the model step of the next batch in sequence, if it is here and no step is running. */
    private void startNextStep() {
        if (holdSteps || steps.busy() || buffered.isEmpty() || buffered.firstKey() != progress.nextSeq) {
            return;
        }
        MiniBatch batch = buffered.pollFirstEntry().getValue();
        steps.submit(() -> compute(batch));
    }

    /** The model work of one batch; runs on the step thread and touches nothing but the model. */
    private StepOutcome compute(MiniBatch batch) {
        long begin = System.nanoTime();
        TrainResult train = null;
        EvalResult eval = null;
        if (batch.isTraining()) {
            train = config.compute ? model.trainStep(batch) : new TrainResult(0, 0, batch.numSeeds());
        } else if (batch.numSeeds() > 0 && config.compute) {
            eval = model.evaluate(batch);
        }
        return new StepOutcome(batch, train, eval, System.nanoTime() - begin);
    }

    /** Bookkeeping and output of a finished step, on the task thread; then the next step. */
    private void onStepDone(StepOutcome done) throws Exception {
        MiniBatch batch = done.batch;
        if (batch.isTraining()) {
            window.addStep(done.train, batch, done.nanos);
            boolean evaluationFollows = batch.roundSize > 0;
            if (!evaluationFollows && batch.step % Math.max(1, config.logEvery) == 0) {
                emit(trainLine(batch.step));
            }
        } else {
            window.addBusy(done.nanos);
            evaluated(batch, done.eval);
        }
        progress.nextSeq = batch.seq + 1;
        partials.recycle(batch.features);
        output.collect(new StreamRecord<>(new Credit(rank, batch.seq)));
        startNextStep();
    }

    /** Feature parts dropped because they named cache slots this trainer does not hold, for tests. */
    long unresolvedFeatureParts() {
        return unresolvedParts.getCount();
    }

    /** True while a model step runs or its outcome waits in the mailbox. */
    boolean stepInFlight() {
        return steps.busy();
    }

    /** Runs the step in flight to its end and starts no new one: the model and progress are at rest. */
    private void pauseSteps() throws Exception {
        holdSteps = true;
        steps.await();
    }

    private void resumeSteps() {
        holdSteps = false;
        startNextStep();
    }

    private void evaluated(MiniBatch batch, EvalResult r) throws Exception {
        if (progress.roundStep != batch.step) {
            progress.resetRound(batch.step);
        }
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
        progress.roundSeen++;
        if (progress.roundSeen < batch.roundSize) {
            return;
        }
        double valAcc = ratio(progress.valCorrect, progress.valTotal);
        double testAcc = ratio(progress.testCorrect, progress.testTotal);
        if (valAcc > progress.bestValAcc) {
            progress.bestValAcc = valAcc;
            progress.bestValTestAcc = testAcc;
            progress.bestValStep = batch.step;
        }
        ObjectNode line = trainLine(batch.step);
        line.put("val_acc", valAcc);
        line.put("test_acc", testAcc);
        line.put("val_loss", ratio(progress.valLoss, progress.valTotal));
        line.put("test_loss", ratio(progress.testLoss, progress.testTotal));
        emit(line);
        if (batch.finalRound && !progress.finished) {
            progress.finished = true;
            exportModel(true);
            ObjectNode last = JSON.createObjectNode();
            last.put("final", true);
            last.put("step", batch.step);
            last.put("elapsed_s", elapsedSeconds());
            last.put("test_acc", testAcc);
            last.put("val_acc", valAcc);
            last.put("best_val_acc", progress.bestValAcc);
            last.put("best_val_test_acc", progress.bestValTestAcc);
            last.put("best_val_step", progress.bestValStep);
            last.put("checksum", Long.toHexString(model.checksum()));
            emit(last);
        }
    }

    private ObjectNode trainLine(long step) {
        ObjectNode line = JSON.createObjectNode();
        line.put("step", step);
        line.put("elapsed_s", elapsedSeconds());
        window.writeTo(line, System.nanoTime());
        window = new MetricsWindow(System.nanoTime());
        return line;
    }

    private void emit(ObjectNode line) {
        output.collect(METRICS, new StreamRecord<>(line.toString()));
    }

    private void exportModel(boolean force) throws Exception {
        if (config.modelOut == null || (!force && progress.finished)) {
            return;
        }
        NpyExport.export(model, Path.of(config.modelOut), Map.of("rank", rank, "next_seq", progress.nextSeq));
    }

    private void scheduleCreditResend() {
        long now = getProcessingTimeService().getCurrentProcessingTime();
        getProcessingTimeService().registerTimer(now + config.creditResendMs, t -> {
            if (System.nanoTime() - lastInputNanos >= config.creditResendMs * 1_000_000L) {
                output.collect(new StreamRecord<>(new Credit(rank, progress.nextSeq - 1)));
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

    /** What a step hands back to the task thread: the batch and the model's result for it. */
    private record StepOutcome(MiniBatch batch, TrainResult train, EvalResult eval, long nanos) {}
}

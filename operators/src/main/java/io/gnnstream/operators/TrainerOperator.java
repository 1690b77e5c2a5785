package io.gnnstream.operators;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gnnstream.operators.messages.Credit;
import io.gnnstream.operators.internal.PartialBatches;
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
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
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
 * straight from the GraphStore subtasks, in any order; once whole they are buffered
 * until their {@code seq} is next, so the sequence of updates is the scheduler's, whatever the
 * timing. Training batches update the model;
 * evaluation batches of a round are scored with the model of the step they follow, and when the
 * round is complete a metrics line with validation and test accuracy is emitted. After every batch
 * a {@link Credit} (absolute progress) goes back to the scheduler through the feedback edge; it is
 * re-sent while the trainer is idle, because credits in flight are not part of a checkpoint.
 *
 * <p>Checkpointed: the model and optimizer state, the progress bookkeeping, the buffered
 * batches and the parts of incomplete ones (a checkpoint can fall between the parts of a batch:
 * those before it are state, those after it are in flight or are sent again). Metrics
 * lines (JSON) leave through side output {@link #METRICS}.
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
    private transient long startNanos;
    private transient long lastInputNanos;
    private transient Window window;
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
        for (MiniBatchPart p : partialState.get()) {
            partials.accept(p);
        }
    }

    @Override
    public void open() throws Exception {
        super.open();
        startNanos = System.nanoTime();
        lastInputNanos = startNanos;
        window = new Window(startNanos);
        scheduleCreditResend();
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        modelState.update(List.of(model.snapshot()));
        progressState.update(List.of(progress));
        bufferedState.update(new ArrayList<>(buffered.values()));
        partialState.update(partials.parts());
    }

    @Override
    public void close() throws Exception {
        if (model != null) {
            model.close();
        }
        super.close();
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        exportModel(false);
    }

    @Override
    public void processElement(StreamRecord<MiniBatchPart> element) throws Exception {
        lastInputNanos = System.nanoTime();
        MiniBatchPart part = element.getValue();
        if (part.seq < progress.nextSeq || buffered.containsKey(part.seq)) {
            return;
        }
        MiniBatch batch = partials.accept(part);
        if (batch == null) {
            return;
        }
        buffered.put(batch.seq, batch);
        boolean advanced = false;
        while (!buffered.isEmpty() && buffered.firstKey() == progress.nextSeq) {
            consume(buffered.pollFirstEntry().getValue());
            progress.nextSeq++;
            advanced = true;
        }
        if (advanced) {
            output.collect(new StreamRecord<>(new Credit(rank, progress.nextSeq - 1)));
        }
    }

    private void consume(MiniBatch batch) throws Exception {
        long begin = System.nanoTime();
        if (batch.isTraining()) {
            TrainResult r = config.compute ? model.trainStep(batch) : new TrainResult(0, 0, batch.numSeeds());
            window.add(r, batch, System.nanoTime() - begin);
            boolean evaluationFollows = batch.roundSize > 0;
            if (!evaluationFollows && batch.step % Math.max(1, config.logEvery) == 0) {
                emit(trainLine(batch.step));
            }
        } else {
            evaluate(batch);
            window.busyNanos += System.nanoTime() - begin;
        }
    }

    private void evaluate(MiniBatch batch) throws Exception {
        if (progress.roundStep != batch.step) {
            progress.resetRound(batch.step);
        }
        if (batch.numSeeds() > 0 && config.compute) {
            EvalResult r = model.evaluate(batch);
            if (batch.kind == MiniBatch.KIND_EVAL_VAL) {
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
        window = new Window(System.nanoTime());
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

    /** Training statistics since the last metrics line. */
    private static final class Window {
        final long startNanos;
        long busyNanos;
        long seeds;
        long correct;
        double lossSum;
        int steps;
        long sampledEdges;
        long vertices;
        long edgesIngested;

        Window(long startNanos) {
            this.startNanos = startNanos;
        }

        void add(TrainResult r, MiniBatch b, long nanos) {
            busyNanos += nanos;
            seeds += r.numSeeds();
            correct += r.correct();
            lossSum += r.loss() * r.numSeeds();
            steps++;
            for (int hop = 1; hop <= b.numLayers; hop++) {
                sampledEdges += b.numEdges(hop);
            }
            vertices = b.graphVertices;
            edgesIngested = b.graphEdgesIngested;
        }

        void writeTo(ObjectNode line, long nowNanos) {
            double wall = Math.max(1e-9, (nowNanos - startNanos) / 1e9);
            double busy = busyNanos / 1e9;
            line.put("loss", ratio(lossSum, seeds));
            line.put("train_acc", ratio(correct, seeds));
            line.put("seeds_per_s", seeds / wall);
            line.put("trainer_seeds_per_s", busy == 0 ? 0.0 : seeds / busy);
            line.put("busy", Math.min(1.0, busy / wall));
            line.put("batches_per_s", steps / wall);
            line.put("sampled_edges_per_s", sampledEdges / wall);
            line.put("edges_ingested", edgesIngested);
            line.put("vertices", vertices);
        }
    }
}

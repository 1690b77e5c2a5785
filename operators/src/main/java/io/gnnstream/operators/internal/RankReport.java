package io.gnnstream.operators.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gnnstream.operators.TrainerProgress;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.model.GnnModel;
import io.gnnstream.operators.model.TrainResult;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a trainer rank reports (docs/design.md, "Trainer"): its metrics window of steps, traffic and
 * busy time, a training line every {@code logEvery} steps and an evaluation line when its share of
 * a round is done ({@link RankLine}), each closing the window; and the round's timing. Free of
 * Flink: lines go to a sink, which {@code TrainerOperator} turns into its metrics side output.
 */
public final class RankReport {

    private static final Logger LOG = LoggerFactory.getLogger(RankReport.class);

    private final int rank;
    private final int trainers;
    private final int logEvery;
    private final GnnModel model;
    private final TrainerProgress progress;
    private final Consumer<String> sink;
    private final long startNanos;
    private MetricsWindow window;
    private long roundStartNanos;
    private long roundComputeNanos;
    private String select;
    private boolean servingRound;

    public RankReport(
            int rank,
            int trainers,
            int logEvery,
            GnnModel model,
            TrainerProgress progress,
            Consumer<String> sink) {
        this.rank = rank;
        this.trainers = trainers;
        this.logEvery = Math.max(1, logEvery);
        this.model = model;
        this.progress = progress;
        this.sink = sink;
        this.startNanos = System.nanoTime();
        this.roundStartNanos = startNanos;
        this.window = new MetricsWindow(startNanos);
    }

    /**
     * Evaluation lines name {@code select} ({@link RankLine#SELECT}; null: none, the last step's
     * parameters are kept); returns this.
     */
    public RankReport withSelect(String select) {
        this.select = select;
        return this;
    }

    /**
     * A serving round follows the final round ({@code --select best-val} with predictions): the
     * final round's line says so ({@link RankLine#SERVING_FOLLOWS}), and the merger's final line
     * waits for the serving round's ({@link #servingComplete}); returns this.
     */
    public RankReport withServingRound(boolean servingRound) {
        this.servingRound = servingRound;
        return this;
    }

    /** The window of the line being gathered. */
    public MetricsWindow window() {
        return window;
    }

    /** A training step's model work: {@code train} for a batch trained alone. */
    public void trained(TrainResult train, MiniBatch batch, long nanos) {
        window.addStep(train, batch, nanos);
    }

    /** Model work of a round's block or an evaluation batch. */
    public void evaluated(long nanos) {
        window.addBusy(nanos);
        roundComputeNanos += nanos;
    }

    /**
     * Training step {@code step} is applied: the time to the first step, and a training line every
     * {@code logEvery} steps unless the step {@code startsRound}.
     */
    public void stepApplied(long step, boolean startsRound) {
        if (progress.firstStepNanos == 0) {
            progress.firstStepNanos = Math.max(1, System.nanoTime() - startNanos);
        }
        if (startsRound) {
            roundStartNanos = System.nanoTime();
        } else if (step % logEvery == 0) {
            sink.accept(
                    close(RankLine.train(rank, trainers, step, elapsedSeconds(), model.checksum()))
                            .toString());
        }
    }

    /**
     * The rank's share of the round of {@code step} is done: its evaluation line; {@code alone}:
     * the round of the step a restore at another trainer count resumed from, which this rank scores
     * by itself (the line is flagged {@link RankLine#ALONE}).
     */
    public void roundComplete(long step, boolean finalRound, boolean alone) {
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
                RankLine.evalTotals(
                        close(
                                RankLine.eval(
                                        rank, trainers, step, elapsedSeconds(), model.checksum())),
                        progress,
                        finalRound);
        if (alone) {
            line.put(RankLine.ALONE, true);
        }
        if (select != null) {
            line.put(RankLine.SELECT, select);
        }
        if (finalRound && servingRound) {
            line.put(RankLine.SERVING_FOLLOWS, true);
        }
        sink.accept(line.toString());
    }

    /**
     * Rank 0 computed the serving round of {@code step} with the parameters of step {@code served}
     * (checksum {@code checksum}): its line, which no other rank's joins ({@link RankLine#ALONE}),
     * with the round's counts and {@link RankLine#SERVED_STEP}.
     */
    public void servingComplete(long step, long served, long checksum) {
        LOG.info(
                "rank {}: serving round of step {} done, the model of step {} serves",
                rank,
                step,
                served);
        ObjectNode line =
                RankLine.evalTotals(
                        close(RankLine.eval(rank, trainers, step, elapsedSeconds(), checksum)),
                        progress,
                        false);
        line.put(RankLine.ALONE, true);
        line.put(RankLine.SERVED_STEP, served);
        if (select != null) {
            line.put(RankLine.SELECT, select);
        }
        sink.accept(line.toString());
    }

    /** Completes a line with the window's raw sums and starts a new window. */
    private ObjectNode close(ObjectNode line) {
        long now = System.nanoTime();
        window.writeRawTo(line, now);
        window = new MetricsWindow(now);
        return line;
    }

    private double elapsedSeconds() {
        return (System.nanoTime() - startNanos) / 1e9;
    }
}

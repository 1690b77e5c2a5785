package io.gnnstream.operators.schedule;

import io.gnnstream.operators.TrainerProgress;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * Which parameters a trainer rank keeps for the report, the export and the served predictions
 * (docs/design.md, "Model selection"), free of Flink: the last step's ({@link Mode#LAST}) or those
 * of the evaluation round with the best validation accuracy so far ({@link Mode#BEST_VAL}; ties:
 * the earlier round). A round's accuracy is the all-reduced sum of every rank's counts, so all
 * ranks keep the same round's parameters: the counts ride on the next step's gradient ({@link
 * #contribution}), and the decision ({@link #offer}) comes with that step's sum, before its update,
 * while the replica still holds the round's parameters. The best round's counts and step live in
 * the rank's {@link TrainerProgress}, its parameters in the replica's state. Not thread-safe.
 */
public final class ModelSelection {

    /** The parameters kept. */
    public enum Mode {
        /** The last step's. */
        LAST,
        /** The best validation round's (ties: the earlier). */
        BEST_VAL;

        /** {@code last} or {@code best-val}. */
        public String id() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        /** The flag's spelling ({@link #id()}), which Flink's enum conversion accepts. */
        @Override
        public String toString() {
            return id();
        }

        /** Parses {@link #id()} (or the constant's name). */
        public static Mode parse(String s) {
            return valueOf(s.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
        }
    }

    private final Mode mode;
    private final TrainerProgress progress;
    private float[] best;

    /**
     * The selection of a rank at {@code progress}, with the parameters of its best round so far
     * ({@code best}, null: none kept).
     */
    public ModelSelection(Mode mode, TrainerProgress progress, float[] best) {
        this.mode = mode;
        this.progress = progress;
        this.best = mode == Mode.BEST_VAL ? best : null;
    }

    public Mode mode() {
        return mode;
    }

    public boolean bestVal() {
        return mode == Mode.BEST_VAL;
    }

    /**
     * This rank's validation counts {@code {correct, total}} to send with the gradient of training
     * step {@code step}: its share of the round of step {@code step - 1}, which a rank has scored
     * before it trains the next step; zeros when no round came just before.
     */
    public long[] contribution(long step) {
        if (progress.roundStep >= 0 && progress.roundStep == step - 1) {
            return new long[] {progress.valCorrect, progress.valTotal};
        }
        return new long[] {0, 0};
    }

    /**
     * The round of {@code roundStep} scored {@code correct} of {@code total} validation vertices
     * over all ranks: when that beats the best so far (strictly; a round is offered at most once
     * per rank, and again harmlessly), it becomes the best, and in {@link Mode#BEST_VAL} its
     * parameters ({@code parameters}, the replica's as the round evaluated them) are kept. Returns
     * whether it became the best.
     */
    public boolean offer(long roundStep, long correct, long total, Supplier<float[]> parameters) {
        if (total <= 0 || roundStep <= progress.bestValStep && progress.bestValTotal > 0) {
            return false;
        }
        boolean better =
                progress.bestValTotal == 0
                        || (double) correct * progress.bestValTotal
                                > (double) progress.bestValCorrect * total;
        if (!better) {
            return false;
        }
        progress.bestValCorrect = correct;
        progress.bestValTotal = total;
        progress.bestValStep = roundStep;
        if (mode == Mode.BEST_VAL) {
            best = parameters.get().clone();
        }
        return true;
    }

    /**
     * Whether rank {@code rank} of {@code trainers}, restored at another trainer count, joins the
     * final selection exchange at its start (docs/design.md, "Model selection"): the ranks restored
     * the final step ({@code maxSteps}) unfinished, so the schedule runs the final round again on
     * rank 0, which begins the exchange with the round's counts once it has scored it; every other
     * rank contributes none, so that all decide the round from rank 0's counts alike.
     */
    public boolean joinsFinalExchange(int rank, int trainers, long maxSteps) {
        return mode == Mode.BEST_VAL
                && rank != 0
                && trainers > 1
                && maxSteps > 0
                && progress.layout > 0
                && progress.layoutStep == maxSteps
                && progress.appliedStep == maxSteps
                && !progress.finished
                && !progress.selecting;
    }

    /** The kept parameters of the best round, or null (none yet, or {@link Mode#LAST}). */
    public float[] best() {
        return best;
    }

    /** The step of the parameters to export and serve, or -1 for the replica's own. */
    public long selectedStep() {
        return best == null ? -1 : progress.bestValStep;
    }
}

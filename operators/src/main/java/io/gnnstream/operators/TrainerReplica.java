package io.gnnstream.operators;

import io.gnnstream.operators.model.ModelState;
import io.gnnstream.operators.schedule.RankLayout;
import java.util.List;

/**
 * One trainer rank's replica in the trainer's checkpoint: the model with its optimizer state and
 * the rank's progress, tagged with the rank and the number of ranks that wrote it. Kept in union
 * list state, so that every rank of a job restored at another trainer count sees every old rank's
 * replica and all pick the same one ({@link #restoredAt}). A Flink POJO.
 */
public class TrainerReplica {

    public int rank;
    public int trainers;
    public ModelState model;
    public TrainerProgress progress;

    /**
     * With {@code --select best-val}: the parameters of the best validation round ({@link
     * TrainerProgress#bestValStep}) in {@code GnnModel#parameterVector()} layout; null without one
     * (also in state of earlier builds).
     */
    public float[] bestParameters;

    public TrainerReplica() {}

    public TrainerReplica(int rank, int trainers, ModelState model, TrainerProgress progress) {
        this.rank = rank;
        this.trainers = trainers;
        this.model = model;
        this.progress = progress;
    }

    public TrainerReplica(
            int rank,
            int trainers,
            ModelState model,
            TrainerProgress progress,
            float[] bestParameters) {
        this(rank, trainers, model, progress);
        this.bestParameters = bestParameters;
    }

    /** The last training step this replica applied. */
    public long appliedStep() {
        return Math.max(progress.appliedStep, model.step);
    }

    /**
     * The replica the ranks of a restore at another trainer count continue from: of the old ranks'
     * replicas, one that applied the furthest step (the lowest rank of those). A rank that applied
     * step k had the sum of every rank's gradient of k, while a rank still waiting for it is a step
     * behind; replicas at the same step are identical.
     */
    public static TrainerReplica furthest(List<TrainerReplica> replicas) {
        TrainerReplica best = null;
        for (TrainerReplica r : replicas) {
            if (best == null
                    || r.appliedStep() > best.appliedStep()
                    || r.appliedStep() == best.appliedStep() && r.rank < best.rank) {
                best = r;
            }
        }
        return best;
    }

    /**
     * Catches {@code own}, the progress of a rank restored at the same trainer count whose replica
     * is a step behind {@code furthest}, up with it: the rank takes the furthest replica's model
     * (the caller's part), its step and its model selection, and keeps its own sequence, layout and
     * round. Training that step again would sample its batch from the graph as it is after the
     * restore, and where the graph changed meanwhile its gradient would differ from the one the
     * furthest replica's sum holds (docs/design.md, "All-reduce", point 4).
     */
    public static void catchUp(TrainerProgress own, TrainerReplica furthest) {
        own.appliedStep = furthest.appliedStep();
        own.bestValCorrect = furthest.progress.bestValCorrect;
        own.bestValTotal = furthest.progress.bestValTotal;
        own.bestValStep = furthest.progress.bestValStep;
    }

    /**
     * The progress every rank of the new layout starts from, after the old ranks' {@code replicas}:
     * the furthest replica's step, the next layout ({@link RankLayout}) and its first sequence
     * number, no evaluation round in progress. {@code finished} (the final round is done and
     * exported) comes from old rank 0, which runs the rounds, when it applied that step.
     */
    public static TrainerProgress restoredAt(List<TrainerReplica> replicas) {
        TrainerReplica furthest = furthest(replicas);
        long step = furthest.appliedStep();
        int layout = 0;
        TrainerReplica rank0 = null;
        for (TrainerReplica r : replicas) {
            layout = Math.max(layout, r.progress.layout);
            if (r.rank == 0) {
                rank0 = r;
            }
        }
        TrainerProgress p = new TrainerProgress();
        p.layout = layout + 1;
        p.layoutStep = step;
        p.appliedStep = step;
        p.nextSeq = RankLayout.firstSeq(p.layout, step);
        // A rank 0 that waited for the final round's selection exchange had not finished: the
        // exchange is lost with the old ranks, and the schedule runs the final round again on
        // the new rank 0 (--select best-val), which decides from its own counts and finishes.
        p.finished = rank0 != null && rank0.appliedStep() == step && rank0.progress.finished;
        p.evalNanos = furthest.progress.evalNanos;
        // The furthest replica has decided every round the others have (a decision comes with a
        // step's sum), so its best round and parameters are the ones to keep.
        p.bestValCorrect = furthest.progress.bestValCorrect;
        p.bestValTotal = furthest.progress.bestValTotal;
        p.bestValStep = furthest.progress.bestValStep;
        p.firstStepNanos = furthest.progress.firstStepNanos;
        return p;
    }
}

package io.gnnstream.operators.internal;

import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.model.EvalResult;
import io.gnnstream.operators.model.GnnModel;
import io.gnnstream.operators.model.Gradients;
import io.gnnstream.operators.model.TrainResult;

/**
 * The model work of a trainer rank, run on its step thread ({@link StepRunner}) and touching
 * nothing but the replica: a training step (alone, or its gradient for the all-reduce), an
 * evaluation batch, a block of an inference round, or the update with a reduced gradient. Free of
 * Flink; {@code TrainerOperator} hands each {@link Outcome} back to its task thread.
 */
public final class ReplicaSteps {

    private final GnnModel model;
    private final InferenceRound inference;
    private final int rank;
    private final int trainers;
    private final boolean compute;
    private final int numParameters;

    /**
     * Rank {@code rank} of {@code trainers} on replica {@code model}; {@code compute} false: no
     * model work (benchmarks of the loop), every batch counts as done.
     */
    public ReplicaSteps(
            GnnModel model,
            int numParameters,
            InferenceRound inference,
            int rank,
            int trainers,
            boolean compute) {
        this.model = model;
        this.numParameters = numParameters;
        this.inference = inference;
        this.rank = rank;
        this.trainers = trainers;
        this.compute = compute;
    }

    /**
     * The work of one batch. Running out of heap fails with what the rank was doing, so that the
     * job's failure names it.
     */
    public Outcome compute(MiniBatch batch) {
        return compute(batch, null);
    }

    /**
     * The work of one batch; a block of an inference round with {@code kept} non-null computes with
     * those parameters instead of the replica's (the serving round: docs/design.md, "Model
     * selection"), which the replica holds again afterwards.
     */
    public Outcome compute(MiniBatch batch, float[] kept) {
        if (kept == null || batch.layer == 0) {
            return computeOrFail(batch);
        }
        float[] own = model.parameterVector();
        model.setParameterVector(kept);
        try {
            return computeOrFail(batch);
        } finally {
            model.setParameterVector(own);
        }
    }

    private Outcome computeOrFail(MiniBatch batch) {
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

    /** Applies the all-reduced mean gradient of {@code step}. */
    public Outcome apply(PendingStep step, float[] mean) {
        long begin = System.nanoTime();
        model.applyGradients(mean);
        return new Outcome(null, step, null, null, null, System.nanoTime() - begin);
    }

    private Outcome computeStep(MiniBatch batch) {
        long begin = System.nanoTime();
        TrainResult train = null;
        EvalResult eval = null;
        PendingStep pending = null;
        InferenceRound.Outcome inferred = null;
        if (batch.layer > 0 && compute) {
            inferred = inference.compute(model, batch);
            eval = inferred.eval();
        } else if (batch.isTraining() && trainers > 1) {
            pending = gradientStep(batch);
        } else if (batch.isTraining()) {
            train = compute ? model.trainStep(batch) : new TrainResult(0, 0, batch.numSeeds());
        } else if (batch.numSeeds() > 0 && compute) {
            eval = model.evaluate(batch);
        }
        long nanos = System.nanoTime() - begin;
        if (pending != null) {
            pending.computeNanos = nanos;
        }
        return new Outcome(batch, pending, train, eval, inferred, nanos);
    }

    /** The gradient of the batch's summed loss, ready for the all-reduce. */
    private PendingStep gradientStep(MiniBatch batch) {
        PendingStep p = new PendingStep();
        if (compute && batch.numSeeds() > 0) {
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
            p.grad = new float[numParameters];
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

    /**
     * What a step hands back to the task thread: a batch with the model's result for it (with a
     * pending step when its gradient waits for the all-reduce), or, without a batch, the pending
     * step whose reduced update was applied.
     */
    public record Outcome(
            MiniBatch batch,
            PendingStep pending,
            TrainResult train,
            EvalResult eval,
            InferenceRound.Outcome inferred,
            long nanos) {}
}

package io.gnnstream.operators.schedule;

import static io.gnnstream.operators.schedule.SimChannels.copy;

import io.gnnstream.operators.TrainerProgress;
import io.gnnstream.operators.TrainerReplica;
import io.gnnstream.operators.assembly.PartialBatches;
import io.gnnstream.operators.internal.InferenceRound;
import io.gnnstream.operators.internal.PendingStep;
import io.gnnstream.operators.internal.TrainerFeatureCache;
import io.gnnstream.operators.messages.Credit;
import io.gnnstream.operators.messages.GradientChunk;
import io.gnnstream.operators.messages.LayerOutputs;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.messages.PredictionBatch;
import io.gnnstream.operators.messages.ReducedChunk;
import io.gnnstream.operators.model.EvalResult;
import io.gnnstream.operators.model.ModelState;
import io.gnnstream.operators.serialization.MiniBatchPartSerializer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * One trainer rank of a {@link ProtocolSimulator} run: its {@link TrainerRank}, {@link
 * GradientExchange} and {@link PartialBatches}, as {@code TrainerOperator} feeds them, and a model
 * made of what it applied. It joins batch heads and feature parts into whole batches, checks each
 * against the graph ({@link SimGraph#check}), takes them in sequence, joins the all-reduce of a
 * training step when there are several ranks, hands a hidden layer's outputs to the GraphStore and
 * reports a last-pass block as scored.
 *
 * <p>With incremental predictions ({@link Wiring#models}), a round's blocks are computed by the
 * real model of the round's step ({@link SimModels}) through {@link InferenceRound}, as the trainer
 * does: a hidden layer's outputs are its rows, the last pass gives predictions. Once the rank has
 * scored its share of a round ({@link TrainerRank#roundBegins}, {@link TrainerRank#evaluated}), it
 * sends its pin records on the channel of its layer outputs, rank 0's with the model's parameters,
 * as {@code TrainerOperator.roundComplete} does.
 */
final class SimRank {

    /** What a rank holds besides its protocol classes: a model made of what it applied. */
    static final class RankModel {
        /**
         * Per applied step, in order: the step, then the applied mean gradient, non-zero exactly at
         * the step's seeds.
         */
        final List<float[]> log = new ArrayList<>();

        long hash = 0x243F6A8885A308D3L;

        RankModel copy() {
            RankModel c = new RankModel();
            c.log.addAll(log);
            c.hash = hash;
            return c;
        }
    }

    /**
     * What the ranks of a run share: their count, the model's size and depth, the channels, and
     * where a scored last-pass block is reported.
     */
    record Wiring(
            int trainers,
            int params,
            int numLayers,
            SimChannels net,
            Consumer<MiniBatch> scored,
            SimGraph graph,
            boolean staleParts,
            java.util.function.LongFunction<java.util.Set<Long>> roundVertices,
            SimModels models,
            Consumer<PredictionBatch> predicted,
            java.util.function.ObjLongConsumer<Integer> pinned,
            java.util.function.BiConsumer<MiniBatch, float[]> served,
            long maxSteps) {

        PartialBatches partials() {
            return staleParts ? PartialBatches.acceptingStaleParts() : new PartialBatches();
        }

        /** A round's blocks as the trainer computes them, with the real model. */
        InferenceRound inference() {
            return models == null
                    ? null
                    : new InferenceRound(models.config(), true, false, false, null, 1)
                            .withFeatureSums(true);
        }
    }

    final TrainerRank seq;
    final GradientExchange exchange;
    final RankModel model;

    /** {@code --select best-val}: the kept "parameters" are the model's hash and its step. */
    final ModelSelection selection;

    private final int r;
    private final Wiring w;
    private final PartialBatches partials;
    private final TrainerFeatureCache cache = new TrainerFeatureCache(0, SimGraph.DIM);
    private final InferenceRound inference;

    /**
     * Layer outputs made and stamped, waiting for the rank's output buffers ({@code
     * LayerOutputSender}): the rank takes no batch meanwhile, and they are in no snapshot.
     */
    private final List<LayerOutputs> held = new ArrayList<>();

    /** A pending step the further replica taken at the restore had applied; done at start. */
    private PendingStep caughtUp;

    /** The steps of the pin records among {@link #held}. */
    private final List<Long> heldPins = new ArrayList<>();

    private SimRank(
            int r,
            TrainerRank seq,
            GradientExchange exchange,
            RankModel model,
            Wiring w,
            PartialBatches partials,
            float[] best) {
        this.r = r;
        this.seq = seq;
        this.selection = new ModelSelection(ModelSelection.Mode.BEST_VAL, seq.progress(), best);
        this.exchange = exchange;
        this.model = model;
        this.w = w;
        this.partials = partials;
        this.inference = w.inference();
    }

    /** Rank {@code r} of a run that starts from nothing. */
    static SimRank fresh(int r, Wiring w) {
        return new SimRank(
                r,
                new TrainerRank(r, new TrainerProgress(), List.of(), false),
                new GradientExchange(r, w.params(), 1, 0),
                new RankModel(),
                w,
                w.partials(),
                null);
    }

    /**
     * The ranks restored from the snapshots {@code old} of a checkpoint's ranks: each from its own
     * at the same trainer count (from the furthest replica where its own is a step behind), else
     * every one from the furthest replica.
     */
    static SimRank[] restore(List<Object[]> old, Wiring w) {
        List<TrainerReplica> replicas = new ArrayList<>();
        for (Object[] s : old) {
            replicas.add((TrainerReplica) s[0]);
        }
        boolean same = old.size() == w.trainers();
        TrainerReplica furthest = TrainerReplica.furthest(replicas);
        SimRank[] ranks = new SimRank[w.trainers()];
        for (int r = 0; r < w.trainers(); r++) {
            if (same) {
                Object[] s = old.get(r);
                TrainerReplica rep = (TrainerReplica) s[0];
                @SuppressWarnings("unchecked")
                List<MiniBatch> buffered = (List<MiniBatch>) s[1];
                TrainerProgress progress = copy(rep.progress);
                RankModel model = ((RankModel) s[3]).copy();
                float[] best = rep.bestParameters;
                if (furthest.appliedStep() > rep.appliedStep()) {
                    // A step behind: the furthest replica (TrainerCheckpoint alike).
                    TrainerReplica.catchUp(progress, furthest);
                    model = ((RankModel) old.get(furthest.rank)[3]).copy();
                    best = furthest.bestParameters;
                }
                GradientExchange ex = new GradientExchange(r, w.params(), 1, progress.layout);
                PendingStep pending = (PendingStep) s[2];
                boolean caughtUp =
                        pending != null
                                && !pending.selection
                                && pending.step <= progress.appliedStep;
                if (pending != null && !caughtUp) {
                    ex.restore(copy(pending));
                }
                PartialBatches partials = w.partials();
                @SuppressWarnings("unchecked")
                List<MiniBatchPart> parts = (List<MiniBatchPart>) s[4];
                ranks[r] =
                        new SimRank(
                                r,
                                new TrainerRank(r, progress, buffered, false),
                                ex,
                                model,
                                w,
                                partials,
                                best);
                for (MiniBatchPart part : parts) {
                    partials.accept(MiniBatchPartSerializer.INSTANCE.copy(part), ranks[r].cache);
                }
                ranks[r].caughtUp = caughtUp ? copy(pending) : null;
            } else {
                TrainerProgress progress = TrainerReplica.restoredAt(replicas);
                ranks[r] =
                        new SimRank(
                                r,
                                new TrainerRank(r, progress, List.of(), true),
                                new GradientExchange(r, w.params(), 1, progress.layout),
                                ((RankModel) old.get(furthest.rank)[3]).copy(),
                                w,
                                w.partials(),
                                furthest.bestParameters);
                if (ranks[r].selection.joinsFinalExchange(r, w.trainers(), w.maxSteps())) {
                    // Sent at start, as a restored pending step (TrainerOperator alike).
                    ranks[r].exchange.restore(ranks[r].selectionStep(w.maxSteps()));
                }
            }
        }
        return ranks;
    }

    /** The rank's snapshot: its replica, buffered batches, pending step, model and parts. */
    Object[] snapshot() {
        ModelState m = new ModelState();
        m.step = seq.progress().appliedStep;
        return new Object[] {
            new TrainerReplica(
                    r,
                    w.trainers(),
                    m,
                    copy(seq.progress()),
                    selection.best() == null ? null : selection.best().clone()),
            seq.waiting(),
            exchange.pending() == null ? null : copy(exchange.pending()),
            model.copy(),
            partials.parts(cache).stream().map(MiniBatchPartSerializer.INSTANCE::copy).toList()
        };
    }

    private int role() {
        return 4 + r;
    }

    /** After a start or restore: sends its gradient and start credit, and takes its batches. */
    void start() {
        for (GradientChunk c : exchange.chunks()) {
            w.net().send(role(), "gradients", c);
        }
        Credit announce = seq.startCredit();
        if (announce != null) {
            w.net().send(role(), "credits", announce);
        }
        if (caughtUp != null) {
            // Its batch is done without its sum (TrainerOperator alike).
            stepDone(caughtUp.step, caughtUp.roundSize, caughtUp.roundShare, caughtUp.finalRound);
            w.net().send(role(), "credits", seq.finish(caughtUp.seq));
            caughtUp = null;
        }
        next();
    }

    /** A batch head, a feature part or a reduced sum reaches the rank. */
    void accept(Object p) {
        if (p instanceof MiniBatchPart part) {
            TrainerRank.Arrival arrival = seq.arrival(part.address(), stepPending());
            if (arrival == TrainerRank.Arrival.FOREIGN) {
                return;
            }
            MiniBatch b = null;
            if (arrival == TrainerRank.Arrival.WANTED && cache.holdsAll(part)) {
                b = partials.accept(part, cache);
            }
            partials.beforeFills(part, cache);
            cache.storeFills(part);
            if (b != null) {
                w.graph().check(b, "rank " + r, w.roundVertices().apply(b.step));
                seq.buffer(b);
                next();
            }
        } else {
            float[] mean = exchange.accept((ReducedChunk) p);
            if (mean != null) {
                PendingStep step = exchange.pending();
                long[] val = exchange.roundValidation();
                selection.offer(step.step - 1, val[0], val[1], this::kept);
                if (step.selection) {
                    exchange.complete();
                    seq.progress().selecting = false;
                    seq.progress().finished = true;
                    next();
                    return;
                }
                apply(step.step, mean);
                exchange.complete();
                stepDone(step.step, step.roundSize, step.roundShare, step.finalRound);
                w.net().send(role(), "credits", seq.finish(step.seq));
                next();
            }
        }
    }

    /** The rank's timers: its credit again, and its gradient again while it waits for sums. */
    void timer() {
        w.net().send(role(), "credits", seq.current());
        if (exchange.waiting()) {
            for (GradientChunk c : exchange.chunks()) {
                w.net().send(role(), "gradients", c);
            }
        }
    }

    /** Starts the next batch in sequence while no step waits for its sums. */
    private void next() {
        while (!stepPending() && held.isEmpty()) {
            MiniBatch b = seq.takeNext();
            if (b == null) {
                return;
            }
            if (seq.appliedAlready(b)) {
                stepDone(b.step, b.roundSize, b.roundShare, b.finalRound);
                w.net().send(role(), "credits", seq.finish(b.seq));
                continue;
            }
            if (b.isTraining() && w.trainers() > 1) {
                PendingStep p = new PendingStep();
                p.step = b.step;
                p.seq = b.seq;
                p.seeds = b.numSeeds();
                p.grad = gradient(b);
                p.roundSize = b.roundSize;
                p.roundShare = b.roundShare;
                p.finalRound = b.finalRound;
                long[] val = selection.contribution(b.step);
                p.valCorrect = val[0];
                p.valTotal = val[1];
                for (GradientChunk c : exchange.begin(p)) {
                    w.net().send(role(), "gradients", c);
                }
                return;
            }
            if (b.isTraining()) {
                apply(b.step, gradient(b));
                stepDone(b.step, b.roundSize, b.roundShare, b.finalRound);
            } else {
                boolean serving = seq.serving(b);
                if (serving) {
                    // The serving round: held while the final selection exchange runs (takeNext),
                    // computed with the kept parameters.
                    w.served().accept(b, selection.best());
                    if (w.models() != null) {
                        w.models().serves(b.step, servedStep());
                    }
                }
                if (inference != null) {
                    InferenceRound.Outcome o = inference.compute(w.models().of(b.step), b);
                    for (LayerOutputs rows : o.outputs()) {
                        hold(rows);
                    }
                    if (o.predictions() != null) {
                        w.predicted().accept(o.predictions());
                    }
                } else if (b.layer < w.numLayers()) {
                    hold(outputs(b));
                }
                if (b.layer == w.numLayers()) {
                    w.scored().accept(b);
                }
                boolean last = b.layer == 0 || b.layer == w.numLayers();
                if (seq.evaluated(b, last ? validation(b) : null, last)) {
                    roundComplete(b.step, b.finalRound);
                }
            }
            w.net().send(role(), "credits", seq.finish(b.seq));
        }
    }

    /** A training step waits for its sums (a selection exchange holds nothing up). */
    private boolean stepPending() {
        return exchange.pending() != null && !exchange.pending().selection;
    }

    /** A training step is applied: a round it starts may leave this rank nothing to score. */
    private void stepDone(long step, int roundSize, int roundShare, boolean finalRound) {
        if (roundSize > 0 && seq.roundBegins(step, roundShare)) {
            roundComplete(step, finalRound);
        }
    }

    /**
     * A scored block's validation counts, made of its vertices, the round's step and the run's salt
     * (the same whichever rank scores it, and again after a restore): about four in five correct,
     * so that the best round differs from run to run, the final one included.
     */
    private EvalResult validation(MiniBatch b) {
        int correct = 0;
        for (int i = 0; i < b.numSeeds(); i++) {
            long h =
                    b.nodeIds[i] * 0x9E3779B97F4A7C15L
                            ^ b.step * 0xC2B2AE3D27D4EB4FL
                            ^ w.graph().validationSalt;
            h ^= h >>> 29;
            h *= 0xBF58476D1CE4E5B9L;
            h ^= h >>> 32;
            correct += Math.floorMod(h, 5) != 0 ? 1 : 0;
        }
        return new EvalResult(0, correct, b.numSeeds(), null);
    }

    /** The step of the kept parameters, which the serving round computes with. */
    private long servedStep() {
        long kept =
                selection.best() != null ? selection.selectedStep() : seq.progress().appliedStep;
        return kept;
    }

    /** The "parameters" a round evaluates: the model's hash and the step it applied last. */
    float[] kept() {
        return new float[] {
            Float.intBitsToFloat((int) model.hash),
            Float.intBitsToFloat((int) (model.hash >>> 32)),
            seq.progress().appliedStep
        };
    }

    /**
     * The rank's selection as {@code TrainerOperator.roundComplete} makes it: alone (one rank, or a
     * round issued again all on rank 0), or, after the final round, by a selection exchange.
     */
    private void decideRound(long step, boolean finalRound) {
        boolean alone = seq.alone(step);
        TrainerProgress p = seq.progress();
        boolean exchanged = finalRound && w.trainers() > 1;
        if ((w.trainers() == 1 || alone && !exchanged) && !p.finished) {
            selection.offer(step, p.valCorrect, p.valTotal, this::kept);
        }
        if (finalRound && !p.finished) {
            if (exchanged) {
                for (GradientChunk c : exchange.begin(selectionStep(step))) {
                    w.net().send(role(), "gradients", c);
                }
            } else {
                p.finished = true;
            }
        }
    }

    /** The selection exchange after the final round of {@code step}, as the trainer's. */
    PendingStep selectionStep(long step) {
        TrainerProgress p = seq.progress();
        PendingStep sel = new PendingStep();
        sel.step = step + 1;
        sel.seq = p.nextSeq;
        sel.grad = new float[w.params()];
        sel.selection = true;
        sel.valCorrect = p.roundStep == step ? p.valCorrect : 0;
        sel.valTotal = p.roundStep == step ? p.valTotal : 0;
        p.selecting = true;
        return sel;
    }

    /**
     * This rank has scored its share of the round of {@code step}: with incremental predictions,
     * its pin records to the GraphStore (one subtask, route 0), on the channel of its outputs.
     */
    private void roundComplete(long step, boolean finalRound) {
        boolean serving = seq.servingRound(step);
        if (!serving) {
            decideRound(step, finalRound);
        }
        if (w.models() == null) {
            return;
        }
        float[] params = r == 0 ? w.models().of(step).parameterVector() : null;
        int ranks = seq.roundRanks(step, w.trainers());
        for (LayerOutputs pin : LayerOutputs.pins(step, r, ranks, params, new int[] {0})) {
            hold(pin);
        }
        if (SimChannels.HELD_OUTPUTS) {
            heldPins.add(step);
        } else {
            w.pinned().accept(r, step);
        }
    }

    /** A layer output made: stamped now, as the trainer stamps it, and held for buffers. */
    private void hold(LayerOutputs o) {
        w.net().stamp(role(), o);
        if (!SimChannels.HELD_OUTPUTS) {
            w.net().send(role(), "outputs", o);
            return;
        }
        held.add(o);
    }

    /** Whether outputs wait for the rank's buffers. */
    boolean holds() {
        return !held.isEmpty();
    }

    /** The rank's output buffers free up: its held outputs go, then its next batch. */
    void release() {
        for (LayerOutputs o : held) {
            w.net().send(role(), "outputs", o);
        }
        held.clear();
        for (long step : heldPins) {
            w.pinned().accept(r, step);
        }
        heldPins.clear();
        next();
    }

    private void apply(long step, float[] mean) {
        if (step != seq.progress().appliedStep + 1) {
            throw new AssertionError(
                    "rank "
                            + seq.rank()
                            + " applies step "
                            + step
                            + " after "
                            + seq.progress().appliedStep);
        }
        float[] entry = new float[mean.length + 1];
        entry[0] = step;
        System.arraycopy(mean, 0, entry, 1, mean.length);
        model.log.add(entry);
        for (float f : mean) {
            model.hash = model.hash * 31 + Float.floatToRawIntBits(f) + step;
        }
        seq.applied(step);
    }

    /**
     * A float per seed, made of the seed and the features of the batch's nodes, none of them exact
     * in binary, so that a sum in another order would differ in its last bits; zero for every other
     * vertex, so the applied mean still names the step's seeds.
     */
    private float[] gradient(MiniBatch b) {
        float content = 0;
        for (int i = 0; i < b.numNodes(); i++) {
            content += b.features[i * b.featureDim + 1] + b.features[i * b.featureDim] / 7f;
        }
        float[] g = new float[w.params()];
        for (int i = 0; i < b.numSeeds(); i++) {
            long s = b.nodeIds[i];
            g[(int) s] += (1f + content / 1024f) / (s + 3);
        }
        return g;
    }

    /** A hidden layer's outputs of a block: row {@code [v + 1, step]} per destination. */
    private static LayerOutputs outputs(MiniBatch b) {
        LayerOutputs o = new LayerOutputs();
        o.step = b.step;
        o.layer = b.layer;
        o.roundIndex = b.roundIndex;
        o.part = 0;
        o.parts = 1;
        o.dim = SimGraph.ROW;
        o.vertices = Arrays.copyOf(b.nodeIds, b.numSeeds());
        o.values = new float[o.vertices.length * o.dim];
        for (int i = 0; i < o.vertices.length; i++) {
            o.values[i * o.dim] = o.vertices[i] + 1;
            o.values[i * o.dim + 1] = b.step;
        }
        return o;
    }

    /** The rank's progress, for a failure's message. */
    String describe() {
        TrainerProgress p = seq.progress();
        return "\nrank "
                + r
                + ": next seq "
                + p.nextSeq
                + ", applied "
                + p.appliedStep
                + ", layout "
                + p.layout
                + ", waiting "
                + seq.waiting().stream().map(m -> m.seq).toList()
                + ", pending "
                + (exchange.pending() == null ? "-" : exchange.pending().step);
    }
}

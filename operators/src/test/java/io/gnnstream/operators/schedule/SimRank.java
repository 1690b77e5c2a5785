package io.gnnstream.operators.schedule;

import static io.gnnstream.operators.schedule.SimChannels.copy;

import io.gnnstream.operators.TrainerProgress;
import io.gnnstream.operators.TrainerReplica;
import io.gnnstream.operators.internal.PendingStep;
import io.gnnstream.operators.messages.Credit;
import io.gnnstream.operators.messages.GradientChunk;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.ReducedChunk;
import io.gnnstream.operators.model.ModelState;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * One trainer rank of a {@link ProtocolSimulator} run: its {@link TrainerRank} and {@link
 * GradientExchange}, and a model made of what it applied. It takes its batches in sequence, joins
 * the all-reduce of a training step when there are several ranks, hands a hidden layer's outputs to
 * the GraphStore and reports a last-pass block as scored.
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
            int trainers, int params, int numLayers, SimChannels net, Consumer<MiniBatch> scored) {}

    final TrainerRank seq;
    final GradientExchange exchange;
    final RankModel model;
    private final int r;
    private final Wiring w;

    private SimRank(int r, TrainerRank seq, GradientExchange exchange, RankModel model, Wiring w) {
        this.r = r;
        this.seq = seq;
        this.exchange = exchange;
        this.model = model;
        this.w = w;
    }

    /** Rank {@code r} of a run that starts from nothing. */
    static SimRank fresh(int r, Wiring w) {
        return new SimRank(
                r,
                new TrainerRank(r, new TrainerProgress(), List.of(), false),
                new GradientExchange(r, w.params(), 1, 0),
                new RankModel(),
                w);
    }

    /**
     * The ranks restored from the snapshots {@code old} of a checkpoint's ranks: each from its own
     * at the same trainer count, else every one from the furthest replica.
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
                GradientExchange ex = new GradientExchange(r, w.params(), 1, progress.layout);
                if (s[2] != null) {
                    ex.restore(copy((PendingStep) s[2]));
                }
                ranks[r] =
                        new SimRank(
                                r,
                                new TrainerRank(r, progress, buffered, false),
                                ex,
                                ((RankModel) s[3]).copy(),
                                w);
            } else {
                TrainerProgress progress = TrainerReplica.restoredAt(replicas);
                ranks[r] =
                        new SimRank(
                                r,
                                new TrainerRank(r, progress, List.of(), true),
                                new GradientExchange(r, w.params(), 1, progress.layout),
                                ((RankModel) old.get(furthest.rank)[3]).copy(),
                                w);
            }
        }
        return ranks;
    }

    /** The rank's snapshot: its replica, buffered batches, pending step and model. */
    Object[] snapshot() {
        ModelState m = new ModelState();
        m.step = seq.progress().appliedStep;
        return new Object[] {
            new TrainerReplica(r, w.trainers(), m, copy(seq.progress())),
            seq.waiting(),
            exchange.pending() == null ? null : copy(exchange.pending()),
            model.copy()
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
        next();
    }

    /** A batch or a reduced sum reaches the rank. */
    void accept(Object p) {
        if (p instanceof MiniBatch b) {
            if (seq.arrival(b.address(), exchange.pending() != null)
                    != TrainerRank.Arrival.WANTED) {
                return;
            }
            seq.buffer(b);
            next();
        } else {
            float[] mean = exchange.accept((ReducedChunk) p);
            if (mean != null) {
                PendingStep step = exchange.pending();
                apply(step.step, mean);
                exchange.complete();
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
        while (exchange.pending() == null) {
            MiniBatch b = seq.takeNext();
            if (b == null) {
                return;
            }
            if (b.isTraining() && w.trainers() > 1) {
                PendingStep p = new PendingStep();
                p.step = b.step;
                p.seq = b.seq;
                p.seeds = b.nodeIds.length;
                p.grad = gradient(b.nodeIds);
                p.roundSize = b.roundSize;
                for (GradientChunk c : exchange.begin(p)) {
                    w.net().send(role(), "gradients", c);
                }
                return;
            }
            if (b.isTraining()) {
                apply(b.step, gradient(b.nodeIds));
            } else if (b.layer < w.numLayers()) {
                w.net().send(role(), "outputs", b);
            } else {
                w.scored().accept(b);
            }
            w.net().send(role(), "credits", seq.finish(b.seq));
        }
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
     * A float per seed, none of them exact in binary ({@code 1 / (s + 3)}), so that a sum in
     * another order would differ in its last bits; zero for every other vertex, so the applied mean
     * still names the step's seeds.
     */
    private float[] gradient(long[] seeds) {
        float[] g = new float[w.params()];
        for (long s : seeds) {
            g[(int) s] += 1f / (s + 3);
        }
        return g;
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

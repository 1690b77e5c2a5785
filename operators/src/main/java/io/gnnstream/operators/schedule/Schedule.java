package io.gnnstream.operators.schedule;

import io.gnnstream.operators.SchedulerConfig;
import io.gnnstream.operators.SchedulerState;
import io.gnnstream.operators.messages.BatchSpec;
import io.gnnstream.operators.messages.Credit;
import io.gnnstream.operators.messages.GraphEvent;
import io.gnnstream.operators.messages.MiniBatch;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scheduler role of the batch protocol (docs/design.md, "Glossary" and "SeedScheduler"), free
 * of Flink: it takes graph events and credits, emits batch specs, and is snapshotted to and
 * restored from a {@link SchedulerState}. Its jobs are split into the seed sets ({@link SeedSets}),
 * the epoch cursor ({@link EpochCursor}), the round plan ({@link RoundPlan}) and the credit ledger
 * ({@link CreditLedger}); what is issued again after a restore or a stall is {@link Recovery}'s.
 * This class holds the rules that join them: what is issued next and what a credit acknowledges.
 * {@code SeedScheduler} feeds it records; the simulation test feeds it in memory. Not thread-safe;
 * time comes from a clock.
 */
public final class Schedule {

    private static final Logger LOG = LoggerFactory.getLogger(Schedule.class);

    /**
     * Blocks of an evaluation round a rank may have unacknowledged: a block holds all its
     * destinations' in-neighbours (tens of thousands of rows), so a rank holds at most this many
     * besides its training batches' worth.
     */
    public static final int ROUND_PREFETCH = 2;

    private final SchedulerConfig config;
    private final Consumer<BatchSpec> out;
    private final LongSupplier clock;
    private final boolean restored;

    private final SeedSets seeds;
    private final EpochCursor cursor;
    private final RoundPlan round;
    private final CreditLedger ledger;
    private final long[] partitionVertices;
    private final long[] partitionEdgesIngested;
    private final long[] partitionReplicas;
    private final long[] partitionCutEdgesIngested;
    private final Recovery recovery;

    /** Per pass of the round in progress: when its first block was issued; 0: not seen. */
    private long[] passStartNanos;

    private boolean startLogged;

    /**
     * A schedule from {@code state} (a restore; a new generation), or a fresh one when it is null.
     * Specs go to {@code out}; a rank or a round without progress for {@code stallNanos} of {@code
     * clock} has its specs issued again.
     */
    public Schedule(
            SchedulerConfig config,
            SchedulerState state,
            Consumer<BatchSpec> out,
            LongSupplier clock,
            long stallNanos) {
        this.config = config;
        this.out = out;
        this.clock = clock;
        this.restored = state != null;
        SchedulerState s = state != null ? state : fresh(config);
        this.seeds = SeedSets.load(s);
        this.cursor = EpochCursor.load(config.seed, s);
        this.round = RoundPlan.load(config, s);
        this.ledger =
                restored
                        ? CreditLedger.restore(config.prefetch, s)
                        : CreditLedger.fresh(config.prefetch, config.scale.trainers());
        this.partitionVertices = s.partitionVertices;
        this.partitionEdgesIngested = s.partitionEdgesIngested;
        this.partitionReplicas =
                s.partitionReplicas != null
                        ? s.partitionReplicas
                        : new long[config.scale.partitions()];
        this.partitionCutEdgesIngested =
                s.partitionCutEdgesIngested != null
                        ? s.partitionCutEdgesIngested
                        : new long[config.scale.partitions()];
        this.recovery = new Recovery(config, out, clock, stallNanos, seeds, cursor, round, ledger);
        if (ledger.ranks() != config.scale.trainers()) {
            recovery.beginLayout(s);
        }
    }

    private static SchedulerState fresh(SchedulerConfig config) {
        SchedulerState s = new SchedulerState();
        s.trainSeeds = new long[0];
        s.valSeeds = new long[0];
        s.testSeeds = new long[0];
        s.otherSeeds = new long[0];
        s.partitionVertices = new long[config.scale.partitions()];
        s.partitionEdgesIngested = new long[config.scale.partitions()];
        return s;
    }

    /**
     * A restored schedule issues its unacknowledged specs again, and its unstored round blocks as
     * its ranks' credit allows.
     */
    public void start() {
        if (restored) {
            recovery.restarted();
            issue();
        }
    }

    /**
     * The state to checkpoint (a new object; the schedule keeps working on its own). Call it once
     * per snapshot: it starts a new period of acknowledgements kept for a rewind ({@link
     * CreditLedger}).
     */
    public SchedulerState snapshot() {
        return state(true);
    }

    /** The state as {@link #snapshot()} would give it, without starting a new period (tests). */
    SchedulerState view() {
        return state(false);
    }

    private SchedulerState state(boolean snapshot) {
        SchedulerState s = new SchedulerState();
        seeds.store(s);
        cursor.store(s);
        round.store(s);
        ledger.store(s, snapshot);
        s.partitionVertices = partitionVertices.clone();
        s.partitionEdgesIngested = partitionEdgesIngested.clone();
        s.partitionReplicas = partitionReplicas.clone();
        s.partitionCutEdgesIngested = partitionCutEdgesIngested.clone();
        return s;
    }

    /** A seed announcement or deletion, graph statistics or an acknowledged layer-output write. */
    public void onGraphEvent(GraphEvent e) {
        if (e.kind == GraphEvent.Kind.LAYER_WRITTEN) {
            if (round.written(e.step, e.roundIndex, e.part, e.parts)) {
                recovery.written();
            }
        } else if (e.kind == GraphEvent.Kind.STATS) {
            partitionVertices[e.partition] = e.vertices;
            partitionEdgesIngested[e.partition] = e.edgesIngested;
            partitionReplicas[e.partition] = e.replicas;
            partitionCutEdgesIngested[e.partition] = e.cutEdgesIngested;
        } else if (e.kind == GraphEvent.Kind.DELETED) {
            seeds.remove(e.vertex);
        } else {
            seeds.assign(e.vertex, e.split);
        }
        issue();
    }

    /** A rank's absolute progress: every spec up to {@code processedSeq} is done. */
    public void onCredit(Credit credit) {
        if (credit.processedSeq < RankLayout.seqBase(ledger.layout()) - 1) {
            return; // a credit of an earlier layout's rank
        }
        int rank = credit.trainer;
        if (rank < 0 || rank >= config.scale.trainers()) {
            throw new IllegalStateException(
                    "credit from trainer " + rank + " of " + config.scale.trainers());
        }
        ledger.reported(rank, credit.processedSeq);
        if (ledger.awaitingRestoredStep()) {
            recovery.continueAt(
                    RankLayout.restoredStep(ledger.layout(), credit.processedSeq), rank);
            issue();
            return;
        }
        recovery.credited(rank, credit.processedSeq);
        List<BatchSpec> done = ledger.acknowledge(rank, credit.processedSeq);
        if (!done.isEmpty()) {
            cursor.dropStartsBefore(ledger.firstTrainingStep(cursor.steps() + 1));
            logRoundIfComplete(done);
        }
        issue();
    }

    /** Training steps cut so far. */
    public long steps() {
        return cursor.steps();
    }

    /**
     * Issues evaluation blocks and training steps in schedule order while their ranks have credit:
     * a block needs its rank's, a training step (a batch for every rank) every rank's.
     */
    private void issue() {
        if (ledger.awaitingRestoredStep()) {
            return;
        }
        while (true) {
            int again = round.nextAgain();
            if (again >= 0) {
                int rank = round.rankOf(again);
                if (!ledger.hasCredit(rank) || ledger.roundBlocksInFlight(rank) >= ROUND_PREFETCH) {
                    return;
                }
                emit(round.takeAgain(again), rank);
                continue;
            }
            if (round.pending()) {
                int i = round.next();
                if (!round.ready(i)) {
                    return;
                }
                int rank = round.rankOf(i);
                if (!ledger.hasCredit(rank) || ledger.roundBlocksInFlight(rank) >= ROUND_PREFETCH) {
                    return;
                }
                notePassStart(round.passOf(i));
                emit(round.take(), rank);
                continue;
            }
            if (servingDue()) {
                recovery.beginServingRound();
                continue;
            }
            for (int r = 0; r < config.scale.trainers(); r++) {
                if (!ledger.hasCredit(r)) {
                    return;
                }
            }
            BatchSpec[] step = nextTrainingStep();
            if (step == null) {
                return;
            }
            for (int r = 0; r < step.length; r++) {
                emit(step[r], r);
            }
        }
    }

    /**
     * The serving round is due: the last step is cut and every block of the final round issued
     * (docs/design.md, "Model selection"). Its blocks follow the final round's in every rank's
     * sequence; rank 0 computes them once the selection has decided.
     */
    private boolean servingDue() {
        return config.servingRound()
                && cursor.steps() == config.maxSteps
                && round.step() == config.maxSteps
                && round.size() > 0
                && !round.pending();
    }

    private void emit(BatchSpec spec, int rank) {
        long batchId =
                config.sites() != null && spec.kind == MiniBatch.Kind.TRAIN
                        ? config.sites().batchIdFor(rank, ledger.nextBatchId())
                        : -1;
        spec.graphVertices = Arrays.stream(partitionVertices).sum();
        spec.graphEdgesIngested = Arrays.stream(partitionEdgesIngested).sum();
        spec.graphReplicas = Arrays.stream(partitionReplicas).sum();
        spec.graphCutEdgesIngested = Arrays.stream(partitionCutEdgesIngested).sum();
        ledger.issue(spec, rank, batchId);
        out.accept(spec);
    }

    /**
     * The next training step: the next {@code trainers x batchSize} seeds of the epoch's order,
     * split evenly over the ranks in rank order (rank r takes the r-th slice, like {@code
     * train_idx.split(...)[rank]}), or with local batches by owner; an epoch's last step takes what
     * is left, and a remainder smaller than the number of ranks is skipped (it would leave a rank
     * without seeds). Null when no step may start.
     */
    private BatchSpec[] nextTrainingStep() {
        boolean stepsLeft = config.maxSteps <= 0 || cursor.steps() < config.maxSteps;
        if (!stepsLeft
                || seeds.trainCount() == 0
                || seeds.trainCount() < config.minTrainSeeds
                || !graphLoaded()) {
            return null;
        }
        long[] slice =
                cursor.next(
                        config.batchSize * config.scale.trainers(),
                        config.scale.trainers(),
                        seeds::train);
        if (slice == null) {
            return null;
        }
        slice = stillTraining(slice);
        long step = cursor.steps();
        boolean last = config.maxSteps > 0 && step == config.maxSteps;
        boolean evaluate =
                last
                        || (config.evalEvery > 0 && step % config.evalEvery == 0)
                        || (config.predictEvery > 0 && step % config.predictEvery == 0);
        if (evaluate) {
            recovery.beginRound(step, last);
        }
        BatchSpec[] specs = new BatchSpec[config.scale.trainers()];
        long[][] local = config.sites() == null ? null : config.sites().split(slice);
        int n = slice.length;
        for (int r = 0; r < config.scale.trainers(); r++) {
            BatchSpec spec = new BatchSpec();
            spec.kind = MiniBatch.Kind.TRAIN;
            int from = (int) ((long) n * r / config.scale.trainers());
            int to = (int) ((long) n * (r + 1) / config.scale.trainers());
            spec.seeds = local != null ? local[r] : Arrays.copyOfRange(slice, from, to);
            spec.step = step;
            if (evaluate) {
                spec.roundSize = round.size();
                spec.roundShare = round.lastPassShare(r);
                spec.finalRound = last;
            }
            specs[r] = spec;
        }
        return specs;
    }

    /**
     * The step's seeds without those that left the training split (deleted or moved) since the
     * epoch's order was drawn; padded from the training split where fewer than one per rank are
     * left.
     */
    private long[] stillTraining(long[] slice) {
        long[] kept = Arrays.stream(slice).filter(seeds::isTrain).toArray();
        if (kept.length >= config.scale.trainers()) {
            return kept;
        }
        long[] train = seeds.train();
        return Arrays.copyOf(train, Math.min(train.length, config.scale.trainers()));
    }

    /**
     * The graph has reached the size training waits for (the deterministic mode's hold); once
     * training has started, it stays so, also when deletions shrink the graph below that size.
     */
    private boolean graphLoaded() {
        if (cursor.steps() > 0) {
            return true;
        }
        long vertices = Arrays.stream(partitionVertices).sum();
        long edges = Arrays.stream(partitionEdgesIngested).sum();
        boolean loaded = vertices >= config.minVertices && edges >= config.minEdges;
        if (loaded && cursor.steps() == 0 && !startLogged) {
            startLogged = true;
            LOG.info(
                    "Training starts: {} vertices, {} edges ingested, {} training vertices",
                    vertices,
                    edges,
                    seeds.trainCount());
        }
        return loaded;
    }

    private void notePassStart(int pass) {
        if (passStartNanos == null || passStartNanos.length != config.numLayers + 1) {
            passStartNanos = new long[config.numLayers + 1];
        }
        if (passStartNanos[pass - 1] == 0) {
            passStartNanos[pass - 1] = clock.getAsLong();
        }
    }

    /**
     * Logs how long the round took, per layer, once its last block is acknowledged (a pass ends
     * where the next begins; the last one with the acknowledgement).
     */
    private void logRoundIfComplete(List<BatchSpec> done) {
        if (passStartNanos == null
                || passStartNanos[0] == 0
                || round.pending()
                || done.stream().noneMatch(this::ofRound)
                || Arrays.stream(ledger.unacked()).anyMatch(this::ofRound)) {
            return;
        }
        long end = clock.getAsLong();
        passStartNanos[config.numLayers] = end;
        StringBuilder layers = new StringBuilder();
        for (int l = 0; l < config.numLayers; l++) {
            long to = passStartNanos[l + 1] != 0 ? passStartNanos[l + 1] : end;
            layers.append(l == 0 ? "" : ", ")
                    .append(
                            String.format(
                                    Locale.ROOT,
                                    "layer %d %.1f s",
                                    l + 1,
                                    (to - passStartNanos[l]) / 1e9));
        }
        LOG.info(
                String.format(
                        Locale.ROOT,
                        "Evaluation round of step %d: %.1f s (%s), %d blocks over %d ranks, %d"
                                + " vertices",
                        round.step(),
                        (end - passStartNanos[0]) / 1e9,
                        layers,
                        round.size(),
                        round.onRankZero() ? 1 : config.scale.trainers(),
                        round.vertices()));
        passStartNanos = null;
    }

    private boolean ofRound(BatchSpec spec) {
        return spec.kind != MiniBatch.Kind.TRAIN && spec.step == round.step();
    }
}

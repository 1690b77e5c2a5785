package io.gnnstream.operators.schedule;

import io.gnnstream.operators.SchedulerConfig;
import io.gnnstream.operators.SchedulerState;
import io.gnnstream.operators.messages.BatchSpec;
import io.gnnstream.operators.messages.MiniBatch;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@link Schedule} issues again (terms in docs/design.md, "Glossary": re-issue, rewind,
 * layout, round): after a restore, to a rank that restored behind its acknowledgements, to the
 * ranks of a new layout from the step they announce, to a rank that stalled, and the round's blocks
 * whose outputs were not stored. It keeps the clocks the stall limit is measured on. Logs under the
 * scheduler's name.
 */
final class Recovery {

    private static final Logger LOG = LoggerFactory.getLogger(Schedule.class);

    private final SchedulerConfig config;
    private final Consumer<BatchSpec> out;
    private final LongSupplier clock;
    private final long stallNanos;
    private final SeedSets seeds;
    private final EpochCursor cursor;
    private final RoundPlan round;
    private final CreditLedger ledger;

    /** When a write of the round was last acknowledged (or its unwritten blocks re-issued). */
    private long writeProgressNanos;

    /** Per rank: when its acknowledged progress last advanced (or its specs were re-issued). */
    private final long[] progressNanos;

    Recovery(
            SchedulerConfig config,
            Consumer<BatchSpec> out,
            LongSupplier clock,
            long stallNanos,
            SeedSets seeds,
            EpochCursor cursor,
            RoundPlan round,
            CreditLedger ledger) {
        this.config = config;
        this.out = out;
        this.clock = clock;
        this.stallNanos = stallNanos;
        this.seeds = seeds;
        this.cursor = cursor;
        this.round = round;
        this.ledger = ledger;
        this.writeProgressNanos = clock.getAsLong();
        this.progressNanos = new long[config.scale.trainers()];
        Arrays.fill(progressNanos, clock.getAsLong());
    }

    /** A restored schedule issues its unacknowledged specs and unstored round blocks again. */
    void restarted() {
        if (!ledger.awaitingRestoredStep()) {
            ledger.reissueAll().forEach(out);
            reissueUnwritten();
        }
    }

    /** The round of {@code step} begins; its writes are awaited from now on. */
    void beginRound(long step, boolean last) {
        round.begin(step, last, seeds);
        writeProgressNanos = clock.getAsLong();
    }

    /**
     * The serving round after the final one: a round of step {@code maxSteps + 1}, which no
     * training step starts, all on rank 0 (docs/design.md, "Model selection").
     */
    void beginServingRound() {
        beginRound(config.maxSteps + 1, false);
        round.allOnRankZero();
        LOG.info(
                "Serving round of the kept parameters after the final step {}: {} blocks on rank 0",
                config.maxSteps,
                round.size());
    }

    /** The GraphStore acknowledged a write of the round. */
    void written() {
        writeProgressNanos = clock.getAsLong();
    }

    /**
     * A credit of {@code rank}, before the ledger acknowledges it: a rank behind its
     * acknowledgements is rewound; one without progress for the stall limit, or a round without
     * acknowledged writes for it, has its specs issued again.
     */
    void credited(int rank, long processedSeq) {
        if (processedSeq < ledger.acked(rank)) {
            rewind(rank, processedSeq);
        }
        long now = clock.getAsLong();
        if (processedSeq > ledger.acked(rank)) {
            progressNanos[rank] = now;
        } else {
            reissueIfStalled(rank, now);
            if (now - writeProgressNanos >= stallNanos) {
                reissueUnwritten();
            }
        }
    }

    private void rewind(int rank, long processedSeq) {
        long[] missing = new long[1];
        long wasAcked = ledger.acked(rank);
        List<BatchSpec> again = ledger.rewind(rank, processedSeq, missing);
        LOG.info(
                "Rank {} restored at seq {}, behind the acknowledged seq {}: {} batches are issued"
                        + " again{}",
                rank,
                processedSeq,
                wasAcked,
                again.size(),
                missing[0] > 0 ? " (" + missing[0] + " no longer known)" : "");
        again.forEach(out);
        progressNanos[rank] = clock.getAsLong();
    }

    /** The schedule restored from {@code s} continues with another number of ranks. */
    void beginLayout(SchedulerState s) {
        if (s.stepStarts == null) {
            throw new IllegalStateException(
                    "the schedule was checkpointed for "
                            + ledger.ranks()
                            + " trainers by a version that cannot restore it for another number;"
                            + " restore it with "
                            + ledger.ranks()
                            + " trainers");
        }
        LOG.info(
                "The schedule of {} trainer ranks continues with {}: waiting for a rank to announce"
                        + " the step it restored ({} steps issued)",
                ledger.ranks(),
                config.scale.trainers(),
                cursor.steps());
        ledger.beginLayout(config.scale.trainers());
    }

    /**
     * The ranks of a new layout restored step {@code k}: the schedule continues with step {@code
     * k+1} from where it began, for this layout's ranks, after a round of step k issued again
     * unless the old ranks acknowledged all of it. Specs of the old layout are dropped.
     */
    void continueAt(long k, int announcer) {
        if (k < 0 || k > cursor.steps()) {
            throw new IllegalStateException(
                    "rank "
                            + announcer
                            + " restored step "
                            + k
                            + ", but the schedule issued "
                            + cursor.steps()
                            + " steps");
        }
        boolean roundOfK = false;
        boolean finalRoundOfK = false;
        for (BatchSpec spec : ledger.unacked()) {
            if (spec.kind != MiniBatch.Kind.TRAIN && spec.step == k) {
                roundOfK = true;
                finalRoundOfK |= spec.finalRound;
            }
        }
        cursor.continueAfter(k);
        if (config.bestVal() && config.maxSteps > 0 && k == config.maxSteps) {
            // The old ranks may have waited for the final selection exchange, lost with them:
            // rank 0 scores the final round again by itself and decides from its own counts
            // (then the serving round follows).
            if (round.step() == k && round.size() > 0) {
                round.restartOnRankZero();
            } else {
                beginRound(k, true);
                round.allOnRankZero();
            }
        } else if (round.step() == k && (roundOfK || round.pending())) {
            round.restartOnRankZero();
        } else if (roundOfK) {
            beginRound(k, finalRoundOfK);
            round.allOnRankZero();
        } else {
            round.cancel();
        }
        ledger.continueAt(k);
        Arrays.fill(progressNanos, clock.getAsLong());
        LOG.info(
                "Rank {} restored step {}: the schedule continues with step {} for {} ranks{}",
                announcer,
                k,
                k + 1,
                config.scale.trainers(),
                round.pending() ? ", after the evaluation round of step " + k : "");
    }

    /**
     * A rank that repeats its credit without progress for the stall limit while specs of it are
     * unacknowledged has lost a batch for good (e.g. a feature part it had to drop after a
     * restore): its unacknowledged specs are issued again, of a new generation.
     */
    private void reissueIfStalled(int rank, long now) {
        if (now - progressNanos[rank] < stallNanos) {
            return;
        }
        progressNanos[rank] = now;
        List<BatchSpec> again = ledger.reissue(rank);
        again.forEach(out);
        if (!again.isEmpty()) {
            LOG.warn(
                    "rank {} made no progress for {} s past seq {}: its unacknowledged batches are"
                            + " issued again",
                    rank,
                    stallNanos / 1_000_000_000L,
                    ledger.acked(rank));
        }
    }

    /**
     * Queues again, for a new generation and new sequence numbers, the blocks of the round's
     * current hidden-layer pass that their rank has acknowledged but whose outputs the GraphStore
     * has not acknowledged storing: after a restore (outputs travel on an edge that is in no
     * checkpoint), or when no write has been acknowledged for the stall limit. The schedule issues
     * them under their ranks' credit, before any new block; the model has not changed since (the
     * round precedes the next step on every rank), so the outputs are the same.
     */
    private void reissueUnwritten() {
        writeProgressNanos = clock.getAsLong();
        Set<Integer> pending = ledger.unackedBlocks(round.step());
        int again = 0;
        int pass = 0;
        for (int i : round.unwritten()) {
            if (!pending.contains(i) && round.issueAgain(i)) {
                if (again++ == 0) {
                    ledger.nextGeneration();
                }
                pass = round.passOf(i);
            }
        }
        if (again > 0) {
            LOG.info(
                    "{} blocks of layer {} of the round of step {} have no stored outputs: issued"
                            + " again",
                    again,
                    pass,
                    round.step());
        }
    }
}

package io.gnnstream.operators.schedule;

import io.gnnstream.operators.TrainerProgress;
import io.gnnstream.operators.messages.BatchAddress;
import io.gnnstream.operators.messages.Credit;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.model.EvalResult;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * The sequencing rules of a trainer rank (docs/design.md, "Glossary" and "Trainer"), free of Flink:
 * whole batches wait until their {@code seq} is next, so the sequence of updates is the scheduler's
 * whatever the timing; a batch the rank has trained, holds or is working on is ignored when it
 * comes again (a re-issue); each finished batch is acknowledged by a {@link Credit} with the rank's
 * absolute progress. A rank restored at another trainer count announces the step it restored in its
 * first credit. {@code TrainerOperator} runs the model steps and feeds this class; the simulation
 * test feeds it in memory. Not thread-safe.
 */
public final class TrainerRank {

    private final int rank;
    private final TrainerProgress progress;
    private final TreeMap<Long, MiniBatch> buffered = new TreeMap<>();
    private final boolean announce;

    /**
     * Rank {@code rank} at {@code progress} with the whole batches {@code buffered} waiting; {@code
     * announce}: restored at another trainer count.
     */
    public TrainerRank(
            int rank, TrainerProgress progress, Iterable<MiniBatch> buffered, boolean announce) {
        this.rank = rank;
        this.progress = progress;
        this.announce = announce;
        for (MiniBatch b : buffered) {
            this.buffered.put(b.seq, b);
        }
    }

    public int rank() {
        return rank;
    }

    public TrainerProgress progress() {
        return progress;
    }

    /** The credit to send when the rank starts: the restored step's announcement, or none. */
    public Credit startCredit() {
        return announce ? current() : null;
    }

    /** The rank's absolute progress as a credit (sent again while the rank is idle). */
    public Credit current() {
        return new Credit(rank, progress.nextSeq - 1);
    }

    /**
     * True when the batch of {@code seq} was trained on, is buffered, or is the next one while a
     * step is {@code active} (computing, or waiting for its reduced gradient).
     */
    private boolean alreadyHave(long seq, boolean active) {
        return seq < progress.nextSeq
                || buffered.containsKey(seq)
                || active && seq == progress.nextSeq;
    }

    /** What a rank does with a record of a batch that arrives. */
    public enum Arrival {
        /** Addressed to another rank (of a layout that no longer exists): dropped. */
        FOREIGN,
        /** A batch the rank has trained, holds or is working on (a re-issue): not joined again. */
        HELD,
        /** A batch the rank waits for. */
        WANTED
    }

    /**
     * What the rank does with a record of the batch at {@code address}; {@code active}: a step is
     * computing or waiting for its reduced gradient.
     */
    public Arrival arrival(BatchAddress address, boolean active) {
        if (address.rank() != rank) {
            return Arrival.FOREIGN;
        }
        return alreadyHave(address.seq(), active) ? Arrival.HELD : Arrival.WANTED;
    }

    /** A whole batch waits for its turn. */
    public void buffer(MiniBatch batch) {
        buffered.put(batch.seq, batch);
    }

    /**
     * The next batch in sequence, taken out, or null when it is not here, or when it is a block of
     * the serving round ({@link #serving}) while the rank waits for the final selection exchange:
     * the serving round computes with the parameters that exchange decides on.
     */
    public MiniBatch takeNext() {
        if (buffered.isEmpty() || buffered.firstKey() != progress.nextSeq) {
            return null;
        }
        if (progress.selecting && serving(buffered.firstEntry().getValue())) {
            return null;
        }
        return buffered.pollFirstEntry().getValue();
    }

    /**
     * A block of the serving round (docs/design.md, "Model selection"): a round of a step this rank
     * never applied, as no training step starts it (the step after the final one). A block of any
     * other round follows its step in the rank's sequence.
     */
    public boolean serving(MiniBatch batch) {
        return batch.layer > 0 && servingRound(batch.step);
    }

    /** The round of {@code step} is the serving round ({@link #serving}). */
    public boolean servingRound(long step) {
        return step > progress.appliedStep;
    }

    /**
     * A training batch of a step this rank applied already: one it took with a further replica at
     * its restore ({@code TrainerReplica#catchUp}), finished without training.
     */
    public boolean appliedAlready(MiniBatch batch) {
        return batch.isTraining() && batch.step <= progress.appliedStep;
    }

    /** The batches waiting, in sequence order (for a snapshot). */
    public List<MiniBatch> waiting() {
        return new ArrayList<>(buffered.values());
    }

    /** The update of training step {@code step} is applied. */
    public void applied(long step) {
        progress.appliedStep = step;
    }

    /**
     * Training step {@code step} starts a round in which this rank scores {@code share} blocks of
     * the last pass; true if that is none, so its share is complete at once.
     */
    public boolean roundBegins(long step, int share) {
        progress.resetRound(step);
        progress.roundShare = share;
        return share == 0;
    }

    /**
     * An evaluation batch or round block is done with result {@code r} (null: nothing scored): its
     * counts go to the round of its step; true when it is a scored block ({@code scored}: of the
     * last pass, or a sampled evaluation batch) that completes the rank's share of the round.
     */
    public boolean evaluated(MiniBatch batch, EvalResult r, boolean scored) {
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
        if (!scored) {
            return false;
        }
        progress.roundSeen++;
        progress.roundShare = batch.roundShare > 0 ? batch.roundShare : progress.roundShare;
        return progress.roundSeen == progress.roundShare;
    }

    /**
     * True when the round of {@code step} is the restored step's, issued again after a restore at
     * another trainer count: the other ranks reported it before the restore.
     */
    public boolean alone(long step) {
        return progress.layout > 0 && step == progress.layoutStep;
    }

    /**
     * The ranks that compute the round of {@code step} at {@code trainers} ranks, as its pin
     * records name them: one when the round is issued again all on rank 0 ({@link #alone}), whose
     * other ranks send no pin record of it, and the serving round, all on rank 0.
     */
    public int roundRanks(long step, int trainers) {
        return alone(step) || servingRound(step) ? 1 : trainers;
    }

    /** The batch of {@code seq} is done: the credit that acknowledges it. */
    public Credit finish(long seq) {
        progress.nextSeq = seq + 1;
        return new Credit(rank, seq);
    }
}

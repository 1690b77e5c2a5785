package io.gnnstream.operators.schedule;

import io.gnnstream.operators.SchedulerState;
import io.gnnstream.operators.messages.BatchSpec;
import io.gnnstream.operators.messages.MiniBatch;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Per rank: the specs issued and not yet acknowledged, the sequence numbers issued and
 * acknowledged, and the specs acknowledged but perhaps not trained by the rank as a restore will
 * find it. A restored rank may report less progress than the acknowledgements restored with it, and
 * then gets those specs again: its snapshot of a checkpoint can come before the scheduler's by any
 * number of batches (credits travel on a feedback edge, which carries no barriers), but not before
 * the scheduler's snapshot of the previous checkpoint (one checkpoint at a time), and a rank never
 * goes back on the progress it reported since the scheduler started. So a snapshot keeps every
 * acknowledged spec above the progress the rank had reported at the snapshot before; until a
 * restored rank reports, that is everything restored. Specs are numbered per rank from the layout's
 * first sequence number ({@link RankLayout}); each re-issue carries a new generation.
 */
final class CreditLedger {

    private final int prefetch;
    private long[] issued;
    private long[] acked;
    private BatchSpec[] unacked;
    private BatchSpec[] recentlyAcked;
    private int generation;
    private int layout;
    private boolean awaitingRestoredStep;
    private long nextBatchId;

    /** Per rank: the highest progress it reported to this instance (not state). */
    private long[] reported;

    private CreditLedger(int prefetch, SchedulerState s) {
        this.prefetch = prefetch;
        this.issued = s.issuedSeqs;
        this.acked = s.ackedSeqs;
        this.unacked = s.unacked;
        this.recentlyAcked = s.recentlyAcked == null ? new BatchSpec[0] : s.recentlyAcked;
        this.generation = s.generation;
        this.layout = s.layout;
        this.awaitingRestoredStep = s.awaitingRestoredStep;
        this.nextBatchId = s.nextBatchId;
        this.reported = unreported(issued.length);
    }

    private static long[] unreported(int ranks) {
        long[] r = new long[ranks];
        Arrays.fill(r, Long.MIN_VALUE);
        return r;
    }

    /** {@code rank} reports its progress: every spec up to {@code processedSeq} is done. */
    void reported(int rank, long processedSeq) {
        reported[rank] = Math.max(reported[rank], processedSeq);
    }

    /** A ledger for {@code trainers} ranks with nothing issued. */
    static CreditLedger fresh(int prefetch, int trainers) {
        SchedulerState s = new SchedulerState();
        s.issuedSeqs = new long[trainers];
        s.ackedSeqs = new long[trainers];
        Arrays.fill(s.ackedSeqs, -1);
        s.unacked = new BatchSpec[0];
        return new CreditLedger(prefetch, s);
    }

    /** The ledger of a snapshot; a restore starts a new generation. */
    static CreditLedger restore(int prefetch, SchedulerState s) {
        CreditLedger ledger = new CreditLedger(prefetch, s);
        ledger.generation++;
        return ledger;
    }

    /**
     * Writes the ledger to {@code s}; with {@code snapshot}, a checkpoint's, after which only the
     * acknowledged specs above each rank's reported progress are kept (for the next snapshot).
     */
    void store(SchedulerState s, boolean snapshot) {
        s.issuedSeqs = issued;
        s.ackedSeqs = acked;
        s.unacked = unacked;
        s.recentlyAcked = recentlyAcked;
        s.generation = generation;
        s.layout = layout;
        s.awaitingRestoredStep = awaitingRestoredStep;
        s.nextBatchId = nextBatchId;
        if (snapshot) {
            recentlyAcked =
                    Arrays.stream(recentlyAcked)
                            .filter(
                                    spec ->
                                            spec.trainer >= reported.length
                                                    || spec.seq > reported[spec.trainer])
                            .toArray(BatchSpec[]::new);
        }
    }

    /** Ranks the ledger numbers specs for. */
    int ranks() {
        return issued.length;
    }

    int generation() {
        return generation;
    }

    /** Starts a new generation (a re-issue) and returns it. */
    int nextGeneration() {
        return ++generation;
    }

    int layout() {
        return layout;
    }

    boolean awaitingRestoredStep() {
        return awaitingRestoredStep;
    }

    long acked(int rank) {
        return acked[rank];
    }

    /** The specs issued and not acknowledged, in issue order (the array is not copied). */
    BatchSpec[] unacked() {
        return unacked;
    }

    /** {@code rank} may take one more spec. */
    boolean hasCredit(int rank) {
        return issued[rank] - (acked[rank] + 1) < prefetch;
    }

    /** Blocks of evaluation rounds issued to {@code rank} and not acknowledged. */
    int roundBlocksInFlight(int rank) {
        int n = 0;
        for (BatchSpec spec : unacked) {
            n += spec.trainer == rank && spec.kind != MiniBatch.Kind.TRAIN ? 1 : 0;
        }
        return n;
    }

    /** Round indexes of the unacknowledged blocks of the round of step {@code step}. */
    Set<Integer> unackedBlocks(long step) {
        Set<Integer> pending = new HashSet<>();
        for (BatchSpec spec : unacked) {
            if (spec.kind != MiniBatch.Kind.TRAIN && spec.step == step) {
                pending.add(spec.roundIndex);
            }
        }
        return pending;
    }

    /**
     * Numbers {@code spec} as {@code rank}'s next (seq, generation, batch id {@code batchId}, or
     * the next one when negative) and keeps it as unacknowledged.
     */
    void issue(BatchSpec spec, int rank, long batchId) {
        spec.trainer = rank;
        spec.batchId = batchId >= 0 ? batchId : nextBatchId;
        nextBatchId = spec.batchId + 1;
        spec.seq = issued[rank]++;
        spec.generation = generation;
        unacked = Arrays.copyOf(unacked, unacked.length + 1);
        unacked[unacked.length - 1] = spec;
    }

    /** The id the next spec gets unless its rank's sites choose one. */
    long nextBatchId() {
        return nextBatchId;
    }

    /**
     * {@code rank} has processed every spec up to {@code processedSeq}; returns the specs this
     * acknowledges, which are kept among the recently acknowledged.
     */
    List<BatchSpec> acknowledge(int rank, long processedSeq) {
        acked[rank] = Math.max(acked[rank], processedSeq);
        int kept = 0;
        List<BatchSpec> done = new ArrayList<>();
        for (BatchSpec spec : unacked) {
            if (spec.seq > acked[spec.trainer]) {
                unacked[kept++] = spec;
            } else {
                done.add(spec);
            }
        }
        if (kept < unacked.length) {
            unacked = Arrays.copyOf(unacked, kept);
            BatchSpec[] all = Arrays.copyOf(recentlyAcked, recentlyAcked.length + done.size());
            for (int i = 0; i < done.size(); i++) {
                all[recentlyAcked.length + i] = done.get(i);
            }
            recentlyAcked = all;
        }
        return done;
    }

    /**
     * A restored rank reports less progress ({@code processedSeq}) than the acknowledgements this
     * ledger holds: its credits for the batches in between reached the scheduler before the
     * checkpoint's barrier, but its own snapshot came before it trained them. Those specs are
     * unacknowledged again, of the current generation, and returned in seq order to be issued
     * again; {@code missing} gets how many of them are no longer known.
     */
    List<BatchSpec> rewind(int rank, long processedSeq, long[] missing) {
        List<BatchSpec> again = new ArrayList<>();
        List<BatchSpec> stillAcked = new ArrayList<>();
        for (BatchSpec spec : recentlyAcked) {
            (spec.trainer == rank && spec.seq > processedSeq ? again : stillAcked).add(spec);
        }
        again.sort(Comparator.comparingLong(spec -> spec.seq));
        missing[0] = acked[rank] - processedSeq - again.size();
        acked[rank] = processedSeq;
        recentlyAcked = stillAcked.toArray(new BatchSpec[0]);
        BatchSpec[] all = new BatchSpec[again.size() + unacked.length];
        for (int i = 0; i < again.size(); i++) {
            BatchSpec spec = again.get(i);
            spec.generation = generation;
            all[i] = spec;
        }
        System.arraycopy(unacked, 0, all, again.size(), unacked.length);
        unacked = all;
        return again;
    }

    /**
     * {@code rank}'s unacknowledged specs, of a new generation (started only if there are any), to
     * be issued again.
     */
    List<BatchSpec> reissue(int rank) {
        List<BatchSpec> again = new ArrayList<>();
        for (BatchSpec spec : unacked) {
            if (spec.trainer == rank && spec.seq > acked[rank]) {
                if (again.isEmpty()) {
                    generation++;
                }
                spec.generation = generation;
                again.add(spec);
            }
        }
        return again;
    }

    /** Every unacknowledged spec, of the current generation (after a restore). */
    List<BatchSpec> reissueAll() {
        for (BatchSpec spec : unacked) {
            spec.generation = generation;
        }
        return Arrays.asList(unacked);
    }

    /**
     * The lowest step of a training spec not yet acknowledged or among those a restored rank may
     * get again, or {@code next} when there is none.
     */
    long firstTrainingStep(long next) {
        long first = next;
        for (BatchSpec[] specs : new BatchSpec[][] {unacked, recentlyAcked}) {
            for (BatchSpec spec : specs) {
                if (spec.kind == MiniBatch.Kind.TRAIN) {
                    first = Math.min(first, spec.step);
                }
            }
        }
        return first;
    }

    /**
     * Restored for {@code trainers} ranks, not the snapshot's number: a new layout whose ranks must
     * first announce the step they restored.
     */
    void beginLayout(int trainers) {
        layout++;
        awaitingRestoredStep = true;
        issued = new long[trainers];
        acked = new long[trainers];
        reported = unreported(trainers);
        Arrays.fill(issued, RankLayout.seqBase(layout));
        Arrays.fill(acked, RankLayout.seqBase(layout) - 1);
    }

    /**
     * The ranks of the new layout restored step {@code k}: the old ranks' specs are dropped and
     * every rank's specs are numbered from step {@code k}'s first sequence number.
     */
    void continueAt(long k) {
        unacked = new BatchSpec[0];
        recentlyAcked = new BatchSpec[0];
        long first = RankLayout.firstSeq(layout, k);
        Arrays.fill(issued, first);
        Arrays.fill(acked, first - 1);
        awaitingRestoredStep = false;
    }
}

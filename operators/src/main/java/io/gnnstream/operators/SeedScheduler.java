package io.gnnstream.operators;

import io.gnnstream.operators.internal.RankLayout;
import io.gnnstream.operators.internal.RoundWrites;
import io.gnnstream.operators.internal.StepStarts;
import io.gnnstream.operators.messages.BatchSpec;
import io.gnnstream.operators.messages.Credit;
import io.gnnstream.operators.messages.GraphEvent;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.state.Mix;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides which batches are built and when (parallelism 1).
 *
 * <p>Input 1: {@link GraphEvent}s (seed vertices per split, partition sizes). Input 2: {@link
 * Credit}s from the trainer ranks through the second iteration's feedback edge. Output: {@link
 * BatchSpec}s addressed to a trainer rank, numbered per rank in the order that rank must consume
 * them ({@code seq}).
 *
 * <p>Data-parallel training: each training step is one batch per rank. The step's seeds are the
 * next {@code trainers x batchSize} of the epoch's order, split evenly in rank order, so the batch
 * size is per rank (as in PyG's DDP example) and T ranks of batch B train on the seeds that one
 * trainer of batch TB would. With local batches ({@link SchedulerConfig#withLocalBatches}) a step's
 * seeds are cut by the rank owning them instead, and each training batch gets an id that the
 * assembler subtask of its rank's index owns ({@link RankSites}). The blocks of an evaluation round
 * go to the ranks in turn (every replica holds the same model).
 *
 * <p>Training batches are shuffled passes over the known training vertices, like a {@code
 * DataLoader(shuffle=True)}: each epoch sorts the seeds known at its start and permutes them with a
 * generator seeded by {@code (seed, epoch)}, so the order does not depend on arrival order. After
 * every {@code evalEvery} (and every {@code predictEvery}) training steps and after the last one,
 * an evaluation round is inserted into the same sequence: layer-wise full-neighbour inference in
 * {@code numLayers} passes of one-hop blocks of {@code evalBatchSize} destinations. Passes {@code
 * 1..L-1} cover every vertex with attributes known at the round's start; the last pass covers the
 * validation vertices, then the test vertices, then (with {@code predictAll}) all the others, so
 * that a prediction comes out for every vertex. A hidden layer's pass stores its outputs in the
 * GraphStore's layer-output store, and the next pass reads them there: its first block is issued
 * only once the GraphStore has acknowledged storing every block of the pass before ({@link
 * RoundWrites}). Those writes travel on the sampling loop's feedback edge, so a restored scheduler
 * (or one that sees no write acknowledged for the stall limit) issues again the blocks of the
 * current pass whose writes were not acknowledged. A training step that starts a round tells each
 * rank how many blocks of the last pass it gets ({@link BatchSpec#roundShare}), so that each rank
 * knows when its share of the scores is complete.
 *
 * <p>Flow control: at most {@code prefetch} batches per rank are issued and not yet acknowledged.
 * Training waits until the graph holds {@code minVertices} vertices, has ingested {@code minEdges}
 * edges and knows {@code minTrainSeeds} training vertices. Credits carry a rank's absolute
 * progress, so lost credits (they ride a feedback edge and are not checkpointed) are repaired by
 * the trainer's periodic re-announcement.
 *
 * <p>Restore: the issued specs not yet acknowledged are state, and a restored scheduler issues them
 * all again, of a new {@link BatchSpec#generation}, before anything else. Their batches may have
 * been whole at the trainer only through cache slots that did not survive the restore (see {@code
 * TrainerFeatureCache}); the assembler samples each again as a new attempt unless it still has the
 * batch in progress, and the trainer ignores what it has trained or holds whole already
 * (docs/design.md, "Checkpoints and restore", "SeedScheduler"). The last {@code prefetch} specs
 * each rank acknowledged are state too: when a restored rank's credit is below the acknowledgements
 * restored (its credits for the batches in between passed the feedback edge before the checkpoint's
 * barrier, its own snapshot came before them), those specs are issued again.
 *
 * <p>Restore at another trainer count T' (docs/design.md, "Checkpoints and restore", "Another
 * trainer count"): the restored ranks all start from the furthest step k that any old rank applied,
 * and only they know k (credits ride a feedback edge, so the scheduler's view of the old ranks'
 * progress can lag theirs). The scheduler starts a new layout ({@link RankLayout}), drops the old
 * ranks' unacknowledged specs and issues nothing until a rank's first credit announces k. Then it
 * rewinds the epoch position to where step {@code k+1} began ({@link StepStarts}, kept for every
 * step not acknowledged by every rank and for the last acknowledged ones), continues the step count
 * at {@code k}, cuts the next steps for T' ranks and numbers every rank's specs from the layout's
 * first sequence number. An evaluation round of step k that it has not seen acknowledged in full is
 * issued again from its first pass.
 */
public class SeedScheduler extends AbstractStreamOperator<BatchSpec>
        implements TwoInputStreamOperator<GraphEvent, Credit, BatchSpec> {

    private static final long serialVersionUID = 1L;

    private static final Logger LOG = LoggerFactory.getLogger(SeedScheduler.class);

    /** No progress of a rank for this long, with its specs outstanding, re-issues them. */
    static final long STALL_REISSUE_NANOS = 30_000_000_000L;

    /**
     * Blocks of an evaluation round a rank may have unacknowledged: a block holds all its
     * destinations' in-neighbours (tens of thousands of rows), so a rank holds at most this many
     * besides its training batches' worth.
     */
    static final int ROUND_PREFETCH = 2;

    static final ListStateDescriptor<SchedulerState> STATE =
            new ListStateDescriptor<>("scheduler", TypeInformation.of(SchedulerState.class));

    private final SchedulerConfig config;
    private long stallReissueNanos = STALL_REISSUE_NANOS;

    private transient ListState<SchedulerState> checkpointed;
    private transient SchedulerState s;
    private transient Set<Long> train;
    private transient Set<Long> val;
    private transient Set<Long> test;
    private transient Set<Long> others;

    /** Every vertex of the current round in ascending order, derived from the round's sets. */
    private transient long[] roundAll;

    private transient boolean restored;
    private transient boolean startLogged;

    /**
     * Per rank: when its acknowledged progress last advanced (or its specs were last re-issued).
     */
    private transient long[] progressNanos;

    /**
     * Where the steps not acknowledged by every rank, and the last acknowledged ones, began
     * (checkpointed in {@link SchedulerState}).
     */
    private transient StepStarts starts;

    /**
     * The layer-output writes of the round in progress (checkpointed in {@link
     * SchedulerState#roundWrites}).
     */
    private transient RoundWrites writes;

    /**
     * When an acknowledged write of the round last arrived (or its unwritten blocks were last
     * re-issued).
     */
    private transient long writeProgressNanos;

    /**
     * Per pass of the round in progress: when its first block was issued (for the round's log
     * line); 0: not seen.
     */
    private transient long[] passStartNanos;

    public SeedScheduler(SchedulerConfig config) {
        this.config = config;
    }

    /** Another stall limit than {@link #STALL_REISSUE_NANOS} (tests). */
    SeedScheduler withStallReissue(long nanos) {
        this.stallReissueNanos = nanos;
        return this;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        checkpointed = context.getOperatorStateStore().getListState(STATE);
        s = null;
        for (SchedulerState state : checkpointed.get()) {
            s = state;
        }
        restored = s != null;
        if (restored) {
            s.generation++;
        } else {
            s = new SchedulerState();
            s.trainSeeds = new long[0];
            s.valSeeds = new long[0];
            s.testSeeds = new long[0];
            s.otherSeeds = new long[0];
            s.partitionVertices = new long[config.numPartitions];
            s.partitionEdgesIngested = new long[config.numPartitions];
            s.issuedSeqs = new long[config.trainers];
            s.ackedSeqs = new long[config.trainers];
            Arrays.fill(s.ackedSeqs, -1);
            s.unacked = new BatchSpec[0];
        }
        if (s.recentlyAcked == null) {
            s.recentlyAcked = new BatchSpec[0];
        }
        if (s.partitionReplicas == null) {
            s.partitionReplicas = new long[config.numPartitions];
            s.partitionCutEdgesIngested = new long[config.numPartitions];
        }
        starts = StepStarts.restore(s.stepStarts, s.earlierEpochOrders);
        writes = RoundWrites.of(s.roundWrites);
        writeProgressNanos = System.nanoTime();
        if (s.issuedSeqs.length != config.trainers) {
            beginLayout();
        }
        progressNanos = new long[config.trainers];
        Arrays.fill(progressNanos, System.nanoTime());
        train = toSet(s.trainSeeds);
        val = toSet(s.valSeeds);
        test = toSet(s.testSeeds);
        others = toSet(s.otherSeeds == null ? new long[0] : s.otherSeeds);
        roundAll = null;
    }

    /** A restored scheduler issues its unacknowledged specs again (see the class comment). */
    @Override
    public void open() throws Exception {
        super.open();
        if (restored && !s.awaitingRestoredStep) {
            for (BatchSpec spec : s.unacked) {
                spec.generation = s.generation;
                output.collect(new StreamRecord<>(spec));
            }
            reissueUnwritten();
        }
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        s.trainSeeds = sorted(train);
        s.valSeeds = sorted(val);
        s.testSeeds = sorted(test);
        s.otherSeeds = sorted(others);
        s.stepStarts = starts.starts();
        s.roundWrites = writes.encoded();
        s.earlierEpochOrders = starts.orders();
        checkpointed.update(List.of(s));
    }

    @Override
    public void processElement1(StreamRecord<GraphEvent> element) {
        GraphEvent e = element.getValue();
        if (e.kind == GraphEvent.Kind.LAYER_WRITTEN) {
            if (e.step == s.roundStep
                    && s.roundSize > 0
                    && writes.ack(e.roundIndex, e.part, e.parts)) {
                writeProgressNanos = System.nanoTime();
            }
        } else if (e.kind == GraphEvent.Kind.STATS) {
            s.partitionVertices[e.partition] = e.vertices;
            s.partitionEdgesIngested[e.partition] = e.edgesIngested;
            s.partitionReplicas[e.partition] = e.replicas;
            s.partitionCutEdgesIngested[e.partition] = e.cutEdgesIngested;
        } else {
            train.remove(e.vertex);
            val.remove(e.vertex);
            test.remove(e.vertex);
            others.remove(e.vertex);
            switch (e.split) {
                case TRAIN:
                    train.add(e.vertex);
                    break;
                case VAL:
                    val.add(e.vertex);
                    break;
                case TEST:
                    test.add(e.vertex);
                    break;
                default:
                    others.add(e.vertex);
                    break;
            }
        }
        issue();
    }

    @Override
    public void processElement2(StreamRecord<Credit> element) {
        Credit credit = element.getValue();
        if (credit.processedSeq < RankLayout.seqBase(s.layout) - 1) {
            return; // a credit of an earlier layout's rank
        }
        if (credit.trainer < 0 || credit.trainer >= config.trainers) {
            throw new IllegalStateException(
                    "credit from trainer " + credit.trainer + " of " + config.trainers);
        }
        if (s.awaitingRestoredStep) {
            continueAt(RankLayout.restoredStep(s.layout, credit.processedSeq), credit.trainer);
            issue();
            return;
        }
        if (credit.processedSeq < s.ackedSeqs[credit.trainer]) {
            rewind(credit.trainer, credit.processedSeq);
        }
        if (credit.processedSeq > s.ackedSeqs[credit.trainer]) {
            progressNanos[credit.trainer] = System.nanoTime();
        } else {
            reissueIfStalled(credit.trainer);
            if (System.nanoTime() - writeProgressNanos >= stallReissueNanos) {
                reissueUnwritten();
            }
        }
        s.ackedSeqs[credit.trainer] = Math.max(s.ackedSeqs[credit.trainer], credit.processedSeq);
        int kept = 0;
        List<BatchSpec> acked = new ArrayList<>();
        for (BatchSpec spec : s.unacked) {
            if (spec.seq > s.ackedSeqs[spec.trainer]) {
                s.unacked[kept++] = spec;
            } else {
                acked.add(spec);
            }
        }
        if (kept < s.unacked.length) {
            s.unacked = Arrays.copyOf(s.unacked, kept);
            keepRecentlyAcked(acked);
            starts.dropBefore(firstStepToKeep());
            logRoundIfComplete(acked);
        }
        issue();
    }

    private void notePassStart(int pass) {
        if (passStartNanos == null || passStartNanos.length != config.numLayers + 1) {
            passStartNanos = new long[config.numLayers + 1];
        }
        if (passStartNanos[pass - 1] == 0) {
            passStartNanos[pass - 1] = System.nanoTime();
        }
    }

    /**
     * Logs how long the round took, per layer, once its last block is acknowledged (a pass ends
     * where the next begins; the last one with the acknowledgement).
     */
    private void logRoundIfComplete(List<BatchSpec> acked) {
        if (passStartNanos == null
                || passStartNanos[0] == 0
                || s.roundNext < s.roundSize
                || acked.stream()
                        .noneMatch(
                                spec ->
                                        spec.kind != MiniBatch.Kind.TRAIN
                                                && spec.step == s.roundStep)) {
            return;
        }
        for (BatchSpec spec : s.unacked) {
            if (spec.kind != MiniBatch.Kind.TRAIN && spec.step == s.roundStep) {
                return;
            }
        }
        long end = System.nanoTime();
        passStartNanos[config.numLayers] = end;
        StringBuilder layers = new StringBuilder();
        for (int l = 0; l < config.numLayers; l++) {
            long to = passStartNanos[l + 1] != 0 ? passStartNanos[l + 1] : end;
            layers.append(l == 0 ? "" : ", ")
                    .append(
                            String.format(
                                    java.util.Locale.ROOT,
                                    "layer %d %.1f s",
                                    l + 1,
                                    (to - passStartNanos[l]) / 1e9));
        }
        LOG.info(
                String.format(
                        java.util.Locale.ROOT,
                        "Evaluation round of step %d: %.1f s (%s), %d blocks over %d ranks, %d"
                                + " vertices",
                        s.roundStep,
                        (end - passStartNanos[0]) / 1e9,
                        layers,
                        s.roundSize,
                        s.roundOnRankZero ? 1 : config.trainers,
                        roundAll().length));
        passStartNanos = null;
    }

    /**
     * Adds {@code acked} to {@link SchedulerState#recentlyAcked}, keeping the last {@code prefetch}
     * per rank.
     */
    private void keepRecentlyAcked(List<BatchSpec> acked) {
        List<BatchSpec> all = new ArrayList<>(Arrays.asList(s.recentlyAcked));
        all.addAll(acked);
        int[] left = new int[config.trainers];
        Arrays.fill(left, config.prefetch);
        List<BatchSpec> kept = new ArrayList<>();
        for (int i = all.size() - 1; i >= 0; i--) {
            BatchSpec spec = all.get(i);
            if (spec.trainer < left.length && left[spec.trainer]-- > 0) {
                kept.add(0, spec);
            }
        }
        s.recentlyAcked = kept.toArray(new BatchSpec[0]);
    }

    /**
     * A restored rank reports less progress than the acknowledgements this scheduler restored: its
     * credits for the batches in between reached the scheduler before the checkpoint's barrier, but
     * its own snapshot came before it trained them. Those specs are unacknowledged again and issued
     * again, of the current generation, so the rank trains the same batches once more.
     */
    private void rewind(int rank, long processedSeq) {
        List<BatchSpec> again = new ArrayList<>();
        List<BatchSpec> stillAcked = new ArrayList<>();
        for (BatchSpec spec : s.recentlyAcked) {
            (spec.trainer == rank && spec.seq > processedSeq ? again : stillAcked).add(spec);
        }
        again.sort(Comparator.comparingLong(spec -> spec.seq));
        long missing = s.ackedSeqs[rank] - processedSeq - again.size();
        LOG.info(
                "Rank {} restored at seq {}, behind the acknowledged seq {}: {} batches are issued"
                        + " again{}",
                rank,
                processedSeq,
                s.ackedSeqs[rank],
                again.size(),
                missing > 0 ? " (" + missing + " no longer known)" : "");
        s.ackedSeqs[rank] = processedSeq;
        s.recentlyAcked = stillAcked.toArray(new BatchSpec[0]);
        BatchSpec[] unacked = new BatchSpec[again.size() + s.unacked.length];
        for (int i = 0; i < again.size(); i++) {
            BatchSpec spec = again.get(i);
            spec.generation = s.generation;
            unacked[i] = spec;
            output.collect(new StreamRecord<>(spec));
        }
        System.arraycopy(s.unacked, 0, unacked, again.size(), s.unacked.length);
        s.unacked = unacked;
        progressNanos[rank] = System.nanoTime();
    }

    /**
     * The lowest step whose start {@link StepStarts} must keep: that of a training spec not yet
     * acknowledged or among those a restored rank may get again ({@link #rewind}), or the next step
     * when there is none.
     */
    private long firstStepToKeep() {
        long first = s.trainSteps + 1;
        for (BatchSpec[] specs : new BatchSpec[][] {s.unacked, s.recentlyAcked}) {
            for (BatchSpec spec : specs) {
                if (spec.kind == MiniBatch.Kind.TRAIN) {
                    first = Math.min(first, spec.step);
                }
            }
        }
        return first;
    }

    /**
     * Restored for another number of ranks than the checkpoint's: a new layout, whose ranks must
     * first announce the step they restored (see the class comment).
     */
    private void beginLayout() {
        if (s.stepStarts == null) {
            throw new IllegalStateException(
                    "the schedule was checkpointed for "
                            + s.issuedSeqs.length
                            + " trainers by a version that cannot restore it for another number;"
                            + " restore it with "
                            + s.issuedSeqs.length
                            + " trainers");
        }
        LOG.info(
                "The schedule of {} trainer ranks continues with {}: waiting for a rank to announce"
                        + " the step it restored ({} steps issued)",
                s.issuedSeqs.length,
                config.trainers,
                s.trainSteps);
        s.layout++;
        s.awaitingRestoredStep = true;
        s.issuedSeqs = new long[config.trainers];
        s.ackedSeqs = new long[config.trainers];
        Arrays.fill(s.issuedSeqs, RankLayout.seqBase(s.layout));
        Arrays.fill(s.ackedSeqs, RankLayout.seqBase(s.layout) - 1);
    }

    /**
     * The ranks of a new layout restored step {@code k}: the schedule continues with step {@code
     * k+1} from where it began, for this layout's ranks, after a round of step k issued again
     * unless the old ranks acknowledged all of it. Specs of the old layout are dropped.
     */
    private void continueAt(long k, int announcer) {
        if (k < 0 || k > s.trainSteps) {
            throw new IllegalStateException(
                    "rank "
                            + announcer
                            + " restored step "
                            + k
                            + ", but the schedule issued "
                            + s.trainSteps
                            + " steps");
        }
        if (k < s.trainSteps) {
            StepStarts.StepStart start = starts.startOf(k + 1);
            if (start == null) {
                throw new IllegalStateException(
                        "no record of where step "
                                + (k + 1)
                                + " began; the schedule cannot "
                                + "continue after step "
                                + k);
            }
            if (start.epoch != s.epoch) {
                s.epochOrder = start.epoch == 0 ? null : starts.orderOf(start.epoch);
                if (start.epoch != 0 && s.epochOrder == null) {
                    throw new IllegalStateException(
                            "no order of epoch "
                                    + start.epoch
                                    + " in which step "
                                    + (k + 1)
                                    + " began");
                }
            }
            s.epoch = start.epoch;
            s.epochPosition = start.position;
        }
        boolean roundOfK = false;
        boolean finalRoundOfK = false;
        for (BatchSpec spec : s.unacked) {
            if (spec.kind != MiniBatch.Kind.TRAIN && spec.step == k) {
                roundOfK = true;
                finalRoundOfK |= spec.finalRound;
            }
        }
        if (s.roundStep == k && (roundOfK || s.roundNext < s.roundSize)) {
            s.roundNext = 0;
            roundAll = null;
            writes.clear();
            s.roundOnRankZero = true;
        } else if (roundOfK) {
            beginRound(k, finalRoundOfK);
            s.roundOnRankZero = true;
        } else {
            s.roundNext = 0;
            s.roundSize = 0;
        }
        s.trainSteps = k;
        s.unacked = new BatchSpec[0];
        s.recentlyAcked = new BatchSpec[0];
        starts.clear();
        long first = RankLayout.firstSeq(s.layout, k);
        Arrays.fill(s.issuedSeqs, first);
        Arrays.fill(s.ackedSeqs, first - 1);
        Arrays.fill(progressNanos, System.nanoTime());
        s.awaitingRestoredStep = false;
        LOG.info(
                "Rank {} restored step {}: the schedule continues with step {} for {} ranks{}",
                announcer,
                k,
                k + 1,
                config.trainers,
                s.roundNext < s.roundSize ? ", after the evaluation round of step " + k : "");
    }

    /**
     * A rank that repeats its credit (it re-sends it only while it receives nothing) without
     * progress for {@link #STALL_REISSUE_NANOS} while specs of it are unacknowledged has lost a
     * batch for good (e.g. a feature part it had to drop after a restore): its unacknowledged specs
     * are issued again, as after a restore, of a new generation. They are the same specs, so the
     * batches are the same.
     */
    private void reissueIfStalled(int rank) {
        long now = System.nanoTime();
        if (now - progressNanos[rank] < stallReissueNanos) {
            return;
        }
        progressNanos[rank] = now;
        boolean any = false;
        for (BatchSpec spec : s.unacked) {
            if (spec.trainer == rank && spec.seq > s.ackedSeqs[rank]) {
                if (!any) {
                    s.generation++;
                    any = true;
                }
                spec.generation = s.generation;
                output.collect(new StreamRecord<>(spec));
            }
        }
        if (any) {
            LOG.warn(
                    "rank {} made no progress for {} s past seq {}: its unacknowledged batches are"
                            + " issued again",
                    rank,
                    stallReissueNanos / 1_000_000_000L,
                    s.ackedSeqs[rank]);
        }
    }

    /**
     * Issues evaluation batches and training steps in schedule order while their ranks have credit:
     * an evaluation batch needs its rank's, a training step (a batch for every rank) every rank's.
     */
    private void issue() {
        if (s.awaitingRestoredStep) {
            return;
        }
        while (true) {
            if (s.roundNext < s.roundSize) {
                if (!passReady(s.roundNext)) {
                    return;
                }
                int rank = rankOfBlock(s.roundNext);
                if (!hasCredit(rank) || roundBlocksInFlight(rank) >= ROUND_PREFETCH) {
                    return;
                }
                notePassStart(passOf(s.roundNext));
                emit(nextEvaluation(), rank);
                continue;
            }
            for (int r = 0; r < config.trainers; r++) {
                if (!hasCredit(r)) {
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

    private boolean hasCredit(int rank) {
        return s.issuedSeqs[rank] - (s.ackedSeqs[rank] + 1) < config.prefetch;
    }

    /** Blocks of evaluation rounds issued to {@code rank} and not acknowledged. */
    private int roundBlocksInFlight(int rank) {
        int n = 0;
        for (BatchSpec spec : s.unacked) {
            n += spec.trainer == rank && spec.kind != MiniBatch.Kind.TRAIN ? 1 : 0;
        }
        return n;
    }

    private void emit(BatchSpec spec, int rank) {
        spec.trainer = rank;
        spec.batchId =
                config.sites() != null && spec.kind == MiniBatch.Kind.TRAIN
                        ? config.sites().batchIdFor(rank, s.nextBatchId)
                        : s.nextBatchId;
        s.nextBatchId = spec.batchId + 1;
        spec.seq = s.issuedSeqs[rank]++;
        spec.graphVertices = Arrays.stream(s.partitionVertices).sum();
        spec.graphEdgesIngested = Arrays.stream(s.partitionEdgesIngested).sum();
        spec.graphReplicas = Arrays.stream(s.partitionReplicas).sum();
        spec.graphCutEdgesIngested = Arrays.stream(s.partitionCutEdgesIngested).sum();
        spec.generation = s.generation;
        s.unacked = Arrays.copyOf(s.unacked, s.unacked.length + 1);
        s.unacked[s.unacked.length - 1] = spec;
        output.collect(new StreamRecord<>(spec));
    }

    /**
     * The next training step: the next {@code trainers x batchSize} seeds of the epoch's order,
     * split evenly over the ranks in rank order (rank r takes the r-th slice, like {@code
     * train_idx.split(...)[rank]}), or with local batches by owner ({@link RankSites#split}); an
     * epoch's last step takes what is left, and a remainder smaller than the number of ranks is
     * skipped (it would leave a rank without seeds). Null when no step may start.
     */
    private BatchSpec[] nextTrainingStep() {
        boolean stepsLeft = config.maxSteps <= 0 || s.trainSteps < config.maxSteps;
        if (!stepsLeft
                || train.isEmpty()
                || train.size() < config.minTrainSeeds
                || !graphLoaded()) {
            return null;
        }
        long startEpoch = s.epoch;
        int startPosition = s.epochPosition;
        if (s.epochOrder == null || s.epochOrder.length - s.epochPosition < config.trainers) {
            starts.epochEnds(s.epoch, s.epochOrder);
            s.epochOrder =
                    shuffled(
                            sorted(train),
                            new SplittableRandom(Mix.seed(config.seed, 0x5EED, s.epoch++)));
            s.epochPosition = 0;
            if (s.epochOrder.length < config.trainers) {
                return null;
            }
        }
        int end =
                (int)
                        Math.min(
                                s.epochOrder.length,
                                s.epochPosition + (long) config.batchSize * config.trainers);
        int n = end - s.epochPosition;
        long step = ++s.trainSteps;
        starts.record(step, startEpoch, startPosition);
        boolean last = config.maxSteps > 0 && step == config.maxSteps;
        boolean evaluate =
                last
                        || (config.evalEvery > 0 && step % config.evalEvery == 0)
                        || (config.predictEvery > 0 && step % config.predictEvery == 0);
        if (evaluate) {
            beginRound(step, last);
        }
        BatchSpec[] specs = new BatchSpec[config.trainers];
        long[][] local =
                config.sites() == null
                        ? null
                        : config.sites()
                                .split(Arrays.copyOfRange(s.epochOrder, s.epochPosition, end));
        for (int r = 0; r < config.trainers; r++) {
            BatchSpec spec = new BatchSpec();
            spec.kind = MiniBatch.Kind.TRAIN;
            int from = s.epochPosition + (int) ((long) n * r / config.trainers);
            int to = s.epochPosition + (int) ((long) n * (r + 1) / config.trainers);
            spec.seeds = local != null ? local[r] : Arrays.copyOfRange(s.epochOrder, from, to);
            spec.step = step;
            if (evaluate) {
                spec.roundSize = s.roundSize;
                spec.roundShare = lastPassShare(r);
                spec.finalRound = last;
            }
            specs[r] = spec;
        }
        s.epochPosition = end;
        return specs;
    }

    /** The graph has reached the size training waits for (the deterministic mode's hold). */
    private boolean graphLoaded() {
        long vertices = Arrays.stream(s.partitionVertices).sum();
        long edges = Arrays.stream(s.partitionEdgesIngested).sum();
        boolean loaded = vertices >= config.minVertices && edges >= config.minEdges;
        if (loaded && s.trainSteps == 0 && !startLogged) {
            startLogged = true;
            LOG.info(
                    "Training starts: {} vertices, {} edges ingested, {} training vertices",
                    vertices,
                    edges,
                    train.size());
        }
        return loaded;
    }

    private void beginRound(long step, boolean last) {
        s.roundStep = step;
        s.roundVal = sorted(val);
        s.roundTest = sorted(test);
        Set<Long> rest = new HashSet<>(others);
        rest.addAll(train);
        s.roundOthers = sorted(rest);
        s.roundNext = 0;
        s.roundOnRankZero = false;
        roundAll = null;
        writes.clear();
        writeProgressNanos = System.nanoTime();
        int lastPass =
                chunks(s.roundVal.length)
                        + chunks(s.roundTest.length)
                        + (config.predictAll ? chunks(s.roundOthers.length) : 0);
        s.roundSize = Math.max(1, (config.numLayers - 1) * chunks(roundAll().length) + lastPass);
        s.roundFinal = last;
    }

    /**
     * Batch {@code roundNext} of the round: passes over all vertices, then the scored last pass.
     */
    private BatchSpec nextEvaluation() {
        return evaluation(s.roundNext++);
    }

    /** Block {@code i} of the round. */
    private BatchSpec evaluation(int i) {
        BatchSpec spec = new BatchSpec();
        spec.step = s.roundStep;
        spec.roundIndex = i;
        spec.roundSize = s.roundSize;
        spec.finalRound = s.roundFinal;
        int perPass = chunks(roundAll().length);
        if (i < (config.numLayers - 1) * perPass) {
            spec.layer = i / perPass + 1;
            spec.kind = MiniBatch.Kind.INFER;
            spec.seeds = chunk(roundAll(), i % perPass);
            return spec;
        }
        spec.layer = config.numLayers;
        spec.roundShare = lastPassShare(rankOfBlock(i));
        i -= (config.numLayers - 1) * perPass;
        int valChunks = chunks(s.roundVal.length);
        int testChunks = chunks(s.roundTest.length);
        if (i < valChunks) {
            spec.kind = MiniBatch.Kind.EVAL_VAL;
            spec.seeds = chunk(s.roundVal, i);
        } else if (i < valChunks + testChunks || !config.predictAll) {
            spec.kind = MiniBatch.Kind.EVAL_TEST;
            spec.seeds = chunk(s.roundTest, i - valChunks);
        } else {
            spec.kind = MiniBatch.Kind.INFER;
            spec.seeds = chunk(s.roundOthers, i - valChunks - testChunks);
        }
        return spec;
    }

    /** Blocks in each pass over all vertices (the hidden layers' passes). */
    private int blocksPerPass() {
        return chunks(roundAll().length);
    }

    /** Blocks of the round's last pass. */
    private int lastPassBlocks() {
        return s.roundSize - (config.numLayers - 1) * blocksPerPass();
    }

    /** The pass (1-based model layer) of block {@code i}, and its index within the pass. */
    private int passOf(int i) {
        int per = blocksPerPass();
        return i >= (config.numLayers - 1) * per ? config.numLayers : i / per + 1;
    }

    private int indexInPass(int i) {
        return i - (passOf(i) - 1) * blocksPerPass();
    }

    /** Blocks of a pass go to the ranks in turn. */
    private int rankOfBlock(int i) {
        return s.roundOnRankZero ? 0 : indexInPass(i) % config.trainers;
    }

    /** Of the last pass's blocks, those of {@code rank}. */
    private int lastPassShare(int rank) {
        int n = lastPassBlocks();
        int ranks = s.roundOnRankZero ? 1 : config.trainers;
        return rank >= ranks ? 0 : n / ranks + (rank < n % ranks ? 1 : 0);
    }

    /**
     * A block may be issued once the pass before its own has stored all its outputs: it reads them
     * (docs/design.md, "Evaluation").
     */
    private boolean passReady(int i) {
        int pass = passOf(i);
        if (pass == 1) {
            return true;
        }
        int per = blocksPerPass();
        return writes.allWritten((pass - 2) * per, (pass - 1) * per);
    }

    /**
     * Issues again, of a new generation and with new sequence numbers, the blocks of the round's
     * current hidden-layer pass that their rank has acknowledged but whose outputs the GraphStore
     * has not acknowledged storing: after a restore (outputs travel on the sampling loop's feedback
     * edge, which is in no checkpoint), or when no write has been acknowledged for the stall limit.
     * The model has not changed since (the round precedes the next step on every rank), so the
     * outputs are the same. Unacknowledged blocks are issued again by the usual means.
     */
    private void reissueUnwritten() {
        writeProgressNanos = System.nanoTime();
        if (s.roundSize == 0
                || s.roundNext == 0
                || s.roundNext > s.roundSize
                || config.numLayers < 2) {
            return;
        }
        int pass = passOf(s.roundNext - 1);
        if (pass >= config.numLayers) {
            return;
        }
        int from = (pass - 1) * blocksPerPass();
        Set<Integer> pending = new HashSet<>();
        for (BatchSpec spec : s.unacked) {
            if (spec.kind != MiniBatch.Kind.TRAIN && spec.step == s.roundStep) {
                pending.add(spec.roundIndex);
            }
        }
        int again = 0;
        for (int i = from; i < s.roundNext; i++) {
            if (!writes.written(i) && !pending.contains(i)) {
                if (again++ == 0) {
                    s.generation++;
                }
                emit(evaluation(i), rankOfBlock(i));
            }
        }
        if (again > 0) {
            LOG.info(
                    "{} blocks of layer {} of the round of step {} have no stored outputs: issued"
                            + " again",
                    again,
                    pass,
                    s.roundStep);
        }
    }

    private long[] roundAll() {
        if (roundAll == null) {
            long[] others = s.roundOthers == null ? new long[0] : s.roundOthers;
            long[] all = new long[s.roundVal.length + s.roundTest.length + others.length];
            System.arraycopy(s.roundVal, 0, all, 0, s.roundVal.length);
            System.arraycopy(s.roundTest, 0, all, s.roundVal.length, s.roundTest.length);
            System.arraycopy(others, 0, all, s.roundVal.length + s.roundTest.length, others.length);
            Arrays.sort(all);
            roundAll = all;
        }
        return roundAll;
    }

    private int chunks(int n) {
        return (n + config.evalBatchSize - 1) / config.evalBatchSize;
    }

    private long[] chunk(long[] seeds, int i) {
        int from = Math.min(seeds.length, i * config.evalBatchSize);
        return Arrays.copyOfRange(seeds, from, Math.min(seeds.length, from + config.evalBatchSize));
    }

    private static long[] shuffled(long[] values, SplittableRandom random) {
        for (int i = values.length - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            long t = values[i];
            values[i] = values[j];
            values[j] = t;
        }
        return values;
    }

    private static long[] sorted(Set<Long> set) {
        long[] out = new long[set.size()];
        int i = 0;
        for (long v : set) {
            out[i++] = v;
        }
        Arrays.sort(out);
        return out;
    }

    private static Set<Long> toSet(long[] values) {
        Set<Long> set = new HashSet<>();
        for (long v : values) {
            set.add(v);
        }
        return set;
    }
}

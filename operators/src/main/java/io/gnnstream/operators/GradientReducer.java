package io.gnnstream.operators;

import io.gnnstream.operators.messages.GradientChunk;
import io.gnnstream.operators.messages.ReducedChunk;
import io.gnnstream.operators.schedule.GradientSums;
import io.gnnstream.operators.schedule.MixedDevicesException;
import io.gnnstream.operators.schedule.ReducerEntry;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sums the gradient chunks of the data-parallel trainer ranks (the reduce half of the all-reduce):
 * the Flink adapter of the reducer role, {@link GradientSums}, which holds the rules below.
 *
 * <p>Input: {@link GradientChunk}s, routed to subtask {@code chunk % parallelism}; a contribution
 * is identified by (step, chunk, rank). The reducer holds the contributions of each (step, chunk)
 * until all {@code ranks} are there, then sums them into a {@link ReducedChunk} (values, seed
 * counts and the validation counts chunk 0 carries summed) and keeps that completed sum: per chunk
 * the sums of the last {@code retainedSteps} completed steps. A contribution for a step that many
 * steps behind the chunk's latest completed sum is stale (every rank has moved past it) and is
 * dropped, as is a second copy of a held one.
 *
 * <p>A step's sums leave together, once every chunk of this subtask's share (the chunks {@code c}
 * with {@code c % parallelism == index}) is summed, in chunk order. With ranks that send their
 * chunks grouped by reducer ({@code GradientExchange#chunks}) this keeps the loop free of deadlock
 * whatever the gradient's size: the loop's buffers between a reducer and a rank hold far less than
 * a large model's sums, a rank does not read its input while it is blocked on sending, and a
 * reducer blocked on sending reads no contributions. A reducer that sends sums to a rank has all of
 * that rank's chunks of the step, so the rank, if blocked, is blocked on a reducer later in its
 * order, which in turn has sent nothing yet to a rank still sending to it; the chain ends at the
 * last reducer, which makes progress. A sum sent as soon as its chunk completes can reach a rank
 * still sending to the same reducer and fill the buffers both ways (a GraphSAGE of hidden 256 on
 * 1,433 features exchanges 2.9 MB of sums per rank and step).
 *
 * <p>Output goes back to the trainers on an iteration feedback edge, which is not part of
 * checkpoints: a sum emitted before a failure may never arrive. A restored trainer therefore sends
 * its contribution for the step it waits on again, and a contribution for a (step, chunk) whose sum
 * is held makes the reducer emit that sum again instead of waiting for contributions that will not
 * come a second time. The protocol is versioned by step and idempotent: trainers apply a step's
 * update once, so duplicate sums are harmless.
 *
 * <p>Every replica must apply the same update, bit for bit, or the replicas drift apart. Float
 * addition is not associative, so the sum is always formed in rank order ({@code v0 + v1 + ...},
 * from a copy of rank 0's values, accumulated left to right), whatever order contributions arrive
 * in, and a re-sent sum is the stored one.
 *
 * <p>Checkpointed: the held contributions and the completed sums (a trainer restored from the same
 * checkpoint may still need them), as {@link Entry} POJOs in union list state. Chunks are routed by
 * {@code chunk % parallelism}, which round-robin redistribution would not preserve at a new
 * parallelism, so every subtask gets the union and keeps the entries of its own chunks.
 *
 * <p>Restore at another trainer count: the reducer sums the contributions of its {@code ranks}, the
 * new count. The ranks of the new layout name their rounds above every round of the old one ({@code
 * RankLayout}), so held contributions and sums of the old ranks, restored or replayed, are never
 * mixed into a new sum (a sum of old contributions alone goes to ranks that ignore it) and go stale
 * with the first new sum. Contributions of ranks that no longer exist are dropped and counted
 * ({@code foreignContributions}).
 *
 * <p>Ranks of different device kinds ({@link GradientChunk#device}; a null kind is unknown and
 * never compared) are refused at their first common sum: the job fails without restarts ({@link
 * SuppressRestartsException} with a {@link MixedDevicesException} naming the ranks and kinds),
 * since such replicas round differently and cannot stay bit-identical.
 *
 * <p>Heartbeats ({@link GradientChunk#isHeartbeat()}) are echoed at once as a step -1 sum and leave
 * no state: they keep records moving to the loop's head, which emits checkpoint barriers only when
 * feedback arrives (docs/design.md, "Flink settings").
 *
 * <p>The reducer never waits for anything: each record is handled at once and nothing blocks on the
 * feedback edge, so a checkpoint barrier is never held up behind a reduction and checkpoints cannot
 * deadlock on the loop.
 */
public class GradientReducer extends AbstractStreamOperator<ReducedChunk>
        implements OneInputStreamOperator<GradientChunk, ReducedChunk> {

    private static final long serialVersionUID = 1L;

    private static final Logger LOG = LoggerFactory.getLogger(GradientReducer.class);

    static final ListStateDescriptor<Entry> CONTRIBUTIONS =
            new ListStateDescriptor<>("reducer-contributions", TypeInformation.of(Entry.class));
    static final ListStateDescriptor<Entry> SUMS =
            new ListStateDescriptor<>("reducer-sums", TypeInformation.of(Entry.class));

    /**
     * Completed sums kept per chunk: the newest and the one before (ranks are at most a step
     * apart).
     */
    public static final int DEFAULT_RETAINED_STEPS = 2;

    private final int ranks;
    private final int retainedSteps;

    private transient ListState<Entry> contributionState;
    private transient ListState<Entry> sumState;
    private transient GradientSums sums;

    private transient Counter resentSums;
    private transient Counter staleContributions;
    private transient Counter duplicateContributions;
    private transient Counter foreignContributions;
    private transient long foreignRestored;

    private FaultInjector faults = FaultInjector.NONE;
    private transient long contributions;

    /**
     * Makes this operator fail once as {@code faults} says (failure-injection tests; counts
     * contributions).
     */
    public GradientReducer withFaults(FaultInjector faults) {
        this.faults = faults;
        return this;
    }

    /** Sums the contributions of {@code scale}'s ranks, keeping {@link #DEFAULT_RETAINED_STEPS}. */
    public GradientReducer(JobScale scale) {
        this(scale, DEFAULT_RETAINED_STEPS);
    }

    public GradientReducer(JobScale scale, int retainedSteps) {
        if (retainedSteps < 1) {
            throw new IllegalArgumentException(
                    "retainedSteps must be at least 1, got " + retainedSteps);
        }
        this.ranks = scale.trainers();
        this.retainedSteps = retainedSteps;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        contributionState = context.getOperatorStateStore().getUnionListState(CONTRIBUTIONS);
        sumState = context.getOperatorStateStore().getUnionListState(SUMS);
        sums =
                new GradientSums(
                        ranks,
                        retainedSteps,
                        getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks(),
                        getRuntimeContext().getTaskInfo().getIndexOfThisSubtask());
        foreignRestored =
                sums.restore(fromState(sumState.get()), fromState(contributionState.get()));
    }

    @Override
    public void open() throws Exception {
        super.open();
        resentSums = getMetricGroup().counter("resentSums");
        staleContributions = getMetricGroup().counter("staleContributions");
        duplicateContributions = getMetricGroup().counter("duplicateContributions");
        foreignContributions = getMetricGroup().counter("foreignContributions");
        foreignContributions.inc(foreignRestored);
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        contributionState.update(toState(sums.contributions()));
        sumState.update(toState(sums.sums()));
    }

    @Override
    public void processElement(StreamRecord<GradientChunk> element) {
        GradientChunk g = element.getValue();
        if (g.isHeartbeat()) {
            output.collect(
                    new StreamRecord<>(new ReducedChunk(g.step, g.chunk, 0, 0, new float[0])));
            return;
        }
        faults.check(
                "gradient-reducer",
                getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(),
                ++contributions);
        // The job's operators never change a record they are handed (see JobDefaults' object
        // reuse), so an emitted sum stays as it was for a later re-send.
        List<ReducedChunk> done;
        try {
            done = sums.accept(g);
        } catch (MixedDevicesException e) {
            // The job's ranks run on different kinds of device: a restart would mix them again.
            throw new SuppressRestartsException(e);
        }
        for (ReducedChunk sum : done) {
            output.collect(new StreamRecord<>(sum));
        }
        staleContributions.inc(sums.lastEvicted());
        switch (sums.lastOutcome()) {
            case RESENT -> resentSums.inc();
            case DUPLICATE -> duplicateContributions.inc();
            case STALE -> staleContributions.inc();
            case FOREIGN -> {
                if (foreignContributions.getCount() == 0) {
                    LOG.warn(
                            "Dropping {}: the reducer sums {} ranks (a contribution of a rank"
                                    + " before a restore at another trainer count)",
                            g,
                            ranks);
                }
                foreignContributions.inc();
            }
            default -> {}
        }
    }

    /** The reducer's entries as their checkpointed POJOs. */
    private static List<Entry> toState(List<ReducerEntry> entries) {
        List<Entry> out = new ArrayList<>(entries.size());
        for (ReducerEntry e : entries) {
            Entry entry =
                    new Entry(e.step(), e.chunk(), e.numChunks(), e.rank(), e.seeds(), e.values());
            entry.valCorrect = e.valCorrect();
            entry.valTotal = e.valTotal();
            out.add(entry);
        }
        return out;
    }

    /** Checkpointed POJOs as the reducer's entries. */
    private static List<ReducerEntry> fromState(Iterable<Entry> state) {
        List<ReducerEntry> out = new ArrayList<>();
        for (Entry e : state) {
            out.add(
                    new ReducerEntry(
                            e.step,
                            e.chunk,
                            e.numChunks,
                            e.rank,
                            e.seeds,
                            e.values,
                            e.valCorrect,
                            e.valTotal));
        }
        return out;
    }

    /** Held contributions, for tests. */
    int heldContributions() {
        return sums.heldContributions();
    }

    /** The steps whose sum this reducer holds for {@code chunk}, ascending, for tests. */
    List<Long> completedSteps(int chunk) {
        return sums.completedSteps(chunk);
    }

    long resentSums() {
        return resentSums.getCount();
    }

    long staleContributions() {
        return staleContributions.getCount();
    }

    long duplicateContributions() {
        return duplicateContributions.getCount();
    }

    long foreignContributions() {
        return foreignContributions.getCount();
    }

    /**
     * Checkpointed form of a held contribution ({@code rank >= 0}) or a completed sum ({@code rank
     * == -1}, {@code seeds} and {@code values} summed). A Flink POJO (no Kryo).
     */
    public static class Entry {
        public long step;
        public int chunk;
        public int numChunks;
        public int rank;
        public int seeds;
        public float[] values;

        /** Validation counts ({@link GradientChunk#valCorrect}; 0 in state of earlier builds). */
        public long valCorrect;

        public long valTotal;

        public Entry() {}

        public Entry(long step, int chunk, int numChunks, int rank, int seeds, float[] values) {
            this.step = step;
            this.chunk = chunk;
            this.numChunks = numChunks;
            this.rank = rank;
            this.seeds = seeds;
            this.values = values;
        }
    }
}

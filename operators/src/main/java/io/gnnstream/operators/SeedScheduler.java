package io.gnnstream.operators;

import io.gnnstream.operators.messages.BatchSpec;
import io.gnnstream.operators.messages.Credit;
import io.gnnstream.operators.messages.GraphEvent;
import io.gnnstream.operators.schedule.Schedule;
import java.util.List;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Decides which batches are built and when (parallelism 1): the Flink adapter of the scheduler
 * role, {@link Schedule}, which holds its rules and state; this operator feeds it records and
 * checkpoints its {@link SchedulerState}.
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

    /** No progress of a rank for this long, with its specs outstanding, re-issues them. */
    static final long STALL_REISSUE_NANOS = 30_000_000_000L;

    static final ListStateDescriptor<SchedulerState> STATE =
            new ListStateDescriptor<>("scheduler", TypeInformation.of(SchedulerState.class));

    private final SchedulerConfig config;
    private long stallReissueNanos = STALL_REISSUE_NANOS;

    private transient ListState<SchedulerState> checkpointed;
    private transient Schedule schedule;

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
        SchedulerState restored = null;
        for (SchedulerState state : checkpointed.get()) {
            restored = state;
        }
        schedule =
                new Schedule(
                        config,
                        restored,
                        spec -> output.collect(new StreamRecord<>(spec)),
                        System::nanoTime,
                        stallReissueNanos);
    }

    /** A restored scheduler issues its unacknowledged specs again (see the class comment). */
    @Override
    public void open() throws Exception {
        super.open();
        schedule.start();
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        checkpointed.update(List.of(schedule.snapshot()));
    }

    @Override
    public void processElement1(StreamRecord<GraphEvent> element) {
        schedule.onGraphEvent(element.getValue());
    }

    @Override
    public void processElement2(StreamRecord<Credit> element) {
        schedule.onCredit(element.getValue());
    }
}

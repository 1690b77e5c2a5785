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
 * checkpoints its {@link SchedulerState} (terms in docs/design.md, "Glossary").
 *
 * <p>Input 1: {@link GraphEvent}s (seed vertices per split, partition sizes, stored layer outputs).
 * Input 2: {@link Credit}s from the trainer ranks through the second iteration's feedback edge.
 * Output: {@link BatchSpec}s addressed to a rank, numbered per rank in the order that rank must
 * consume them. Training steps take the next {@code trainers x batchSize} seeds of a shuffled epoch
 * order; evaluation rounds are inserted after every {@code evalEvery} steps and the last one; at
 * most {@code prefetch} specs per rank are unacknowledged. A restored scheduler issues its
 * unacknowledged specs again, rewinds a rank that restored less progress than it acknowledged, and
 * after a restore at another trainer count continues from the step the new ranks announce
 * (docs/design.md, "SeedScheduler", "Another trainer count").
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

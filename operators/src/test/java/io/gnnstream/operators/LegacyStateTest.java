package io.gnnstream.operators;

import static io.gnnstream.operators.TrainerRig.batch;
import static io.gnnstream.operators.TrainerRig.concat;
import static io.gnnstream.operators.TrainerRig.credits;
import static io.gnnstream.operators.TrainerRig.deliver;
import static io.gnnstream.operators.TrainerRig.gradients;
import static io.gnnstream.operators.TrainerRig.params;
import static io.gnnstream.operators.TrainerRig.rank;
import static io.gnnstream.operators.TrainerRig.reduce;
import static io.gnnstream.operators.TrainerRig.reducer;
import static io.gnnstream.operators.TrainerRig.send;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.operators.messages.BatchSpec;
import io.gnnstream.operators.messages.Credit;
import io.gnnstream.operators.messages.GradientChunk;
import io.gnnstream.operators.messages.GraphEvent;
import io.gnnstream.operators.messages.ReducedChunk;
import io.gnnstream.operators.model.ModelState;
import io.gnnstream.state.records.Split;
import java.io.DataInputStream;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OperatorSnapshotUtil;
import org.apache.flink.streaming.util.TwoInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Checkpoints written before the trainer kept its replicas in union list state and the scheduler
 * kept where its steps began ({@code src/test/resources/legacy}, harness snapshots of that code):
 * they restore at their own trainer count and continue exactly, and refuse another count with a
 * clear message.
 *
 * <p>The snapshots: a scheduler of 2 ranks ({@link #LEGACY_SCHEDULER}) after the seeds below and a
 * credit of each rank for seq 0; two trainer ranks and their reducer ({@link TrainerRig}'s model
 * and batches) after step 1, with rank 0 waiting for step 3's sum and rank 1 for step 2's; and the
 * parameters both ranks reach after step 3 without the restore.
 */
@Timeout(120)
class LegacyStateTest {

    private static final SchedulerConfig LEGACY_SCHEDULER =
            new SchedulerConfig(new JobScale(4, 1, 2, 2), 2, 2, 12, 4, 3, 5, 7L, 0, 0, 1, 0, false);

    @Test
    void aLegacyTrainerCheckpointContinuesBitForBitAtItsOwnCount() throws Exception {
        OperatorSubtaskState both =
                AbstractStreamOperatorTestHarness.repackageState(
                        read("trainer-t2-rank0"), read("trainer-t2-rank1"));
        try (var r0 = rank(0, 2, TrainerRescaleTest.repartition(both, 2, 2, 0));
                var r1 = rank(1, 2, TrainerRescaleTest.repartition(both, 2, 2, 1));
                var red = reducer(2, read("reducer-t2"))) {
            assertTrue(
                    credits(r0).isEmpty() && credits(r1).isEmpty(),
                    "no announcement at the same count");
            List<GradientChunk> again = concat(gradients(r0), gradients(r1));
            assertEquals(
                    List.of(3L, 2L),
                    again.stream().map(g -> g.step).toList(),
                    "pending steps sent again");
            List<ReducedChunk> sums = reduce(red, again);
            deliver(r0, sums);
            deliver(r1, sums);
            assertEquals(List.of(1L), credits(r1), "rank 1 applied step 2");
            send(r1, batch(2, 3, new int[] {3, 4}));
            sums = reduce(red, gradients(r1));
            deliver(r0, sums);
            deliver(r1, sums);
            assertEquals(List.of(2L), credits(r0));
            assertEquals(List.of(2L), credits(r1));
            float[] expected = expectedParameters();
            assertArrayEquals(expected, params(r0), "rank 0 continues as without the restore");
            assertArrayEquals(expected, params(r1), "rank 1 continues as without the restore");
        }
    }

    @Test
    void aLegacyTrainerCheckpointRefusesAnotherCount() throws Exception {
        OperatorSubtaskState both =
                AbstractStreamOperatorTestHarness.repackageState(
                        read("trainer-t2-rank0"), read("trainer-t2-rank1"));
        Exception e =
                assertThrows(
                        Exception.class,
                        () -> rank(0, 1, TrainerRescaleTest.repartition(both, 2, 1, 0)));
        assertTrue(
                rootMessage(e).contains("restores only at its own trainer count"), rootMessage(e));
    }

    /**
     * Why the replicas have a state of their own: Flink keeps a list state's redistribution mode in
     * the checkpoint and refuses to register a split list state as union list state.
     */
    @Test
    void flinkDoesNotReadSplitListStateAsUnionListState() throws Exception {
        try (var h = new OneInputStreamOperatorTestHarness<>(new UnionReader())) {
            Exception e =
                    assertThrows(
                            Exception.class, () -> h.initializeState(read("trainer-t2-rank0")));
            assertTrue(
                    rootMessage(e).contains("Incompatible state assignment modes"), rootMessage(e));
        }
    }

    @Test
    void aLegacySchedulerCheckpointContinuesAsTheCurrentOneAtItsOwnCount() throws Exception {
        OperatorSubtaskState current;
        try (var h = new TwoInputStreamOperatorTestHarness<>(new SeedScheduler(LEGACY_SCHEDULER))) {
            h.open();
            for (long id : new long[] {21, 22, 23}) {
                h.processElement1(new StreamRecord<>(GraphEvent.seed(0, id, Split.VAL)));
            }
            h.processElement1(new StreamRecord<>(GraphEvent.seed(0, 30, Split.TEST)));
            for (long id = 10; id < 19; id++) {
                h.processElement1(new StreamRecord<>(GraphEvent.seed(0, id, Split.TRAIN)));
            }
            h.processElement2(new StreamRecord<>(new Credit(0, 0)));
            h.processElement2(new StreamRecord<>(new Credit(1, 0)));
            current = h.snapshot(1, 1);
        }
        List<String> expected = continueSchedule(current);
        assertEquals(expected, continueSchedule(read("scheduler-t2")));
        assertTrue(expected.size() > 20, "the whole schedule: " + expected.size());
    }

    @Test
    void aLegacySchedulerCheckpointRefusesAnotherCount() throws Exception {
        SchedulerConfig three =
                new SchedulerConfig(
                        new JobScale(4, 1, 3, 3), 2, 2, 12, 4, 3, 5, 7L, 0, 0, 1, 0, false);
        try (var h = new TwoInputStreamOperatorTestHarness<>(new SeedScheduler(three))) {
            Exception e =
                    assertThrows(Exception.class, () -> h.initializeState(read("scheduler-t2")));
            assertTrue(rootMessage(e).contains("restore it with 2 trainers"), rootMessage(e));
        }
    }

    /**
     * Restores {@code state} and acknowledges every spec until the schedule ends; the specs as
     * text.
     */
    private static List<String> continueSchedule(OperatorSubtaskState state) throws Exception {
        List<String> out = new ArrayList<>();
        try (var h = new TwoInputStreamOperatorTestHarness<>(new SeedScheduler(LEGACY_SCHEDULER))) {
            h.initializeState(state);
            h.open();
            for (int round = 0; round < 100; round++) {
                List<BatchSpec> issued = new ArrayList<>();
                for (Object o : h.getOutput()) {
                    if (o instanceof StreamRecord<?> r) {
                        issued.add((BatchSpec) r.getValue());
                    }
                }
                h.getOutput().clear();
                if (issued.isEmpty() && round > 0) {
                    break;
                }
                for (BatchSpec s : issued) {
                    out.add(
                            s.trainer
                                    + "/"
                                    + s.seq
                                    + "/"
                                    + s.kind
                                    + "/"
                                    + s.step
                                    + "/"
                                    + s.batchId
                                    + "/"
                                    + java.util.Arrays.toString(s.seeds));
                }
                for (BatchSpec s : issued) {
                    h.processElement2(new StreamRecord<>(new Credit(s.trainer, s.seq)));
                }
            }
        }
        return out;
    }

    private static float[] expectedParameters() throws Exception {
        try (InputStream in =
                        LegacyStateTest.class.getResourceAsStream(
                                "/legacy/trainer-t2-after-step3.params");
                DataInputStream data = new DataInputStream(in)) {
            float[] out = new float[data.readInt()];
            for (int i = 0; i < out.length; i++) {
                out[i] = data.readFloat();
            }
            return out;
        }
    }

    private static OperatorSubtaskState read(String name) throws Exception {
        return OperatorSnapshotUtil.readStateHandle(
                LegacyStateTest.class.getResource("/legacy/" + name).getPath());
    }

    private static String rootMessage(Throwable e) {
        StringBuilder b = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            b.append(t.getMessage()).append(" / ");
        }
        return b.toString();
    }

    /** Registers the trainer's former split list state of the model as union list state. */
    private static final class UnionReader extends AbstractStreamOperator<String>
            implements OneInputStreamOperator<String, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public void initializeState(StateInitializationContext context) throws Exception {
            super.initializeState(context);
            ListState<ModelState> model =
                    context.getOperatorStateStore()
                            .getUnionListState(TrainerCheckpoint.LEGACY_MODEL);
            model.get();
        }

        @Override
        public void processElement(StreamRecord<String> element) {}
    }
}

package io.gnnstream.operators;

import static io.gnnstream.operators.TrainerRig.batch;
import static io.gnnstream.operators.TrainerRig.credits;
import static io.gnnstream.operators.TrainerRig.deliver;
import static io.gnnstream.operators.TrainerRig.exchange;
import static io.gnnstream.operators.TrainerRig.gradients;
import static io.gnnstream.operators.TrainerRig.params;
import static io.gnnstream.operators.TrainerRig.rank;
import static io.gnnstream.operators.TrainerRig.reduce;
import static io.gnnstream.operators.TrainerRig.reducer;
import static io.gnnstream.operators.TrainerRig.send;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.operators.messages.GradientChunk;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Trainer ranks restored at their own count from snapshots a step apart (docs/design.md,
 * "All-reduce", point 4): rank 1 snapshotted before it sent step 2's gradient, rank 0 after it
 * applied step 2's sum, which holds that gradient. Rank 1 takes rank 0's replica and finishes the
 * batch of step 2, issued again, without training it: sampled again from a graph that changed, its
 * gradient would not be the one in the sum.
 */
@Timeout(120)
class TrainerCatchUpTest {

    /** Both ranks' snapshot, and the parameters of step 2 that rank 0 applied before its own. */
    private record Apart(OperatorSubtaskState state, float[] step2) {}

    /**
     * Two ranks train step 1; rank 0 applies step 2 before its snapshot, rank 1 snapshots before it
     * takes step 2's batch, or ({@code rank1Sent}) once it sent step 2's gradient.
     */
    private static Apart aStepApart(boolean rank1Sent) throws Exception {
        try (var r0 = rank(0, 2, null);
                var r1 = rank(1, 2, null);
                var red = reducer(2, null)) {
            send(r0, batch(0, 1, new int[] {0, 1}));
            send(r1, batch(0, 1, new int[] {2, 3}));
            exchange(red, r0, r1);
            OperatorSubtaskState behind = rank1Sent ? null : r1.snapshot(1, 1);
            send(r0, batch(1, 2, new int[] {4, 5}));
            send(r1, batch(1, 2, new int[] {6, 7}));
            List<GradientChunk> both = new ArrayList<>(gradients(r0));
            both.addAll(gradients(r1));
            if (rank1Sent) {
                behind = r1.snapshot(1, 1);
            }
            deliver(r0, reduce(red, both));
            return new Apart(
                    AbstractStreamOperatorTestHarness.repackageState(r0.snapshot(1, 1), behind),
                    params(r0));
        }
    }

    /**
     * Rank 1 had sent step 2's gradient and waited for its sum at the snapshot: it takes rank 0's
     * replica and finishes that batch at once, as the sum would have, so the schedule goes on.
     */
    @Test
    void aRankWaitingForTheSumOfAStepTheOtherAppliedFinishesItsBatchAtOnce() throws Exception {
        Apart apart = aStepApart(true);
        try (var r1 = rank(1, 2, TrainerRescaleTest.repartition(apart.state(), 2, 2, 1))) {
            assertArrayEquals(apart.step2(), params(r1), "rank 1 continues from rank 0's replica");
            assertTrue(gradients(r1).isEmpty(), "step 2's gradient is not sent again");
            assertEquals(List.of(1L), credits(r1), "the batch of step 2 is done");
        }
    }

    @Test
    void aRankAStepBehindTakesTheFurthestReplicaAndTrainsNoStepAgain() throws Exception {
        Apart apart = aStepApart(false);
        OperatorSubtaskState state = apart.state();
        float[] step2 = apart.step2();
        try (var r0 = rank(0, 2, TrainerRescaleTest.repartition(state, 2, 2, 0));
                var r1 = rank(1, 2, TrainerRescaleTest.repartition(state, 2, 2, 1));
                var red = reducer(2, null)) {
            assertArrayEquals(step2, params(r1), "rank 1 continues from rank 0's replica");
            assertTrue(gradients(r1).isEmpty(), "rank 1 has no step to send");
            credits(r1);
            // The scheduler issues rank 1's batch of step 2 again, sampled from a changed graph.
            send(r1, batch(1, 2, new int[] {0, 3}));
            assertEquals(List.of(1L), credits(r1), "finished without training");
            assertTrue(gradients(r1).isEmpty(), "no gradient of step 2 again");
            send(r0, batch(2, 3, new int[] {1, 2}));
            send(r1, batch(2, 3, new int[] {3, 4}));
            exchange(red, r0, r1);
            assertEquals(List.of(2L), credits(r1));
            assertArrayEquals(params(r0), params(r1), "replicas agree after step 3");
        }
    }
}

package io.gnnstream.operators;

import static io.gnnstream.operators.TrainerRig.MAX_PARALLELISM;
import static io.gnnstream.operators.TrainerRig.batch;
import static io.gnnstream.operators.TrainerRig.concat;
import static io.gnnstream.operators.TrainerRig.credits;
import static io.gnnstream.operators.TrainerRig.deliver;
import static io.gnnstream.operators.TrainerRig.exchange;
import static io.gnnstream.operators.TrainerRig.gradients;
import static io.gnnstream.operators.TrainerRig.operator;
import static io.gnnstream.operators.TrainerRig.params;
import static io.gnnstream.operators.TrainerRig.rank;
import static io.gnnstream.operators.TrainerRig.reduce;
import static io.gnnstream.operators.TrainerRig.reducer;
import static io.gnnstream.operators.TrainerRig.send;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gnnstream.operators.messages.Credit;
import io.gnnstream.operators.messages.GradientChunk;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.messages.ReducedChunk;
import io.gnnstream.operators.schedule.RankLayout;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.streaming.util.TwoInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Trainer ranks restored at another trainer count (docs/design.md, "Checkpoints and restore",
 * "Another trainer count"): every new rank starts from the replica of the furthest step any old
 * rank applied, announces it in its first credit, drops the old ranks' batches and pending
 * gradients, and the all-reduce of the new ranks is not disturbed by the old ranks' contributions.
 */
@Timeout(120)
class TrainerRescaleTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * Checkpoints of two ranks and their reducer, and the parameters of the furthest applied step.
     */
    private record Checkpoint(
            OperatorSubtaskState ranks,
            OperatorSubtaskState reducer,
            long step,
            float[] params,
            List<GradientChunk> inFlight) {}

    /**
     * Two ranks after step 1; in step 2 rank 0 receives the sum and applies it, then computes step
     * 3's gradient, while rank 1 still waits for step 2's sum and holds step 3's batch: the
     * checkpoint's furthest step is 2, rank 0's.
     */
    private static Checkpoint rank0AppliedRank1Pending() throws Exception {
        try (var r0 = rank(0, 2, null);
                var r1 = rank(1, 2, null);
                var red = reducer(2, null)) {
            send(r0, batch(0, 1, new int[] {0, 1}));
            send(r1, batch(0, 1, new int[] {2, 3}));
            exchange(red, r0, r1);
            send(r0, batch(1, 2, new int[] {4, 5}));
            send(r1, batch(1, 2, new int[] {6, 7}));
            List<GradientChunk> step2 = concat(gradients(r0), gradients(r1));
            deliver(r0, reduce(red, step2));
            float[] applied = params(r0);
            send(r0, batch(2, 3, new int[] {1, 2}));
            send(r1, batch(2, 3, new int[] {3, 4}));
            List<GradientChunk> step3 = gradients(r0);
            assertEquals(1, step3.size(), "rank 0 waits for step 3's sum");
            assertTrue(
                    operator(r1).stepInFlight() || gradients(r1).isEmpty(),
                    "rank 1 still waits for step 2");
            return new Checkpoint(both(r0, r1), red.snapshot(1, 1), 2, applied, step3);
        }
    }

    /** Two ranks after step 1, both waiting for step 2's sum: the furthest step is 1. */
    private static Checkpoint bothPending() throws Exception {
        try (var r0 = rank(0, 2, null);
                var r1 = rank(1, 2, null);
                var red = reducer(2, null)) {
            send(r0, batch(0, 1, new int[] {0, 1}));
            send(r1, batch(0, 1, new int[] {2, 3}));
            exchange(red, r0, r1);
            float[] applied = params(r0);
            send(r0, batch(1, 2, new int[] {4, 5}));
            send(r1, batch(1, 2, new int[] {6, 7}));
            List<GradientChunk> step2 = concat(gradients(r0), gradients(r1));
            // Rank 0's contribution reached the reducer before the checkpoint, rank 1's is in
            // flight.
            reduce(red, step2.subList(0, 1));
            return new Checkpoint(
                    both(r0, r1), red.snapshot(1, 1), 1, applied, step2.subList(1, 2));
        }
    }

    @Test
    void twoToOneContinuesFromTheRankThatAppliedTheStep() throws Exception {
        checkRescale(rank0AppliedRank1Pending(), 1);
    }

    @Test
    void twoToThreeContinuesFromTheRankThatAppliedTheStep() throws Exception {
        checkRescale(rank0AppliedRank1Pending(), 3);
    }

    @Test
    void twoToOneRecomputesAStepNoRankApplied() throws Exception {
        checkRescale(bothPending(), 1);
    }

    @Test
    void twoToThreeRecomputesAStepNoRankApplied() throws Exception {
        checkRescale(bothPending(), 3);
    }

    /**
     * Every new rank restores the same parameters, those of the furthest applied step k, announces
     * k, sends no gradient of the old layout and ignores the old layout's batches; the next step of
     * the new ranks gives the same parameters whether or not the reducer holds and receives the old
     * ranks' contributions.
     */
    private static void checkRescale(Checkpoint c, int ranks) throws Exception {
        List<TwoInputStreamOperatorTestHarness<MiniBatchPart, ReducedChunk, Credit>> restored =
                new ArrayList<>();
        List<TwoInputStreamOperatorTestHarness<MiniBatchPart, ReducedChunk, Credit>> reference =
                new ArrayList<>();
        long first = RankLayout.firstSeq(1, c.step);
        try {
            for (int r = 0; r < ranks; r++) {
                restored.add(rank(r, ranks, repartition(c.ranks, ranks, r)));
                reference.add(rank(r, ranks, repartition(c.ranks, ranks, r)));
            }
            for (var h : restored) {
                assertArrayEquals(c.params, params(h), "the replica of step " + c.step);
                assertEquals(
                        List.of(first - 1),
                        credits(h),
                        "the first credit announces step " + c.step);
                assertTrue(
                        gradients(h).isEmpty(),
                        "no pending gradient of the old layout is sent again");
                assertFalse(operator(h).stepInFlight());
                send(h, batch(2, c.step + 1, new int[] {0, 1}));
                assertTrue(credits(h).isEmpty(), "a batch of the old layout is ignored as done");
                for (MiniBatchPart p : batch(first, c.step + 1, new int[] {0, 1})) {
                    p.trainer = ranks;
                    h.processElement1(new StreamRecord<>(p));
                }
                assertTrue(
                        credits(h).isEmpty(), "a part of a rank that no longer exists is dropped");
                assertEquals(2, operator(h).foreignParts());
                assertFalse(operator(h).stepInFlight());
            }
            for (int r = 0; r < ranks; r++) {
                send(restored.get(r), batch(first, c.step + 1, new int[] {r, r + 1}));
                send(reference.get(r), batch(first, c.step + 1, new int[] {r, r + 1}));
            }
            if (ranks > 1) {
                try (var old = reducer(ranks, repartitionReducer(c.reducer));
                        var fresh = reducer(ranks, null)) {
                    // The old ranks' contributions in flight at the checkpoint arrive, then the new
                    // ones.
                    List<ReducedChunk> stale = reduce(old, c.inFlight);
                    restored.forEach(h -> assertFalse(operator(h).stepInFlight()));
                    for (var h : restored) {
                        deliver(h, stale);
                    }
                    exchange(old, restored.toArray(TwoInputStreamOperatorTestHarness[]::new));
                    exchange(fresh, reference.toArray(TwoInputStreamOperatorTestHarness[]::new));
                }
            }
            for (int r = 0; r < ranks; r++) {
                assertEquals(
                        List.of(first),
                        credits(restored.get(r)),
                        "rank " + r + " trained step " + (c.step + 1));
                assertArrayEquals(
                        params(reference.get(r)),
                        params(restored.get(r)),
                        "the old ranks' contributions changed step " + (c.step + 1));
                assertArrayEquals(
                        params(restored.get(0)), params(restored.get(r)), "replicas differ");
            }
        } finally {
            for (var h : concat(restored, reference)) {
                h.close();
            }
        }
    }

    /**
     * One rank trained three steps and holds the batch of the fifth; two ranks continue from step
     * 3.
     */
    @Test
    void oneToTwoStartsBothRanksFromTheSingleReplica() throws Exception {
        OperatorSubtaskState one;
        float[] afterThree;
        try (var h = rank(0, 1, null)) {
            for (int s = 0; s < 3; s++) {
                send(h, batch(s, s + 1, new int[] {s, s + 1}));
            }
            send(h, batch(4, 5, new int[] {5, 6}));
            afterThree = params(h);
            one = h.snapshot(1, 1);
        }
        long first = RankLayout.firstSeq(1, 3);
        try (var r0 = rank(0, 2, repartition(one, 1, 2, 0));
                var r1 = rank(1, 2, repartition(one, 1, 2, 1));
                var red = reducer(2, null)) {
            for (var h : List.of(r0, r1)) {
                assertArrayEquals(afterThree, params(h));
                assertEquals(List.of(first - 1), credits(h));
            }
            send(r0, batch(first, 4, new int[] {0, 1}));
            send(r1, batch(first, 4, new int[] {2, 3}));
            exchange(red, r0, r1);
            assertEquals(List.of(first), credits(r0));
            assertEquals(List.of(first), credits(r1));
            assertArrayEquals(params(r0), params(r1));
        }
    }

    /**
     * A round of the restored step comes again to the new rank 0 only (all its scored blocks); its
     * line says it stands alone, since the other ranks reported that step before the restore.
     */
    @Test
    void theRoundOfTheRestoredStepReportsAlone() throws Exception {
        Checkpoint c = rank0AppliedRank1Pending();
        long first = RankLayout.firstSeq(1, c.step);
        try (var r0 = rank(0, 3, repartition(c.ranks, 3, 0))) {
            List<MiniBatchPart> round =
                    batch(first, MiniBatch.Kind.EVAL_TEST, c.step, new int[] {4, 5, 6});
            round.get(1).head.roundSize = 1;
            round.get(1).head.roundShare = 1;
            send(r0, round);
            assertEquals(List.of(first - 1, first), credits(r0));
            List<JsonNode> lines = new ArrayList<>();
            for (var r : r0.getSideOutput(TrainerOperator.METRICS)) {
                lines.add(JSON.readTree(r.getValue()));
            }
            assertEquals(1, lines.size());
            assertEquals("eval", lines.get(0).path("type").asText());
            assertEquals(c.step, lines.get(0).path("step").asLong());
            assertTrue(lines.get(0).path("alone").asBoolean());
        }
    }

    /** A checkpoint of the new layout restores at its own count as usual: the layout is state. */
    @Test
    void aRescaledCheckpointRestoresAtItsOwnCount() throws Exception {
        Checkpoint c = bothPending();
        long first = RankLayout.firstSeq(1, c.step);
        OperatorSubtaskState again;
        try (var r0 = rank(0, 1, repartition(c.ranks, 1, 0))) {
            credits(r0);
            send(r0, batch(first, c.step + 1, new int[] {0, 1}));
            assertEquals(List.of(first), credits(r0));
            again = r0.snapshot(2, 2);
        }
        try (var r0 = rank(0, 1, repartition(again, 1, 1, 0))) {
            assertTrue(credits(r0).isEmpty(), "no announcement at the checkpoint's own count");
            send(r0, batch(first + 1, c.step + 2, new int[] {2, 3}));
            assertEquals(List.of(first + 1), credits(r0));
        }
    }

    private static OperatorSubtaskState both(
            TwoInputStreamOperatorTestHarness<MiniBatchPart, ReducedChunk, Credit> r0,
            TwoInputStreamOperatorTestHarness<MiniBatchPart, ReducedChunk, Credit> r1)
            throws Exception {
        return AbstractStreamOperatorTestHarness.repackageState(
                r0.snapshot(1, 1), r1.snapshot(1, 1));
    }

    private static OperatorSubtaskState repartition(
            OperatorSubtaskState twoRanks, int ranks, int rank) throws Exception {
        return repartition(twoRanks, 2, ranks, rank);
    }

    static OperatorSubtaskState repartition(
            OperatorSubtaskState state, int from, int to, int subtask) throws Exception {
        return AbstractStreamOperatorTestHarness.repartitionOperatorState(
                state, MAX_PARALLELISM, from, to, subtask);
    }

    private static OperatorSubtaskState repartitionReducer(OperatorSubtaskState reducer)
            throws Exception {
        return AbstractStreamOperatorTestHarness.repartitionOperatorState(
                reducer, MAX_PARALLELISM, 1, 1, 0);
    }
}

package io.gnnstream.operators;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.operators.messages.BatchSpec;
import io.gnnstream.operators.messages.Credit;
import io.gnnstream.operators.messages.GraphEvent;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.schedule.RankLayout;
import io.gnnstream.state.records.Split;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.TwoInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The scheduler restored at another trainer count (docs/design.md, "Checkpoints and restore",
 * "Another trainer count"): it waits for a rank to announce the step the ranks restored, then
 * continues the step count from it, with the epoch position rewound to where the next step began
 * and the next steps cut for the new number of ranks, numbered from the new layout's first sequence
 * number.
 */
@Timeout(60)
class SeedSchedulerRescaleTest {

    private static final int BATCH = 2;
    private static final int TRAIN = 20;
    private static final int EPOCHS = 4;

    private static SchedulerConfig config(int trainers, int evalEvery) {
        return new SchedulerConfig(
                new JobScale(4, 1, trainers, trainers),
                BATCH,
                4,
                40,
                evalEvery,
                3,
                TRAIN,
                7L,
                0,
                0,
                1,
                0,
                false);
    }

    /**
     * Two ranks of batch 2 over 20 training vertices (5 steps an epoch), prefetch 3: steps 1..3 are
     * acknowledged, steps 4, 5 and 6 issued (6 begins the second epoch) when the checkpoint is
     * taken.
     */
    private static OperatorSubtaskState twoRanksWithStepsFourToSixOutstanding() throws Exception {
        try (var h = harness(config(2, 0))) {
            h.open();
            announce(h);
            assertEquals(List.of(1L, 2L, 3L), steps(specs(h)));
            for (int r = 0; r < 2; r++) {
                h.processElement2(new StreamRecord<>(new Credit(r, 2)));
            }
            assertEquals(List.of(4L, 5L, 6L), steps(specs(h)));
            return h.snapshot(1, 1);
        }
    }

    @Test
    void twoToOneContinuesAfterTheStepARankApplied() throws Exception {
        checkContinuation(twoRanksWithStepsFourToSixOutstanding(), 1, 5, 1, 20);
    }

    @Test
    void twoToThreeContinuesAfterTheStepARankApplied() throws Exception {
        checkContinuation(twoRanksWithStepsFourToSixOutstanding(), 3, 5, 1, 20);
    }

    @Test
    void twoToOneRewindsToAStepNoRankApplied() throws Exception {
        checkContinuation(twoRanksWithStepsFourToSixOutstanding(), 1, 3, 1, 12);
    }

    @Test
    void twoToThreeRewindsToAStepNoRankApplied() throws Exception {
        checkContinuation(twoRanksWithStepsFourToSixOutstanding(), 3, 3, 1, 12);
    }

    /**
     * The scheduler saw steps 1..3 acknowledged, but the ranks' snapshots came before steps 2 and 3
     * (credits ride a feedback edge): the start of step 2 is still known, among the last
     * acknowledged steps it keeps.
     */
    @Test
    void twoToOneRewindsToAStepTheSchedulerSawAcknowledged() throws Exception {
        checkContinuation(twoRanksWithStepsFourToSixOutstanding(), 1, 1, 1, 4);
    }

    /** The ranks applied every issued step though the scheduler saw credits up to step 3 only. */
    @Test
    void twoToThreeContinuesAfterTheLastIssuedStep() throws Exception {
        checkContinuation(twoRanksWithStepsFourToSixOutstanding(), 3, 6, 2, 4);
    }

    /**
     * One rank of batch 2: steps 1..3 acknowledged, 4..6 issued; two ranks continue after step 4.
     */
    @Test
    void oneToTwoRewindsToTheStepAfterTheRestoredOne() throws Exception {
        OperatorSubtaskState one;
        try (var h = harness(config(1, 0))) {
            h.open();
            announce(h);
            h.processElement2(new StreamRecord<>(new Credit(0, 2)));
            assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L), steps(specs(h)));
            one = h.snapshot(1, 1);
        }
        checkContinuation(one, 2, 4, 1, 8);
    }

    /**
     * Restores {@code state} for {@code ranks} ranks, announces step {@code k} and checks the next
     * steps against the epoch orders cut for {@code ranks} ranks from {@code epoch}, {@code
     * position}.
     */
    private static void checkContinuation(
            OperatorSubtaskState state, int ranks, long k, int epoch, int position)
            throws Exception {
        List<long[]> orders = epochOrders();
        long first = RankLayout.firstSeq(1, k);
        try (var h = harness(config(ranks, 0))) {
            h.initializeState(state);
            h.open();
            h.processElement1(new StreamRecord<>(GraphEvent.seed(0, 150, Split.NONE)));
            h.processElement2(new StreamRecord<>(new Credit(1, 5)));
            h.processElement2(new StreamRecord<>(new Credit(2, 4)));
            assertTrue(
                    specs(h).isEmpty(),
                    "nothing is issued before a rank announces its step; old credits are stale");
            h.processElement2(new StreamRecord<>(new Credit(ranks - 1, first - 1)));
            Map<Long, BatchSpec[]> steps = drainSteps(h, ranks, 9);
            List<long[][]> expected = cut(orders, epoch, position, ranks, 9);
            long step = k + 1;
            long[] seq = new long[ranks];
            Arrays.fill(seq, first);
            for (long[][] slices : expected) {
                BatchSpec[] specs = steps.get(step);
                assertTrue(specs != null, "step " + step + " is issued: " + steps.keySet());
                for (int r = 0; r < ranks; r++) {
                    assertArrayEquals(slices[r], specs[r].seeds, "rank " + r + " at step " + step);
                    assertEquals(seq[r]++, specs[r].seq, "rank " + r + " at step " + step);
                }
                step++;
            }
            assertEquals(
                    k + 1,
                    steps.keySet().iterator().next(),
                    "the step count continues at the restored step");
        }
    }

    /**
     * A round of the restored step, not acknowledged in full, is issued again before the next step.
     */
    @Test
    void issuesTheRoundOfTheRestoredStepAgainFromItsFirstPass() throws Exception {
        OperatorSubtaskState state = twoRanksAtTheRoundOfStepFour(false);
        long first = RankLayout.firstSeq(1, 4);
        try (var h = harness(config(3, 4))) {
            h.initializeState(state);
            h.open();
            h.processElement2(new StreamRecord<>(new Credit(0, first - 1)));
            List<BatchSpec> issued = specs(h);
            List<BatchSpec> rank0 = issued.stream().filter(s -> s.trainer == 0).toList();
            assertEquals(
                    List.of(
                            MiniBatch.Kind.EVAL_VAL,
                            MiniBatch.Kind.EVAL_TEST,
                            MiniBatch.Kind.TRAIN),
                    rank0.stream().map(s -> s.kind).toList());
            assertEquals(List.of(4L, 4L, 5L), rank0.stream().map(x -> x.step).toList());
            assertEquals(
                    List.of(0, 1), rank0.subList(0, 2).stream().map(s -> s.roundIndex).toList());
            assertEquals(
                    List.of(first, first + 1, first + 2), rank0.stream().map(s -> s.seq).toList());
            assertTrue(
                    issued.stream()
                            .filter(s -> s.trainer > 0)
                            .allMatch(s -> s.kind == MiniBatch.Kind.TRAIN));
        }
    }

    /** The round of a step no rank applied comes after that step again, as in any schedule. */
    @Test
    void beginsTheRoundOfAStepNoRankAppliedAfterThatStep() throws Exception {
        OperatorSubtaskState state = twoRanksAtTheRoundOfStepFour(false);
        long first = RankLayout.firstSeq(1, 3);
        try (var h = harness(config(1, 4))) {
            h.initializeState(state);
            h.open();
            h.processElement2(new StreamRecord<>(new Credit(0, first - 1)));
            List<BatchSpec> issued = specs(h);
            assertEquals(
                    List.of(
                            MiniBatch.Kind.TRAIN,
                            MiniBatch.Kind.EVAL_VAL,
                            MiniBatch.Kind.EVAL_TEST),
                    issued.stream().map(s -> s.kind).toList());
            assertEquals(List.of(4L, 4L, 4L), issued.stream().map(x -> x.step).toList());
        }
    }

    /** A round the old ranks acknowledged in full is not run again. */
    @Test
    void doesNotRunAnAcknowledgedRoundAgain() throws Exception {
        OperatorSubtaskState state = twoRanksAtTheRoundOfStepFour(true);
        long first = RankLayout.firstSeq(1, 4);
        try (var h = harness(config(3, 4))) {
            h.initializeState(state);
            h.open();
            h.processElement2(new StreamRecord<>(new Credit(2, first - 1)));
            List<BatchSpec> issued = specs(h);
            assertTrue(
                    issued.stream().allMatch(s -> s.kind == MiniBatch.Kind.TRAIN && s.step >= 5),
                    "" + issued);
            assertEquals(3, issued.stream().filter(s -> s.step == 5).count());
        }
    }

    /**
     * Two ranks, evaluation after step 4 (a validation block for rank 0 and a test block for rank
     * 1): steps 1..3 acknowledged, step 4 and its round issued; with {@code roundAcknowledged}, the
     * round and step 4 are acknowledged too and step 5 is issued.
     */
    private static OperatorSubtaskState twoRanksAtTheRoundOfStepFour(boolean roundAcknowledged)
            throws Exception {
        try (var h = harness(config(2, 4))) {
            h.open();
            announce(h);
            for (int r = 0; r < 2; r++) {
                h.processElement2(new StreamRecord<>(new Credit(r, 2)));
            }
            List<BatchSpec> issued = new ArrayList<>(specs(h));
            assertEquals(
                    List.of(MiniBatch.Kind.TRAIN, MiniBatch.Kind.EVAL_VAL),
                    issued.stream()
                            .filter(s -> s.step == 4 && s.trainer == 0)
                            .map(s -> s.kind)
                            .toList());
            assertEquals(
                    List.of(MiniBatch.Kind.TRAIN, MiniBatch.Kind.EVAL_TEST),
                    issued.stream()
                            .filter(s -> s.step == 4 && s.trainer == 1)
                            .map(s -> s.kind)
                            .toList());
            if (roundAcknowledged) {
                h.processElement2(new StreamRecord<>(new Credit(0, 4)));
                h.processElement2(new StreamRecord<>(new Credit(1, 4)));
                issued.addAll(specs(h));
                assertTrue(steps(issued).contains(5L));
            }
            return h.snapshot(1, 1);
        }
    }

    /**
     * A checkpoint taken while waiting for the announcement waits again when restored at the same
     * count.
     */
    @Test
    void aCheckpointWhileWaitingForTheAnnouncementWaitsAgain() throws Exception {
        OperatorSubtaskState waiting;
        try (var h = harness(config(3, 0))) {
            h.initializeState(twoRanksWithStepsFourToSixOutstanding());
            h.open();
            waiting = h.snapshot(2, 2);
        }
        List<long[]> orders = epochOrders();
        long first = RankLayout.firstSeq(1, 5);
        try (var h = harness(config(3, 0))) {
            h.initializeState(waiting);
            h.open();
            assertTrue(specs(h).isEmpty(), "the old ranks' specs are not issued again");
            h.processElement2(new StreamRecord<>(new Credit(1, first - 1)));
            BatchSpec[] step6 = drainSteps(h, 3, 1).get(6L);
            long[][] expected = cut(orders, 1, 20, 3, 1).get(0);
            for (int r = 0; r < 3; r++) {
                assertArrayEquals(expected[r], step6[r].seeds);
                assertEquals(first, step6[r].seq);
            }
        }
    }

    /**
     * The epoch orders of the schedule: one rank of batch 1 takes them seed by seed (every schedule
     * here waits for all training vertices, so its first epoch has them all).
     */
    private static List<long[]> epochOrders() throws Exception {
        SchedulerConfig single =
                new SchedulerConfig(
                        new JobScale(4, 1, 1, 1),
                        1,
                        4,
                        EPOCHS * TRAIN,
                        0,
                        3,
                        TRAIN,
                        7L,
                        0,
                        0,
                        1,
                        0,
                        false);
        Map<Long, BatchSpec[]> steps;
        try (var h = harness(single)) {
            h.open();
            announce(h);
            steps = drainSteps(h, 1, EPOCHS * TRAIN);
        }
        List<long[]> orders = new ArrayList<>();
        for (int e = 0; e < EPOCHS; e++) {
            long[] order = new long[TRAIN];
            for (int i = 0; i < TRAIN; i++) {
                order[i] = steps.get((long) e * TRAIN + i + 1)[0].seeds[0];
            }
            orders.add(order);
        }
        return orders;
    }

    /**
     * {@code count} steps of {@code ranks} ranks of batch {@link #BATCH} from {@code position} of
     * epoch {@code epoch} (1-based), as the schedule cuts them: per step, each rank's slice.
     */
    private static List<long[][]> cut(
            List<long[]> orders, int epoch, int position, int ranks, int count) {
        List<long[][]> out = new ArrayList<>();
        int e = epoch;
        int p = position;
        for (int s = 0; s < count; s++) {
            if (TRAIN - p < ranks) {
                e++;
                p = 0;
            }
            long[] order = orders.get(e - 1);
            int end = Math.min(TRAIN, p + BATCH * ranks);
            int n = end - p;
            long[][] slices = new long[ranks][];
            for (int r = 0; r < ranks; r++) {
                slices[r] = Arrays.copyOfRange(order, p + n * r / ranks, p + n * (r + 1) / ranks);
            }
            out.add(slices);
            p = end;
        }
        return out;
    }

    /**
     * Acknowledges everything issued until {@code count} steps of {@code ranks} ranks are out; by
     * step.
     */
    private static Map<Long, BatchSpec[]> drainSteps(
            TwoInputStreamOperatorTestHarness<GraphEvent, Credit, BatchSpec> h,
            int ranks,
            int count)
            throws Exception {
        Map<Long, BatchSpec[]> steps = new TreeMap<>();
        for (int round = 0; round < 10 * count && steps.size() < count; round++) {
            List<BatchSpec> issued = specs(h);
            for (BatchSpec s : issued) {
                if (s.kind == MiniBatch.Kind.TRAIN) {
                    steps.computeIfAbsent(s.step, x -> new BatchSpec[ranks])[s.trainer] = s;
                }
            }
            for (BatchSpec s : issued) {
                h.processElement2(new StreamRecord<>(new Credit(s.trainer, s.seq)));
            }
        }
        return steps;
    }

    private static TwoInputStreamOperatorTestHarness<GraphEvent, Credit, BatchSpec> harness(
            SchedulerConfig config) throws Exception {
        var h = new TwoInputStreamOperatorTestHarness<>(new SeedScheduler(config));
        h.getExecutionConfig().getSerializerConfig().setGenericTypes(false);
        return h;
    }

    private static void announce(TwoInputStreamOperatorTestHarness<GraphEvent, Credit, BatchSpec> h)
            throws Exception {
        for (long id : new long[] {200, 201, 202}) {
            h.processElement1(new StreamRecord<>(GraphEvent.seed(0, id, Split.VAL)));
        }
        h.processElement1(new StreamRecord<>(GraphEvent.seed(0, 300, Split.TEST)));
        for (long id = 100; id < 100 + TRAIN; id++) {
            h.processElement1(new StreamRecord<>(GraphEvent.seed(0, id, Split.TRAIN)));
        }
    }

    /** The specs issued since the last call, in issue order. */
    private static List<BatchSpec> specs(
            TwoInputStreamOperatorTestHarness<GraphEvent, Credit, BatchSpec> h) {
        List<BatchSpec> out = new ArrayList<>();
        for (Object o : h.getOutput()) {
            if (o instanceof StreamRecord<?> r) {
                out.add((BatchSpec) r.getValue());
            }
        }
        h.getOutput().clear();
        return out;
    }

    private static List<Long> steps(List<BatchSpec> specs) {
        return specs.stream().map(s -> s.step).distinct().toList();
    }
}

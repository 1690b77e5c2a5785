package io.gnnstream.operators.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.operators.JobScale;
import io.gnnstream.operators.SchedulerConfig;
import io.gnnstream.operators.SchedulerState;
import io.gnnstream.operators.messages.BatchSpec;
import io.gnnstream.operators.messages.Credit;
import io.gnnstream.operators.messages.GraphEvent;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.state.records.Split;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The serving round in the schedule (docs/design.md, "Model selection"): with {@code --select
 * best-val} and predictions, a round of step {@code max-steps + 1} follows the final round, all on
 * rank 0, and no training step; a restore at another trainer count after the final step issues the
 * final round again on rank 0 (whose selection exchange the old ranks may have waited for), and the
 * serving round after it.
 */
@Timeout(30)
class ServingRoundScheduleTest {

    /** Two steps of one seed per rank, a round after step 2 (the final one), one layer. */
    private static SchedulerConfig config(int trainers, boolean bestVal, boolean predictions) {
        return new SchedulerConfig(
                        new JobScale(4, 1, trainers, trainers),
                        1,
                        4,
                        2,
                        2,
                        8,
                        1,
                        7L,
                        0,
                        0,
                        1,
                        0,
                        predictions)
                .withSelection(bestVal, predictions);
    }

    /** A schedule of the given config and state, its specs going to {@code out}. */
    private static Schedule schedule(
            SchedulerConfig config, SchedulerState state, List<BatchSpec> out) {
        return new Schedule(config, state, out::add, System::nanoTime, Long.MAX_VALUE);
    }

    /** Three validation, one test and four training vertices: a round is three blocks of four. */
    private static void announce(Schedule s) {
        for (long id : new long[] {200, 201, 202}) {
            s.onGraphEvent(GraphEvent.seed(0, id, Split.VAL));
        }
        s.onGraphEvent(GraphEvent.seed(0, 300, Split.TEST));
        for (long id = 100; id < 104; id++) {
            s.onGraphEvent(GraphEvent.seed(0, id, Split.TRAIN));
        }
    }

    /** Every rank acknowledges everything it was issued, until nothing new comes. */
    private static void creditAll(Schedule s, List<BatchSpec> issued, int trainers) {
        int seen = -1;
        while (seen != issued.size()) {
            seen = issued.size();
            long[] highest = new long[trainers];
            java.util.Arrays.fill(highest, -1);
            for (BatchSpec spec : issued) {
                highest[spec.trainer] = Math.max(highest[spec.trainer], spec.seq);
            }
            for (int r = 0; r < trainers; r++) {
                if (highest[r] >= 0) {
                    s.onCredit(new Credit(r, highest[r]));
                }
            }
        }
    }

    private static List<BatchSpec> ofStep(List<BatchSpec> specs, long step) {
        return specs.stream().filter(b -> b.step == step).toList();
    }

    @Test
    void theServingRoundFollowsTheFinalRoundOnRankZero() {
        List<BatchSpec> issued = new ArrayList<>();
        Schedule s = schedule(config(2, true, true), null, issued);
        announce(s);
        creditAll(s, issued, 2);
        List<BatchSpec> finalRound =
                ofStep(issued, 2).stream().filter(b -> b.kind != MiniBatch.Kind.TRAIN).toList();
        assertEquals(3, finalRound.size(), "the final round's blocks");
        assertTrue(finalRound.stream().allMatch(b -> b.finalRound));
        assertEquals(List.of(0, 1, 0), finalRound.stream().map(b -> b.trainer).toList());
        List<BatchSpec> serving = ofStep(issued, 3);
        assertEquals(3, serving.size(), "the serving round's blocks: " + serving);
        for (BatchSpec b : serving) {
            assertEquals(0, b.trainer, "all on rank 0");
            assertTrue(b.kind != MiniBatch.Kind.TRAIN && b.layer == 1 && !b.finalRound);
        }
        assertEquals(3, serving.get(serving.size() - 1).roundShare, "rank 0 scores all of it");
        int lastFinal = issued.indexOf(finalRound.get(finalRound.size() - 1));
        assertTrue(issued.indexOf(serving.get(0)) > lastFinal, "after the final round's blocks");
        assertEquals(2, s.steps(), "no training step starts it");

        for (boolean[] off : new boolean[][] {{false, true}, {true, false}}) {
            List<BatchSpec> none = new ArrayList<>();
            Schedule plain = schedule(config(2, off[0], off[1]), null, none);
            announce(plain);
            creditAll(plain, none, 2);
            assertEquals(
                    List.of(),
                    ofStep(none, 3),
                    "no serving round without best-val and predictions");
        }
    }

    @Test
    void aRestoreAtAnotherCountAfterTheFinalStepRunsTheFinalRoundAgainOnRankZero() {
        List<BatchSpec> issued = new ArrayList<>();
        Schedule two = schedule(config(2, true, true), null, issued);
        announce(two);
        creditAll(two, issued, 2);
        // Every block acknowledged: the old ranks may have waited for the final selection exchange.
        SchedulerState state = two.snapshot();

        List<BatchSpec> again = new ArrayList<>();
        Schedule three = schedule(config(3, true, true), state, again);
        three.start();
        assertEquals(List.of(), again, "waits for a rank to announce the restored step");
        three.onCredit(new Credit(1, RankLayout.firstSeq(1, 2) - 1));
        creditAll(three, again, 3);
        List<BatchSpec> finalRound = ofStep(again, 2);
        assertEquals(3, finalRound.size(), "the final round again: " + again);
        assertTrue(finalRound.stream().allMatch(b -> b.trainer == 0 && b.finalRound));
        List<BatchSpec> serving = ofStep(again, 3);
        assertEquals(3, serving.size(), "then the serving round: " + again);
        assertTrue(serving.stream().allMatch(b -> b.trainer == 0 && !b.finalRound));
        assertTrue(again.stream().noneMatch(b -> b.kind == MiniBatch.Kind.TRAIN));
        assertEquals(6, again.size());
    }
}

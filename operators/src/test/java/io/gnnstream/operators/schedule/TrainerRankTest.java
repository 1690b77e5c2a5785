package io.gnnstream.operators.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.operators.TrainerProgress;
import io.gnnstream.operators.messages.BatchAddress;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.model.EvalResult;
import java.util.List;
import org.junit.jupiter.api.Test;

class TrainerRankTest {

    private static MiniBatch batch(long seq, long step, MiniBatch.Kind kind, int share) {
        MiniBatch b = new MiniBatch();
        b.trainer = 1;
        b.seq = seq;
        b.batchId = 100 + seq;
        b.step = step;
        b.kind = kind;
        b.roundShare = share;
        return b;
    }

    @Test
    void batchesRunInSeqOrderAndReissuesAreHeld() {
        TrainerProgress progress = new TrainerProgress();
        progress.nextSeq = 5;
        TrainerRank rank = new TrainerRank(1, progress, List.of(), false);
        assertNull(rank.startCredit());
        assertEquals(TrainerRank.Arrival.FOREIGN, rank.arrival(new BatchAddress(0, 5, 1), false));
        assertEquals(TrainerRank.Arrival.HELD, rank.arrival(new BatchAddress(1, 4, 1), false));
        assertEquals(TrainerRank.Arrival.WANTED, rank.arrival(new BatchAddress(1, 5, 1), false));
        assertEquals(TrainerRank.Arrival.HELD, rank.arrival(new BatchAddress(1, 5, 1), true));

        MiniBatch sixth = batch(6, 2, MiniBatch.Kind.TRAIN, 0);
        rank.buffer(sixth);
        assertEquals(TrainerRank.Arrival.HELD, rank.arrival(sixth.address(), false));
        assertNull(rank.takeNext(), "seq 6 waits for seq 5");
        MiniBatch fifth = batch(5, 1, MiniBatch.Kind.TRAIN, 0);
        rank.buffer(fifth);
        assertSame(fifth, rank.takeNext());
        assertEquals(5, rank.finish(5).processedSeq);
        assertSame(sixth, rank.takeNext());
        assertEquals(6, rank.finish(6).processedSeq);
        assertEquals(6, rank.current().processedSeq);
    }

    @Test
    void aRoundShareCompletesWhenItsLastScoredBlockIsDone() {
        TrainerProgress progress = new TrainerProgress();
        TrainerRank rank = new TrainerRank(1, progress, List.of(), true);
        assertEquals(-1, rank.startCredit().processedSeq, "announces the restored step");
        assertFalse(rank.roundBegins(4, 2));
        assertFalse(
                rank.evaluated(
                        batch(1, 4, MiniBatch.Kind.EVAL_VAL, 2),
                        new EvalResult(1.5, 3, 4, null),
                        true));
        assertFalse(rank.evaluated(batch(2, 4, MiniBatch.Kind.EVAL_TEST, 2), null, false));
        assertTrue(
                rank.evaluated(
                        batch(3, 4, MiniBatch.Kind.EVAL_TEST, 2),
                        new EvalResult(0.5, 1, 2, null),
                        true));
        assertEquals(3, progress.valCorrect);
        assertEquals(4, progress.valTotal);
        assertEquals(1, progress.testCorrect);
        assertEquals(2, progress.testTotal);
        assertTrue(rank.roundBegins(8, 0), "no share: complete at once");
        assertEquals(0, progress.valTotal, "a new round starts from zero");
    }

    @Test
    void theServingRoundWaitsForTheFinalSelection() {
        TrainerProgress progress = new TrainerProgress();
        progress.nextSeq = 7;
        progress.appliedStep = 12;
        TrainerRank rank = new TrainerRank(0, progress, List.of(), false);
        MiniBatch round = batch(7, 12, MiniBatch.Kind.INFER, 0);
        round.layer = 1;
        assertFalse(rank.serving(round), "a round of the applied step");
        MiniBatch serving = batch(7, 13, MiniBatch.Kind.INFER, 0);
        serving.layer = 1;
        assertTrue(rank.serving(serving), "a round no applied step starts");
        assertFalse(rank.serving(batch(7, 13, MiniBatch.Kind.TRAIN, 0)), "a training step");
        assertEquals(1, rank.roundRanks(13, 3), "the serving round runs on rank 0 alone");
        assertEquals(3, rank.roundRanks(12, 3));

        progress.selecting = true;
        rank.buffer(serving);
        assertNull(rank.takeNext(), "held while the final selection exchange runs");
        progress.selecting = false;
        progress.finished = true;
        assertSame(serving, rank.takeNext());
    }
}

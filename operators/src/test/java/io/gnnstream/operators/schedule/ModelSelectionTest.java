package io.gnnstream.operators.schedule;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.operators.TrainerProgress;
import io.gnnstream.operators.internal.PendingStep;
import io.gnnstream.operators.messages.GradientChunk;
import io.gnnstream.operators.messages.ReducedChunk;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The selection rule (best validation accuracy, ties to the first of the tied rounds, exact on the
 * counts), what a rank sends with a step's gradient, and the counts' way through a reducer, its
 * snapshot and a rank's exchange.
 */
class ModelSelectionTest {

    @Test
    void keepsTheBestRoundTiesToTheEarlierOne() {
        TrainerProgress p = new TrainerProgress();
        ModelSelection s = new ModelSelection(ModelSelection.Mode.BEST_VAL, p, null);
        assertNull(s.best());
        assertEquals(-1, s.selectedStep());
        assertFalse(s.offer(10, 0, 0, () -> new float[] {9}), "no validation vertices");
        assertTrue(s.offer(10, 50, 100, () -> new float[] {1}));
        assertTrue(s.offer(20, 61, 120, () -> new float[] {2}), "0.5083 beats 0.5");
        assertFalse(
                s.offer(30, 61, 120, () -> new float[] {3}),
                "a tie keeps the first of the tied rounds");
        assertFalse(s.offer(40, 30, 60, () -> new float[] {4}), "0.5 is below 0.5083");
        assertFalse(s.offer(20, 120, 120, () -> new float[] {5}), "a round is decided once");
        assertArrayEquals(new float[] {2}, s.best());
        assertEquals(20, s.selectedStep());
        assertEquals(61, p.bestValCorrect);
        assertEquals(120, p.bestValTotal);
        assertEquals(20, p.bestValStep);

        ModelSelection restored = new ModelSelection(ModelSelection.Mode.BEST_VAL, p, s.best());
        assertFalse(restored.offer(30, 61, 120, () -> new float[] {3}));
        assertTrue(restored.offer(50, 62, 120, () -> new float[] {6}));
        assertArrayEquals(new float[] {6}, restored.best());
    }

    @Test
    void lastKeepsNoParametersButTracksTheRound() {
        TrainerProgress p = new TrainerProgress();
        ModelSelection s = new ModelSelection(ModelSelection.Mode.LAST, p, new float[] {1});
        assertTrue(s.offer(10, 5, 10, () -> new float[] {7}));
        assertNull(s.best());
        assertEquals(-1, s.selectedStep());
        assertEquals(10, p.bestValStep);
        assertEquals(ModelSelection.Mode.BEST_VAL, ModelSelection.Mode.parse("best-val"));
        assertEquals("best-val", ModelSelection.Mode.BEST_VAL.toString());
    }

    @Test
    void aStepCarriesTheCountsOfTheRoundJustBeforeIt() {
        TrainerProgress p = new TrainerProgress();
        ModelSelection s = new ModelSelection(ModelSelection.Mode.BEST_VAL, p, null);
        assertArrayEquals(new long[] {0, 0}, s.contribution(1), "no round yet");
        p.resetRound(10);
        p.valCorrect = 7;
        p.valTotal = 9;
        assertArrayEquals(new long[] {7, 9}, s.contribution(11));
        assertArrayEquals(new long[] {0, 0}, s.contribution(12), "the round was before step 11");
    }

    @Test
    void countsAreSummedOnChunkZeroAndSurviveTheReducersSnapshot() {
        int params = 3 * GradientExchange.MAX_CHUNK_FLOATS;
        GradientSums reducer = new GradientSums(2, 2, 1, 0);
        List<ReducedChunk> sums = new ArrayList<>();
        GradientExchange[] ranks = {
            new GradientExchange(0, params, 1), new GradientExchange(1, params, 1)
        };
        List<GradientChunk> sent1 = null;
        for (int r = 0; r < 2; r++) {
            PendingStep step = new PendingStep();
            step.step = 11;
            step.seeds = 2;
            step.grad = new float[params];
            step.valCorrect = 3 + r;
            step.valTotal = 5;
            List<GradientChunk> chunks = ranks[r].begin(step);
            for (GradientChunk c : chunks) {
                assertEquals(c.chunk == 0 ? 3 + r : 0, c.valCorrect);
            }
            if (r == 0) {
                chunks.forEach(reducer::accept);
            } else {
                sent1 = chunks;
            }
        }
        // The reducer restored from its snapshot holds rank 0's counts.
        GradientSums restored = new GradientSums(2, 2, 1, 0);
        restored.restore(reducer.sums(), reducer.contributions());
        for (GradientChunk c : sent1) {
            sums.addAll(restored.accept(c));
        }
        assertEquals(3, sums.size());
        assertEquals(7, sums.get(0).valCorrect);
        assertEquals(10, sums.get(0).valTotal);
        GradientSums again = new GradientSums(2, 2, 1, 0);
        again.restore(restored.sums(), restored.contributions());
        List<ReducedChunk> resent = again.accept(sent1.get(0));
        assertEquals(7, resent.get(0).valCorrect, "a completed sum keeps its counts");
        for (GradientExchange ex : ranks) {
            float[] mean = null;
            for (ReducedChunk c : sums) {
                mean = ex.accept(c);
            }
            assertTrue(mean != null);
            assertArrayEquals(new long[] {7, 10}, ex.roundValidation());
        }
    }
}

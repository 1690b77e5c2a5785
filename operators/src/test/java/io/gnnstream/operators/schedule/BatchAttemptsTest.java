package io.gnnstream.operators.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.operators.messages.BatchSpec;
import org.junit.jupiter.api.Test;

class BatchAttemptsTest {

    private static BatchSpec spec(int generation) {
        BatchSpec s = new BatchSpec();
        s.batchId = 7;
        s.generation = generation;
        return s;
    }

    @Test
    void aSpecStartsOnceAndRestartsOnlyForANewerGeneration() {
        assertEquals(BatchAttempts.OnSpec.START, BatchAttempts.onSpec(spec(0), false, null));
        assertEquals(BatchAttempts.OnSpec.IGNORE, BatchAttempts.onSpec(spec(3), true, spec(0)));
        assertEquals(BatchAttempts.OnSpec.IGNORE, BatchAttempts.onSpec(spec(1), false, spec(1)));
        assertEquals(BatchAttempts.OnSpec.RESTART, BatchAttempts.onSpec(spec(2), false, spec(1)));
    }

    @Test
    void aTimerRestartsALostBatchAndResendsAnIdleOne() {
        assertEquals(BatchAttempts.OnTimer.NONE, BatchAttempts.onTimer(null, false, 0, 100));
        assertEquals(BatchAttempts.OnTimer.RESTART, BatchAttempts.onTimer(spec(0), false, 0, 100));
        assertEquals(BatchAttempts.OnTimer.NONE, BatchAttempts.onTimer(spec(0), true, 99, 100));
        assertEquals(BatchAttempts.OnTimer.RESEND, BatchAttempts.onTimer(spec(0), true, 100, 100));
    }

    @Test
    void attemptsOfANewerGenerationLieAboveEveryEarlierOne() {
        int a0 = BatchAttempts.first(spec(0));
        int a1 = BatchAttempts.next(a0, spec(0));
        int b = BatchAttempts.next(a1 + 500, spec(1));
        assertEquals(0, a0);
        assertEquals(1, a1);
        assertTrue(b > a1 + 500 && b > BatchAttempts.first(spec(1)), "attempt " + b);
        assertEquals(BatchAttempts.first(spec(2)) + 1, BatchAttempts.next(b, spec(2)));
    }

    @Test
    void aTrainerJoinsTheLatestAttemptAndDropsEarlierOnes() {
        assertEquals(BatchAttempts.OnPart.BEGIN, BatchAttempts.onPart(null, 3));
        assertEquals(BatchAttempts.OnPart.BEGIN, BatchAttempts.onPart(2, 3));
        assertEquals(BatchAttempts.OnPart.JOIN, BatchAttempts.onPart(3, 3));
        assertEquals(BatchAttempts.OnPart.DROP, BatchAttempts.onPart(4, 3));
    }
}

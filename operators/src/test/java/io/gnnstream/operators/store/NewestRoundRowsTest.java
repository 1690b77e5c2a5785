package io.gnnstream.operators.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.operators.messages.LayerOutputs;
import org.junit.jupiter.api.Test;

/**
 * Rows of an older round after a newer round's: a duplicate within one job incarnation, or read
 * again from an earlier one; but the round a restore at another trainer count runs again, in the
 * new incarnation, is taken.
 */
class NewestRoundRowsTest {

    private static final long A = 11;
    private static final long B = 22;

    @Test
    void anOlderRoundsRowsAfterANewerRoundsAreADuplicateInOneIncarnation() {
        NewestRoundRows newest = new NewestRoundRows();
        newest.stored(rows(12, 1, A), A);
        assertFalse(newest.superseded(rows(12, 1, A), A), "the same round's block again");
        newest.stored(rows(13, 1, A), A);
        assertTrue(newest.superseded(rows(12, 1, A), A));
        assertFalse(newest.superseded(rows(12, 2, A), A), "another layer");
        assertFalse(newest.superseded(rows(14, 1, A), A));
        LayerOutputs pin = LayerOutputs.pins(12, 0, 1, null, new int[] {0}).get(0);
        pin.incarnation = A;
        assertFalse(newest.superseded(pin, A), "pins are no rows");
    }

    @Test
    void afterARestoreTheNewIncarnationsRoundAgainIsTakenAndTheOldOnesDuplicatesAreNot() {
        NewestRoundRows before = new NewestRoundRows();
        before.stored(rows(12, 1, A), A);
        before.stored(rows(13, 1, A), A);
        long[] anchor = before.changed();
        assertArrayEquals(new long[] {-1, 13}, anchor);
        assertNull(before.changed(), "unchanged since");

        NewestRoundRows restored = new NewestRoundRows();
        restored.restore(anchor);
        assertTrue(restored.superseded(rows(12, 1, A), B), "the failed run's, read again");
        assertFalse(restored.superseded(rows(12, 1, B), B), "the round run again after it");
        restored.stored(rows(12, 1, B), B);
        restored.stored(rows(13, 1, B), B);
        assertTrue(restored.superseded(rows(12, 1, B), B), "then a duplicate of it");
    }

    private static LayerOutputs rows(long step, int layer, long incarnation) {
        LayerOutputs o = new LayerOutputs();
        o.step = step;
        o.layer = layer;
        o.vertices = new long[] {1};
        o.dim = 1;
        o.values = new float[1];
        o.parts = 1;
        o.incarnation = incarnation;
        return o;
    }
}

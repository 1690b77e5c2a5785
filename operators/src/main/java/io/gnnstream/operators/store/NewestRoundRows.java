package io.gnnstream.operators.store;

import io.gnnstream.operators.messages.LayerOutputs;
import java.util.Arrays;

/**
 * Per hidden layer, the newest round whose rows a GraphStore subtask stored: over the job's history
 * (kept under each owned partition's anchor, as the latest round answered is), and of records of
 * this job incarnation. Rounds run one after another, and a round writes a layer only once the
 * round before has written all its hidden layers, so within one incarnation rows of an older round
 * that come after a newer round's are a duplicate: a block issued again while the acknowledgement
 * of its write was on its way, or outputs a rank held for buffers, computed or sent after the next
 * round wrote the same vertices; stored, they would replace the newer rows. So are rows of an
 * earlier incarnation older than the newest stored (read again after a restore; {@link Lineage}
 * drops those sent after the cut). Rows of this incarnation older than the newest stored by an
 * earlier one are not: a restore at another trainer count runs the restored step's round again,
 * after a newer round (the serving round) had begun. Not thread-safe.
 */
final class NewestRoundRows {

    /** Per layer (index 0 unused), grown as rows of a higher layer come; -1: none. */
    private long[] overall = new long[0];

    private long[] current = new long[0];
    private boolean changed;

    /**
     * Whether {@code outputs} are rows of an older round than one whose rows of that layer were
     * stored: by a record of this incarnation ({@code incarnation}), or, for a record of another,
     * by any.
     */
    boolean superseded(LayerOutputs outputs, long incarnation) {
        if (!rows(outputs)) {
            return false;
        }
        long[] newest = outputs.incarnation == incarnation ? current : overall;
        return outputs.layer < newest.length && outputs.step < newest[outputs.layer];
    }

    /** {@code outputs} were stored; {@code incarnation}: this job incarnation. */
    void stored(LayerOutputs outputs, long incarnation) {
        if (!rows(outputs)) {
            return;
        }
        overall = grown(overall, outputs.layer + 1);
        if (outputs.step > overall[outputs.layer]) {
            overall[outputs.layer] = outputs.step;
            changed = true;
        }
        if (outputs.incarnation == incarnation) {
            current = grown(current, outputs.layer + 1);
            current[outputs.layer] = Math.max(current[outputs.layer], outputs.step);
        }
    }

    private static boolean rows(LayerOutputs outputs) {
        return !outputs.isPin() && outputs.layer >= 1;
    }

    private static long[] grown(long[] steps, int length) {
        if (steps.length >= length) {
            return steps;
        }
        long[] more = Arrays.copyOf(steps, length);
        Arrays.fill(more, steps.length, length, -1);
        return more;
    }

    /** Takes the steps of an anchor's value ({@link #changed}), null for none. */
    void restore(long[] stored) {
        if (stored == null) {
            return;
        }
        overall = grown(overall, stored.length);
        for (int j = 0; j < stored.length; j++) {
            overall[j] = Math.max(overall[j], stored[j]);
        }
    }

    /** The value to write under the anchors when a step changed since the last call, else null. */
    long[] changed() {
        if (!changed) {
            return null;
        }
        changed = false;
        return overall.clone();
    }
}

package io.gnnstream.operators.store;

import io.gnnstream.operators.model.GnnModel;

/**
 * The pinned round of {@link IncrementalPredictions}: its step, the model of its pins, and the
 * generation of its rows (how often a round wrote them again), which together tag the sums of its
 * rows.
 */
final class PinnedRound {

    /** The step of the pinned round; -1 before the first. */
    long step = -1;

    /** Counts rewrites of the pinned round's rows by a round. */
    long generation;

    /** The pinned model's parameters, and the model; null before the first pin. */
    float[] params;

    GnnModel model;

    /**
     * The tag a layer's sums are valid under: the pinned round's step and the generation of its
     * rows for rows of a round, none for the features (layer 0), which do not depend on the model.
     */
    long tag(int m) {
        return m == 0 ? 0 : tagOf(step, generation);
    }

    /**
     * The tag of the sums of a round's rows: its step and the generation of its rows (a new pin of
     * a newer round starts at 0).
     */
    static long tagOf(long step, long generation) {
        return (step << 20) + (generation & 0xFFFFF);
    }
}

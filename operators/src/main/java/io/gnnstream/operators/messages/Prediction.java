package io.gnnstream.operators.messages;

/**
 * The model's output for one vertex after an evaluation round: the arg-max class, the class
 * probabilities and, when asked for, the last hidden layer (the classifier layer's input); or the
 * {@link #tombstone} of a deleted vertex. A Flink POJO of primitives and primitive arrays.
 */
public class Prediction {

    public long vertex;

    /** The training step whose model produced it. */
    public long step;

    public int label;
    public float[] probs;

    /** The last hidden layer, or null. */
    public float[] embedding;

    /**
     * For an incremental prediction, the time (ms) of the earliest change that caused it (its
     * freshness is measured from there); 0 for a round's.
     */
    public long changedAt;

    public Prediction() {}

    /**
     * The tombstone of a deleted vertex: no probabilities (a null value in the predictions topic).
     */
    public static Prediction tombstone(long vertex) {
        return new Prediction(vertex, -1, -1, null, null);
    }

    /** Whether this is a {@link #tombstone}. */
    public boolean isTombstone() {
        return probs == null;
    }

    /** The vertex of a {@link #roundEnd} marker; vertex ids are never negative. */
    public static final long ROUND_END = -1;

    /**
     * The marker a trainer rank sends after its share of the round of {@code step}'s predictions:
     * the rank and how many ranks the round has ({@link #roundEndRank}, {@link #roundEndRanks}).
     * Never written to the topic.
     */
    public static Prediction roundEnd(long step, int rank, int ranks) {
        Prediction p = new Prediction(ROUND_END, step, rank, new float[0], null);
        p.changedAt = ranks;
        return p;
    }

    /** Whether this is a {@link #roundEnd} marker. */
    public boolean isRoundEnd() {
        return vertex == ROUND_END;
    }

    /** The rank of a {@link #roundEnd} marker. */
    public int roundEndRank() {
        return label;
    }

    /** The round's number of ranks, of a {@link #roundEnd} marker. */
    public int roundEndRanks() {
        return (int) changedAt;
    }

    public Prediction(long vertex, long step, int label, float[] probs, float[] embedding) {
        this.vertex = vertex;
        this.step = step;
        this.label = label;
        this.probs = probs;
        this.embedding = embedding;
    }
}

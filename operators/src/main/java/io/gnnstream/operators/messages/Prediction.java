package io.gnnstream.operators.messages;

/**
 * The model's output for one vertex after an evaluation round: the arg-max class, the class
 * probabilities and, when asked for, the last hidden layer (the classifier layer's input); or the
 * {@link #deletion} of a vertex, its tombstone. A Flink POJO of primitives and primitive arrays.
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
     * The deletion of {@code vertex}, its tombstone: no probabilities (a null value in the
     * predictions topic), with the step of the latest round its owner had answered when it deleted
     * it.
     */
    public static Prediction deletion(long vertex, long latestRoundStep) {
        return new Prediction(vertex, latestRoundStep, -1, null, null);
    }

    /** Whether this is a {@link #deletion}. */
    public boolean isTombstone() {
        return probs == null;
    }

    public Prediction(long vertex, long step, int label, float[] probs, float[] embedding) {
        this.vertex = vertex;
        this.step = step;
        this.label = label;
        this.probs = probs;
        this.embedding = embedding;
    }
}

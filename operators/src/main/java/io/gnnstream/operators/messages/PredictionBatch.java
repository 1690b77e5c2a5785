package io.gnnstream.operators.messages;

/**
 * The predictions of one inference block, as the trainer emits them: one record per block rather
 * than per vertex, because the trainer's outputs flush after every record (see docs/design.md,
 * "Buffer timeouts"). {@link #split()} gives the per-vertex {@link Prediction}s. A Flink POJO of
 * primitives and primitive arrays.
 *
 * <p>The GraphStore also sends a vertex's deletion as a batch ({@link #deletion}: no probabilities,
 * the step of the latest round its owner had answered), on the channel of its incremental
 * predictions, so that the two reach the predictions stage in the order they happened.
 */
public class PredictionBatch {

    /** The training step whose model produced it. */
    public long step;

    public long[] vertices;
    public int[] labels;

    /** Row-major, {@code vertices.length x classes}. */
    public float[] probs;

    public int classes;

    /** Row-major, {@code vertices.length x embeddingDim}, or null. */
    public float[] embeddings;

    public int embeddingDim;

    /**
     * Per vertex, the time (ms) of the earliest change that caused an incremental prediction; null
     * for a round's predictions.
     */
    public long[] changedAt;

    public PredictionBatch() {}

    /**
     * The deletion of {@code vertex}, whose owner had answered requests of the round of {@code
     * latestRoundStep} (-1: none) when it deleted it.
     */
    public static PredictionBatch deletion(long vertex, long latestRoundStep) {
        PredictionBatch b = new PredictionBatch();
        b.step = latestRoundStep;
        b.vertices = new long[] {vertex};
        return b;
    }

    /** Whether this is a {@link #deletion}. */
    public boolean isDeletion() {
        return probs == null;
    }

    public int size() {
        return vertices.length;
    }

    /** The per-vertex predictions; of a {@link #deletion}, its {@link Prediction#deletion}. */
    public Prediction[] split() {
        Prediction[] out = new Prediction[vertices.length];
        if (isDeletion()) {
            for (int i = 0; i < out.length; i++) {
                out[i] = Prediction.deletion(vertices[i], step);
            }
            return out;
        }
        for (int i = 0; i < out.length; i++) {
            float[] p = java.util.Arrays.copyOfRange(probs, i * classes, (i + 1) * classes);
            float[] e =
                    embeddings == null
                            ? null
                            : java.util.Arrays.copyOfRange(
                                    embeddings, i * embeddingDim, (i + 1) * embeddingDim);
            out[i] = new Prediction(vertices[i], step, labels[i], p, e);
            out[i].changedAt = changedAt == null ? 0 : changedAt[i];
        }
        return out;
    }
}

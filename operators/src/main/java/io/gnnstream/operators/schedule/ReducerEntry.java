package io.gnnstream.operators.schedule;

/**
 * What a reducer ({@link GradientSums}) holds for one (step, chunk): a held contribution of {@code
 * rank >= 0}, or the completed sum ({@code rank == -1}, {@code seeds} and {@code values} summed);
 * the unit of its snapshots.
 */
public record ReducerEntry(
        long step,
        int chunk,
        int numChunks,
        int rank,
        int seeds,
        float[] values,
        long valCorrect,
        long valTotal) {

    /** The rank of a completed sum. */
    public static final int SUM = -1;

    /** An entry without validation counts. */
    public ReducerEntry(long step, int chunk, int numChunks, int rank, int seeds, float[] values) {
        this(step, chunk, numChunks, rank, seeds, values, 0, 0);
    }
}

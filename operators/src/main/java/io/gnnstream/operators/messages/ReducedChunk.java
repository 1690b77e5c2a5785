package io.gnnstream.operators.messages;

/**
 * The sum over all trainer ranks, in rank order, of one gradient chunk of one training step, and
 * the sum of their seed counts. Travels to every trainer on the all-reduce loop's feedback edge; it
 * may arrive more than once (a reducer re-sends a completed sum when a contribution comes again),
 * and trainers apply a step's update once.
 */
public class ReducedChunk {

    /** The all-reduce round of the contributions ({@link GradientChunk#step}). */
    public long step;

    public int chunk;
    public int numChunks;

    /** Labelled seeds of all ranks' batches of this step. */
    public int seeds;

    public float[] values;

    /** The contributions' validation counts summed ({@link GradientChunk#valCorrect}). */
    public long valCorrect;

    public long valTotal;

    public ReducedChunk() {}

    public ReducedChunk(long step, int chunk, int numChunks, int seeds, float[] values) {
        this.step = step;
        this.chunk = chunk;
        this.numChunks = numChunks;
        this.seeds = seeds;
        this.values = values;
    }

    @Override
    public String toString() {
        return "ReducedChunk(step="
                + step
                + ", chunk="
                + chunk
                + "/"
                + numChunks
                + ", seeds="
                + seeds
                + ")";
    }
}

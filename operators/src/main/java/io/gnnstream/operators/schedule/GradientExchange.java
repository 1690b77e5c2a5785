package io.gnnstream.operators.schedule;

import io.gnnstream.operators.internal.PendingStep;
import io.gnnstream.operators.messages.GradientChunk;
import io.gnnstream.operators.messages.ReducedChunk;
import java.util.ArrayList;
import java.util.List;

/**
 * A trainer rank's side of the all-reduce: cuts the gradient of a step into chunks for the
 * reducers, keeps it until the step's update is applied (so that it can be sent again after a
 * restore), and gathers the reduced chunks of that step into the mean gradient of all ranks.
 *
 * <p>Chunks split the parameter vector into {@code numChunks} ranges of equal size (the last one
 * shorter): at least one per reducer, and none above {@link #MAX_CHUNK_FLOATS} floats, so that no
 * record of the loop grows large. Chunk {@code c} goes to reducer {@code c mod R}, and a rank sends
 * them grouped by reducer (reducer 0's, then reducer 1's, ...): together with reducers that send a
 * step's sums only once their whole share is summed, this keeps the all-reduce loop free of
 * deadlock for any gradient size (see {@code GradientReducer}). The sum a reducer sends back covers
 * all ranks; this rank divides it by the total seed count, the same float operations on every rank,
 * so replicas stay identical.
 *
 * <p>Chunks and sums name their all-reduce round, {@link RankLayout#round}: the step, and in
 * layouts after a restore at another trainer count the layout above it, so that no reducer mixes a
 * contribution of an earlier layout (held in its state or replayed from a checkpoint) into a sum of
 * the current one.
 */
public final class GradientExchange {

    /** Largest chunk: 256 KiB of floats per record. */
    public static final int MAX_CHUNK_FLOATS = 1 << 16;

    private final int rank;
    private final int numChunks;
    private final int chunkFloats;
    private final int params;
    private final int layout;
    private final int reducers;

    private PendingStep pending;
    private float[] sum;
    private boolean[] received;
    private int receivedCount;
    private int totalSeeds;
    private long valCorrect;
    private long valTotal;

    public GradientExchange(int rank, int params, int reducers) {
        this(rank, params, reducers, 0);
    }

    /** The exchange of a rank of {@code layout} ({@link RankLayout}). */
    public GradientExchange(int rank, int params, int reducers, int layout) {
        this.rank = rank;
        this.layout = layout;
        this.params = params;
        this.reducers = Math.max(1, reducers);
        this.numChunks =
                Math.max(Math.max(1, reducers), (params + MAX_CHUNK_FLOATS - 1) / MAX_CHUNK_FLOATS);
        this.chunkFloats = (params + numChunks - 1) / numChunks;
    }

    public int numChunks() {
        return numChunks;
    }

    /** Whether a step waits for reduced chunks that have not all arrived. */
    public boolean waiting() {
        return pending != null && receivedCount < numChunks;
    }

    /** Reduced chunks of the pending step received so far. */
    public int receivedChunks() {
        return receivedCount;
    }

    /** The step waiting for its reduced gradient, or null. */
    public PendingStep pending() {
        return pending;
    }

    /** Starts the exchange of {@code step}'s gradient; returns the chunks to send. */
    public List<GradientChunk> begin(PendingStep step) {
        if (pending != null) {
            throw new IllegalStateException(
                    "step " + pending.step + " is still waiting for its reduced gradient");
        }
        if (step.grad.length != params) {
            throw new IllegalArgumentException(
                    "gradient of " + step.grad.length + " entries, model has " + params);
        }
        pending = step;
        sum = new float[params];
        received = new boolean[numChunks];
        receivedCount = 0;
        totalSeeds = 0;
        valCorrect = 0;
        valTotal = 0;
        return chunks();
    }

    /**
     * The chunks of the pending step (sent again after a restore), grouped by reducer in reducer
     * order; empty when nothing is pending.
     */
    public List<GradientChunk> chunks() {
        List<GradientChunk> out = new ArrayList<>(numChunks);
        if (pending == null) {
            return out;
        }
        for (int reducer = 0; reducer < reducers; reducer++) {
            for (int c = reducer; c < numChunks; c += reducers) {
                out.add(chunk(c));
            }
        }
        return out;
    }

    private GradientChunk chunk(int c) {
        int from = Math.min(params, c * chunkFloats);
        int to = Math.min(params, from + chunkFloats);
        float[] values = new float[to - from];
        System.arraycopy(pending.grad, from, values, 0, values.length);
        GradientChunk chunk =
                new GradientChunk(
                        RankLayout.round(layout, pending.step),
                        rank,
                        c,
                        numChunks,
                        pending.seeds,
                        values);
        if (c == 0) {
            chunk.valCorrect = pending.valCorrect;
            chunk.valTotal = pending.valTotal;
        }
        return chunk;
    }

    /**
     * Takes a reduced chunk; returns the mean gradient of all ranks once every chunk of the pending
     * step is in, else null. Chunks of other rounds (late duplicates of applied steps, sums of an
     * earlier layout) are ignored.
     */
    public float[] accept(ReducedChunk chunk) {
        if (pending == null
                || chunk.step != RankLayout.round(layout, pending.step)
                || received[chunk.chunk]) {
            return null;
        }
        if (chunk.numChunks != numChunks) {
            throw new IllegalStateException(
                    "reduced chunk of a "
                            + chunk.numChunks
                            + "-chunk gradient, this rank cuts "
                            + numChunks);
        }
        int from = chunk.chunk * chunkFloats;
        System.arraycopy(chunk.values, 0, sum, from, chunk.values.length);
        received[chunk.chunk] = true;
        totalSeeds = chunk.seeds;
        if (chunk.chunk == 0) {
            valCorrect = chunk.valCorrect;
            valTotal = chunk.valTotal;
        }
        if (++receivedCount < numChunks) {
            return null;
        }
        float[] mean = sum;
        if (totalSeeds > 0) {
            float n = totalSeeds;
            for (int i = 0; i < mean.length; i++) {
                mean[i] /= n;
            }
        }
        return mean;
    }

    /**
     * All ranks' validation counts of the round before the pending step, {@code {correct, total}},
     * once chunk 0's sum has arrived (total 0: no round, or counts of an earlier build).
     */
    public long[] roundValidation() {
        return new long[] {valCorrect, valTotal};
    }

    /** The pending step's update was applied. */
    public void complete() {
        pending = null;
        sum = null;
        received = null;
    }

    /** Restores a step that was waiting for its reduced gradient at a checkpoint. */
    public void restore(PendingStep step) {
        pending = null;
        begin(step);
    }
}

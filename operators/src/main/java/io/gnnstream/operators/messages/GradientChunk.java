package io.gnnstream.operators.messages;

/**
 * One trainer rank's contribution to one chunk of the gradient of one training step: the gradient
 * of the rank's summed loss (its mean-loss gradient times {@link #seeds}) over the parameter range
 * of chunk {@link #chunk}. Chunks are routed to the reducer subtask {@code chunk % reducers}; a
 * contribution may be sent again (after a restore), so reducers treat (step, chunk, rank) as its
 * identity.
 *
 * <p>A Flink POJO (no Kryo). {@link #device} came after the first builds: records of those read
 * with a null device, which reducers never compare.
 */
public class GradientChunk {

    /**
     * The all-reduce round: the training step this gradient is for (the step the update will
     * complete), with the ranks' layout above bit 40 after a restore at another trainer count
     * ({@code RankLayout#round}).
     */
    public long step;

    public int rank;
    public int chunk;
    public int numChunks;

    /** Labelled seeds of the rank's batch: the weight of this contribution in the global mean. */
    public int seeds;

    public float[] values;

    /**
     * The rank's validation counts of the evaluation round completed just before this step (its
     * share of the round's last pass; 0 without such a round), on chunk 0 only: summed by the
     * reducer, they give every rank the round's validation accuracy (docs/design.md, "Model
     * selection"). 0 in records of earlier builds.
     */
    public long valCorrect;

    public long valTotal;

    /**
     * What the rank's model runs on ({@code GnnModel#deviceKind()}: {@code cpu}, or the CUDA
     * device's kind), or null where unknown. Reducers refuse contributions of different kinds to
     * one sum: replicas of different kinds round differently and cannot stay bit-identical.
     */
    public String device;

    public GradientChunk() {}

    public GradientChunk(long step, int rank, int chunk, int numChunks, int seeds, float[] values) {
        this.step = step;
        this.rank = rank;
        this.chunk = chunk;
        this.numChunks = numChunks;
        this.seeds = seeds;
        this.values = values;
    }

    /**
     * A heartbeat of {@code rank}: no gradient (step -1); reducers echo it as a {@link
     * ReducedChunk} of step -1, which ranks ignore. It keeps records moving on the all-reduce
     * loop's feedback edge.
     */
    public static GradientChunk heartbeat(int rank) {
        return new GradientChunk(-1, rank, rank, 0, 0, new float[0]);
    }

    /** A {@link #heartbeat(int)} of a rank whose model runs on {@code device}. */
    public static GradientChunk heartbeat(int rank, String device) {
        GradientChunk beat = heartbeat(rank);
        beat.device = device;
        return beat;
    }

    public boolean isHeartbeat() {
        return step < 0;
    }

    @Override
    public String toString() {
        return "GradientChunk(step="
                + step
                + ", rank="
                + rank
                + ", chunk="
                + chunk
                + "/"
                + numChunks
                + ", seeds="
                + seeds
                + (valTotal == 0 ? "" : ", val=" + valCorrect + "/" + valTotal)
                + (device == null ? "" : ", device=" + device)
                + ")";
    }
}

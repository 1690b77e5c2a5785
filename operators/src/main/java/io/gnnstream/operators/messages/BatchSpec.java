package io.gnnstream.operators.messages;

/** The SeedScheduler's order to build one mini-batch from the given seeds. */
public class BatchSpec {

    public long batchId;
    public long seq;
    public int trainer;

    /** What the batch is for; {@link MiniBatch.Kind#TRAIN} unless set otherwise. */
    public MiniBatch.Kind kind = MiniBatch.Kind.TRAIN;

    public long step;
    public int roundIndex;
    public int roundSize;

    /**
     * On a training step's spec that starts an evaluation round: how many blocks of the round's
     * last (scored) pass go to this spec's rank.
     */
    public int roundShare;

    public boolean finalRound;

    /**
     * {@code 0} for a sampled batch; else the model layer of a layer-wise inference block ({@link
     * MiniBatch#layer}).
     */
    public int layer;

    public long[] seeds;
    public long graphVertices;
    public long graphEdgesIngested;

    /**
     * Halo replicas and ingested edges between partitions, as the scheduler knew them (for progress
     * reports).
     */
    public long graphReplicas;

    public long graphCutEdgesIngested;

    /**
     * How many restores the scheduler had seen when it issued this spec: a batch issued again after
     * a restore is sampled as a new attempt, numbered above all attempts of earlier generations.
     */
    public int generation;

    public BatchSpec() {}

    @Override
    public String toString() {
        return "BatchSpec(id="
                + batchId
                + ", seq="
                + seq
                + ", kind="
                + kind
                + ", step="
                + step
                + ", seeds="
                + (seeds == null ? 0 : seeds.length)
                + ")";
    }

    /** The batch this record belongs to. */
    public BatchAddress address() {
        return new BatchAddress(trainer, seq, batchId);
    }
}

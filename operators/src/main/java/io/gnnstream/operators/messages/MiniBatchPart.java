package io.gnnstream.operators.messages;

/**
 * One record of a {@link MiniBatch} on its way from the assembler to a trainer: part 0 carries the
 * batch without features ({@link #head}), and every part carries the feature rows
 * {@code [firstRow, firstRow + features.length / featureDim)}.
 *
 * <p>Why parts: Flink's network stack spills every record larger than 5 MiB to a temporary file on
 * the receiving side (a fixed threshold of its spanning-record deserializer), and a mini-batch of
 * 1,024 seeds carries tens of megabytes of features. Parts of at most
 * {@link #MAX_RECORD_BYTES} stay in memory.
 */
public class MiniBatchPart {

    /** Largest record the sampling loop sends, below Flink's 5 MiB spilling threshold. */
    public static final int MAX_RECORD_BYTES = 4 << 20;

    public long batchId;
    /** The batch's position in the trainer's input sequence (see {@link MiniBatch#seq}). */
    public long seq;
    public int part;
    public int numParts;
    public int firstRow;
    /** Part 0: the batch with {@code features == null}; null in every other part. */
    public MiniBatch head;
    public float[] features;

    public MiniBatchPart() {}

    public MiniBatchPart(long batchId, long seq, int part, int numParts, int firstRow, MiniBatch head, float[] features) {
        this.batchId = batchId;
        this.seq = seq;
        this.part = part;
        this.numParts = numParts;
        this.firstRow = firstRow;
        this.head = head;
        this.features = features;
    }

    /** Feature rows per part so that a part's features fit in {@link #MAX_RECORD_BYTES} (at least one). */
    public static int rowsPerPart(int featureDim) {
        return Math.max(1, MAX_RECORD_BYTES / (Float.BYTES * Math.max(1, featureDim)));
    }
}

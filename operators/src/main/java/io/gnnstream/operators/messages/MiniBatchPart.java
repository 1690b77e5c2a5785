package io.gnnstream.operators.messages;

/**
 * One record of a {@link MiniBatch} on its way to its trainer, from two senders: the assembler
 * sends the <em>head</em> (part {@link #HEAD}: the batch without features and labels, and the
 * number of feature parts to expect), and the GraphStore subtasks send the <em>feature parts</em>
 * (part {@code 0..numParts-1}: the features and labels of the rows {@link #rows}) as they answer
 * the batch's requests. The trainer joins them in any order.
 *
 * <p>Why features bypass the assembler: every copy of the tens of megabytes of features a batch
 * carries costs as much as the sampling itself, and going through the assembler would mean two
 * network crossings and a gather. Why parts at all: Flink's network stack spills every record
 * larger than 5 MiB to a temporary file on the receiving side (a fixed threshold of its
 * spanning-record deserializer), so requests are cut to keep each feature part under {@link
 * #MAX_RECORD_BYTES}.
 *
 * <p>{@link #attempt} tells a restarted batch's parts (after a restore the assembler samples it
 * again, possibly differently) from those of an earlier attempt, which the trainer drops.
 *
 * <p>With the trainer's feature cache on ({@link #cacheEpoch} non-zero), a feature part carries
 * features only for the rows {@link #rows} whose vertices the trainer does not hold, each with the
 * cache slot to keep them in ({@link #fillSlots}), and names the cache slots of the others ({@link
 * #cachedRows}, {@link #cachedSlots}). The trainer copies the named rows from its cache into the
 * batch as the part arrives, and checkpoints the part with all its rows' features.
 */
public class MiniBatchPart {

    /** Largest record the sampling loop sends, below Flink's 5 MiB spilling threshold. */
    public static final int MAX_RECORD_BYTES = 4 << 20;

    /** {@link #cacheEpoch} of a part that names no cache slots. */
    public static final long NO_CACHE = 0;

    /** {@link #part} of the head. */
    public static final int HEAD = -1;

    /**
     * {@link #part} of the job's feature normalisation decided on its node topic, for rank 0's
     * model export: {@link #numParts} 1 = rows divided by their sums, 0 = kept (no batch).
     */
    public static final int FEATURE_NORMALIZATION = -2;

    public long batchId;

    /** The batch's position in the trainer's input sequence (see {@link MiniBatch#seq}). */
    public long seq;

    public int trainer;
    public int attempt;

    /** {@link #HEAD} or the feature part's number. */
    public int part;

    /**
     * Feature parts: the index of the GraphStore subtask that sent it; -1 if unknown (older
     * formats).
     */
    public int sender = -1;

    /** Head only: the number of feature parts of the batch. */
    public int numParts;

    /** Head only: the batch with {@code features == null} and {@code labels == null}. */
    public MiniBatch head;

    /**
     * Feature parts only: the batch rows they fill, with one label and one feature row each; the
     * rows as little-endian float32 bytes, as the GraphStore stores them, so that they are copied
     * and not decoded until the trainer places them.
     */
    public int[] rows;

    public int[] labels;
    public byte[] features;

    /**
     * Sender side only, in place of {@link #features}: the rows' vertex records ({@code
     * VertexRecord} layout, all of one feature dimension), whose features the serializer copies
     * straight into the outgoing record, so the GraphStore never gathers them into an array of its
     * own (an allocation and a copy of megabytes per part). Receivers get {@link #features}.
     */
    public byte[][] featureRecords;

    /**
     * Feature parts only: the incarnation of the GraphStore's cache directory that placed the slots
     * below, or {@link #NO_CACHE} for a part without slots.
     */
    public long cacheEpoch = NO_CACHE;

    /**
     * Per row of {@link #rows}: the trainer's cache slot to keep its features and label in, or -1.
     */
    public int[] fillSlots = new int[0];

    /** Rows whose features and label are in the trainer's cache, at {@link #cachedSlots}. */
    public int[] cachedRows = new int[0];

    public int[] cachedSlots = new int[0];

    /**
     * Feature parts addressed by vertex (halo replicas' neighbour parts): the vertex of each entry
     * of {@link #labels} and {@link #features}, whose rows the trainer learns from the head; {@link
     * #rows} is empty then. Null for parts addressed by row.
     */
    public long[] vertices;

    /**
     * Parts addressed by vertex: the vertices whose features the trainer's cache holds, at {@link
     * #cachedSlots}.
     */
    public long[] cachedVertices = new long[0];

    /**
     * Feature parts only: floats per row when the rows are not the vertices' features but their
     * outputs of a model layer (the source rows of an inference block of a later layer); {@code 0}
     * for features.
     */
    public int rowDim;

    /**
     * Feature parts addressed by row, for a GCN with {@code --gcn-norm sym} only: per entry of
     * {@link #rows} and then of {@link #cachedRows}, the vertex's in-degree under the eval fanout
     * plus one, counted by its owner when it sent the part ({@link MiniBatch#degrees}); null when
     * the part carries none.
     */
    public int[] degrees;

    /** Head only: the rows that parts addressed by vertex fill (sorted); the others come by row. */
    public int[] servedRows = new int[0];

    public MiniBatchPart() {}

    /** The {@link #FEATURE_NORMALIZATION} record for rank 0: rows {@code divided} or kept. */
    public static MiniBatchPart featureNormalization(boolean divided) {
        MiniBatchPart p = new MiniBatchPart();
        p.trainer = 0;
        p.part = FEATURE_NORMALIZATION;
        p.numParts = divided ? 1 : 0;
        return p;
    }

    /** The head of a batch whose features come in {@code numParts} feature parts. */
    public static MiniBatchPart head(MiniBatch batch, int attempt, int numParts) {
        MiniBatchPart p = new MiniBatchPart();
        p.batchId = batch.batchId;
        p.seq = batch.seq;
        p.trainer = batch.trainer;
        p.attempt = attempt;
        p.part = HEAD;
        p.numParts = numParts;
        p.head = batch;
        return p;
    }

    /**
     * Feature part {@code part} of a batch: labels and feature bytes (row-major) of {@code rows}.
     */
    public static MiniBatchPart features(
            long batchId,
            long seq,
            int trainer,
            int attempt,
            int part,
            int[] rows,
            int[] labels,
            byte[] features) {
        MiniBatchPart p = new MiniBatchPart();
        p.batchId = batchId;
        p.seq = seq;
        p.trainer = trainer;
        p.attempt = attempt;
        p.part = part;
        p.rows = rows;
        p.labels = labels;
        p.features = features;
        return p;
    }

    /**
     * Feature part {@code part} of a batch whose rows' features are those of the vertex records
     * {@code records} (see {@link #featureRecords}).
     */
    public static MiniBatchPart featuresOfRecords(
            long batchId,
            long seq,
            int trainer,
            int attempt,
            int part,
            int[] rows,
            int[] labels,
            byte[][] records) {
        MiniBatchPart p = features(batchId, seq, trainer, attempt, part, rows, labels, null);
        p.featureRecords = records;
        return p;
    }

    /**
     * Sets the cache slots of a feature part: where the trainer keeps each row's features, and the
     * rows it already holds.
     */
    public MiniBatchPart withCacheSlots(
            long epoch, int[] fillSlots, int[] cachedRows, int[] cachedSlots) {
        if (fillSlots.length != rows.length || cachedRows.length != cachedSlots.length) {
            throw new IllegalArgumentException(
                    fillSlots.length
                            + " fill slots for "
                            + rows.length
                            + " rows, "
                            + cachedSlots.length
                            + " cached slots for "
                            + cachedRows.length
                            + " cached rows");
        }
        this.cacheEpoch = epoch;
        this.fillSlots = fillSlots;
        this.cachedRows = cachedRows;
        this.cachedSlots = cachedSlots;
        return this;
    }

    /**
     * Feature part {@code part} of a batch addressed by vertex: the labels and the features of the
     * vertex records {@code records} of {@code vertices}.
     */
    public static MiniBatchPart featuresOfVertices(
            long batchId,
            long seq,
            int trainer,
            int attempt,
            int part,
            long[] vertices,
            int[] labels,
            byte[][] records) {
        MiniBatchPart p =
                featuresOfRecords(
                        batchId, seq, trainer, attempt, part, new int[0], labels, records);
        p.vertices = vertices;
        return p;
    }

    /** Entries with features in the part: its rows, or its vertices when addressed by vertex. */
    public int ownEntries() {
        return vertices != null ? vertices.length : rows.length;
    }

    /**
     * Entries found in the trainer's cache: its cached rows, or its cached vertices when addressed
     * by vertex.
     */
    public int cachedEntries() {
        return vertices != null ? cachedVertices.length : cachedRows.length;
    }

    /** Whether this feature part is addressed by vertex rather than by row. */
    public boolean byVertex() {
        return vertices != null;
    }

    public boolean isHead() {
        return part == HEAD;
    }

    /** The batch this record belongs to. */
    public BatchAddress address() {
        return new BatchAddress(trainer, seq, batchId);
    }
}

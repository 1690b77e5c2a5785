package io.gnnstream.operators.internal;

import com.carrotsearch.hppc.IntIntHashMap;
import com.carrotsearch.hppc.LongIntHashMap;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.schedule.BatchAttempts;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Joins the head and the feature parts of each batch back into a {@link MiniBatch}, in any arrival
 * order, ignoring repeated parts (a retried request is answered twice). Of the attempts of a batch
 * only the latest seen is kept: after a restore the batch is sampled again as a later attempt,
 * which comes whole, and whatever remains of the earlier one (restored, or replayed from the
 * checkpoint's in-flight data) is dropped.
 *
 * <p>Each part is placed into the batch's feature matrix as it arrives, cached rows copied from the
 * {@link TrainerFeatureCache}: one copy per row, which matters because copying rows is most of what
 * the trainer does when it is not computing. Parts need not wait for the head, which comes last
 * (the assembler knows the batch's shape only after the last hop): the matrix grows to the largest
 * row placed, and the head only checks that every row came once. Parts addressed by vertex wait for
 * the head, which names their rows; their cached entries stay references to cache slots, copied
 * once into the matrix when the head comes, unless a fill is about to overwrite a slot they name
 * ({@link #beforeFills}), which copies every waiting cached entry out of the cache first. A
 * checkpoint stores the parts as received ({@link #parts}), rebuilt from the matrix. Matrices of
 * batches trained on come back through {@link #recycle}, so a new batch reuses one instead of
 * having a fresh array of tens of megabytes zeroed.
 */
public final class PartialBatches {

    /** Largest array the JVM allocates. */
    private static final long MAX_FLOATS = Integer.MAX_VALUE - 8;

    /** Feature matrices kept for reuse. */
    private static final int POOLED = 4;

    private final Map<Long, Pending> bySeq = new HashMap<>();
    private final ArrayDeque<float[]> pool = new ArrayDeque<>();

    /** Floats of the latest batches' matrices; their largest is the capacity of new matrices. */
    private final int[] recentLengths = new int[16];

    private int heads;
    private int typicalLength;

    /** Cache slots that waiting parts addressed by vertex name, with how many entries name each. */
    private final IntIntHashMap pinned = new IntIntHashMap();

    /**
     * Takes a part whose cache references {@code cache} holds ({@link
     * TrainerFeatureCache#holdsAll}); returns its batch when this was the last part missing,
     * otherwise null. The caller stores the part's cache fills afterwards.
     */
    public MiniBatch accept(MiniBatchPart part, TrainerFeatureCache cache) {
        check(part);
        Pending pending = bySeq.get(part.seq);
        BatchAttempts.OnPart action =
                BatchAttempts.onPart(pending == null ? null : pending.attempt, part.attempt);
        if (action == BatchAttempts.OnPart.BEGIN) {
            if (pending != null) {
                recycle(pending.matrix);
                for (MiniBatchPart waiting : pending.byVertex) {
                    pin(waiting, -1);
                }
            }
            pending = new Pending(part.attempt);
            bySeq.put(part.seq, pending);
        } else if (action == BatchAttempts.OnPart.DROP) {
            return null;
        }
        if (part.isHead()) {
            if (pending.head != null) {
                return null;
            }
            pending.head = part;
            recentLengths[heads++ % recentLengths.length] =
                    part.head.numNodes() * part.head.featureDim;
            typicalLength = Arrays.stream(recentLengths).max().getAsInt();
            pending.checkRows();
            if (!pending.byVertex.isEmpty()) {
                pending.ensureMatrix(this);
                for (MiniBatchPart waiting : pending.byVertex) {
                    pending.place(pending.resolve(waiting, cache.featureDim()), cache);
                    pin(waiting, -1);
                }
                pending.byVertex.clear();
            }
        } else {
            if (pending.parts.get(part.part)) {
                return null;
            }
            long bytes = bytes(part);
            pending.featureBytes += bytes;
            if (part.sender >= 0 && part.sender != part.trainer) {
                pending.remoteFeatureBytes += bytes;
            }
            pending.ensureMatrix(this);
            if (!part.byVertex()) {
                pending.place(part, cache);
            } else if (pending.head != null) {
                pending.place(pending.resolve(part, cache.featureDim()), cache);
            } else {
                pending.parts.set(part.part);
                pending.byVertex.add(part);
                pin(part, 1);
            }
        }
        if (pending.head == null || pending.parts.cardinality() < pending.head.numParts) {
            return null;
        }
        bySeq.remove(part.seq);
        return pending.finish();
    }

    /**
     * Hands back the feature matrix of a batch that is no longer used, for a later batch; one too
     * small for the latest batches is left to the garbage collector.
     */
    public void recycle(float[] matrix) {
        if (matrix != null && matrix.length >= typicalLength && pool.size() < POOLED) {
            pool.push(matrix);
        }
    }

    /**
     * To be called before {@code part}'s fills are stored in {@code cache}: when one of them
     * overwrites a slot that a waiting part names, every waiting cached entry is copied out of the
     * cache first (fills overwrite a named slot only when the GraphStore evicted its vertex).
     */
    public void beforeFills(MiniBatchPart part, TrainerFeatureCache cache) {
        if (pinned.isEmpty() || part.isHead() || part.fillSlots == null) {
            return;
        }
        for (int slot : part.fillSlots) {
            if (slot >= 0 && pinned.containsKey(slot)) {
                for (Pending p : bySeq.values()) {
                    p.byVertex.replaceAll(waiting -> withCachedEntries(waiting, cache));
                }
                pinned.clear();
                return;
            }
        }
    }

    private void pin(MiniBatchPart part, int delta) {
        for (int slot : part.cachedSlots) {
            if (pinned.addTo(slot, delta) == 0) {
                pinned.remove(slot);
            }
        }
    }

    /**
     * Every part of the incomplete batches, as received (cache references resolved from {@code
     * cache}; a part addressed by vertex that was placed comes back addressed by the rows it
     * filled).
     */
    public List<MiniBatchPart> parts(TrainerFeatureCache cache) {
        List<MiniBatchPart> all = new ArrayList<>();
        for (Pending p : bySeq.values()) {
            if (p.head != null) {
                all.add(p.head);
            }
            for (MiniBatchPart placed : p.placed) {
                all.add(p.received(placed));
            }
            for (MiniBatchPart waiting : p.byVertex) {
                all.add(withCachedEntries(waiting, cache));
            }
        }
        return all;
    }

    /** Rows a batch's feature parts fill: every node. */
    static int featureRows(MiniBatch head) {
        return head.numNodes();
    }

    /**
     * A part addressed by vertex with its cached entries' features and labels copied out of the
     * cache.
     */
    private static MiniBatchPart withCachedEntries(MiniBatchPart p, TrainerFeatureCache cache) {
        int own = p.vertices.length;
        int cached = p.cachedVertices.length;
        if (cached == 0) {
            return p;
        }
        int dim = cache.featureDim();
        long[] vertices = Arrays.copyOf(p.vertices, own + cached);
        System.arraycopy(p.cachedVertices, 0, vertices, own, cached);
        int[] labels = Arrays.copyOf(p.labels, own + cached);
        byte[] features = Arrays.copyOf(p.features, (own + cached) * dim * Float.BYTES);
        FloatBuffer out = ByteBuffer.wrap(features).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
        float[] row = new float[dim];
        for (int j = 0; j < cached; j++) {
            cache.copyRow(p.cachedSlots[j], row, 0);
            out.put((own + j) * dim, row);
            labels[own + j] = cache.label(p.cachedSlots[j]);
        }
        MiniBatchPart whole =
                MiniBatchPart.features(
                        p.batchId,
                        p.seq,
                        p.trainer,
                        p.attempt,
                        p.part,
                        new int[0],
                        labels,
                        features);
        whole.vertices = vertices;
        return whole;
    }

    /** The serialized size of a feature part as it arrived. */
    static long bytes(MiniBatchPart p) {
        long arrays =
                (long) Integer.BYTES
                                * (p.rows.length
                                        + p.labels.length
                                        + p.fillSlots.length
                                        + p.cachedRows.length
                                        + p.cachedSlots.length)
                        + (p.vertices == null
                                ? 0
                                : (long) Long.BYTES
                                        * (p.vertices.length + p.cachedVertices.length));
        return 48 + arrays + (p.features == null ? 0 : p.features.length);
    }

    /** Number of incomplete batches. */
    public int size() {
        return bySeq.size();
    }

    /** A pooled matrix with room for the latest batches, or a new one with some more. */
    private float[] take() {
        while (!pool.isEmpty()) {
            float[] matrix = pool.pop();
            if (matrix.length >= typicalLength) {
                return matrix;
            }
        }
        return new float[typicalLength + typicalLength / 8];
    }

    private static void check(MiniBatchPart part) {
        if (part.isHead()
                ? part.head == null || part.numParts < 0 || part.servedRows == null
                : part.part < 0
                        || part.rows == null
                        || part.labels == null
                        || part.features == null
                        || part.cachedRows == null
                        || part.cachedSlots == null
                        || part.labels.length
                                != (part.byVertex() ? part.vertices.length : part.rows.length)
                        || (part.byVertex()
                                && (part.rows.length > 0
                                        || part.cachedRows.length > 0
                                        || part.cachedVertices == null
                                        || part.cachedVertices.length != part.cachedSlots.length))
                        || part.cachedEntries() != part.cachedSlots.length) {
            throw new IllegalArgumentException(
                    "malformed part " + part.part + " of batch " + part.batchId);
        }
    }

    /**
     * What has arrived of one attempt of a batch: the head, and the matrix with the parts placed in
     * it (their rows and labels; the features are in the matrix).
     */
    private static final class Pending {
        final int attempt;
        MiniBatchPart head;
        float[] matrix;
        int dim;
        final BitSet parts = new BitSet();
        final BitSet filled = new BitSet();
        final List<MiniBatchPart> placed = new ArrayList<>();
        long featureBytes;

        /**
         * Of {@link #featureBytes}, those sent by a GraphStore subtask of another index than the
         * rank.
         */
        long remoteFeatureBytes;

        /** Parts addressed by vertex that arrived before the head. */
        final List<MiniBatchPart> byVertex = new ArrayList<>();

        /**
         * The head's served rows by vertex, built when the first part addressed by vertex is
         * resolved.
         */
        LongIntHashMap servedRowOf;

        Pending(int attempt) {
            this.attempt = attempt;
        }

        void ensureMatrix(PartialBatches batches) {
            if (matrix == null) {
                matrix = batches.take();
            }
        }

        /**
         * A part addressed by vertex as a part addressed by row: the entries of the head's served
         * rows not filled yet (a vertex that several subtasks sampled comes in several parts, and
         * one that is not a served row, a seed or a node first reached by another way, comes by
         * row).
         */
        MiniBatchPart resolve(MiniBatchPart p, int featureDim) {
            if (p.features.length != p.vertices.length * featureDim * Float.BYTES) {
                throw new IllegalArgumentException(
                        "part "
                                + p.part
                                + " of batch "
                                + p.batchId
                                + " has "
                                + p.features.length
                                + " feature bytes for "
                                + p.vertices.length
                                + " vertices of "
                                + featureDim);
            }
            if (servedRowOf == null) {
                servedRowOf = new LongIntHashMap(head.servedRows.length);
                long[] ids = head.head.nodeIds;
                for (int row : head.servedRows) {
                    if (row < 0 || row >= ids.length) {
                        throw new IllegalArgumentException(
                                "batch "
                                        + head.batchId
                                        + " serves row "
                                        + row
                                        + " of "
                                        + ids.length);
                    }
                    servedRowOf.put(ids[row], row);
                }
            }
            int rowBytes = featureDim * Float.BYTES;
            IntList rows = new IntList();
            IntList labels = new IntList();
            IntList entries = new IntList();
            BitSet taken = new BitSet();
            int[] ownRows = unfilledRows(p.vertices, taken);
            for (int j = 0; j < ownRows.length; j++) {
                if (ownRows[j] >= 0) {
                    rows.add(ownRows[j]);
                    labels.add(p.labels[j]);
                    entries.add(j);
                }
            }
            IntList cachedRows = new IntList();
            IntList cachedSlots = new IntList();
            int[] rowsOfCached = unfilledRows(p.cachedVertices, taken);
            for (int k = 0; k < rowsOfCached.length; k++) {
                if (rowsOfCached[k] >= 0) {
                    cachedRows.add(rowsOfCached[k]);
                    cachedSlots.add(p.cachedSlots[k]);
                }
            }
            byte[] features = new byte[entries.size() * rowBytes];
            for (int k = 0; k < entries.size(); k++) {
                System.arraycopy(
                        p.features, entries.get(k) * rowBytes, features, k * rowBytes, rowBytes);
            }
            MiniBatchPart byRow =
                    MiniBatchPart.features(
                            p.batchId,
                            p.seq,
                            p.trainer,
                            p.attempt,
                            p.part,
                            rows.toArray(),
                            labels.toArray(),
                            features);
            byRow.cachedRows = cachedRows.toArray();
            byRow.cachedSlots = cachedSlots.toArray();
            return byRow;
        }

        /**
         * Per vertex, the head's served row for it if that row is neither filled nor in {@code
         * taken} (which then takes it), else -1.
         */
        private int[] unfilledRows(long[] vertices, BitSet taken) {
            int[] rows = new int[vertices.length];
            for (int j = 0; j < vertices.length; j++) {
                int row = servedRowOf.getOrDefault(vertices[j], -1);
                rows[j] = row >= 0 && !filled.get(row) && !taken.get(row) ? row : -1;
                if (rows[j] >= 0) {
                    taken.set(row);
                }
            }
            return rows;
        }

        /**
         * Writes a part's rows into the matrix: its own from its bytes, its cached ones from the
         * cache.
         */
        void place(MiniBatchPart p, TrainerFeatureCache cache) {
            // Layer outputs (inference blocks of later layers) come with their width and never by
            // cache slot.
            dim = p.rowDim > 0 ? p.rowDim : cache.featureDim();
            int own = p.rows.length;
            if (p.features.length != own * dim * Float.BYTES) {
                throw new IllegalArgumentException(
                        "part "
                                + p.part
                                + " of batch "
                                + p.batchId
                                + " has "
                                + p.features.length
                                + " feature bytes for "
                                + own
                                + " rows of "
                                + dim);
            }
            int cached = p.cachedRows.length;
            int[] rows = Arrays.copyOf(p.rows, own + cached);
            int[] labels = Arrays.copyOf(p.labels, own + cached);
            System.arraycopy(p.cachedRows, 0, rows, own, cached);
            for (int j = 0; j < cached; j++) {
                labels[own + j] = cache.label(p.cachedSlots[j]);
            }
            int maxRow = -1;
            for (int row : rows) {
                fill(p, row);
                maxRow = Math.max(maxRow, row);
            }
            long need = (long) (maxRow + 1) * dim;
            if (need > matrix.length) {
                if (need > MAX_FLOATS) {
                    throw new IllegalArgumentException(
                            "part "
                                    + p.part
                                    + " of batch "
                                    + p.batchId
                                    + " fills row "
                                    + maxRow
                                    + ", beyond the largest feature matrix");
                }
                matrix =
                        Arrays.copyOf(
                                matrix,
                                (int) Math.min(MAX_FLOATS, Math.max(need, matrix.length * 3L / 2)));
            }
            FloatBuffer bytes =
                    ByteBuffer.wrap(p.features).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
            for (int j = 0; j < own; j++) {
                bytes.get(j * dim, matrix, rows[j] * dim, dim);
            }
            for (int j = 0; j < cached; j++) {
                cache.copyRow(p.cachedSlots[j], matrix, rows[own + j] * dim);
            }
            parts.set(p.part);
            placed.add(
                    MiniBatchPart.features(
                            p.batchId, p.seq, p.trainer, p.attempt, p.part, rows, labels, null));
        }

        private void fill(MiniBatchPart p, int row) {
            int limit = head != null ? head.head.numNodes() : Integer.MAX_VALUE;
            if (row < 0 || row >= limit || filled.get(row)) {
                throw new IllegalArgumentException(
                        "part "
                                + p.part
                                + " of batch "
                                + p.batchId
                                + " fills row "
                                + row
                                + (row >= 0 && row < limit ? " again" : ", outside the batch"));
            }
            filled.set(row);
        }

        /** On the head's arrival: the rows placed before it must be rows of the batch. */
        void checkRows() {
            int numNodes = featureRows(head.head);
            if (filled.length() > numNodes) {
                throw new IllegalArgumentException(
                        "batch "
                                + head.batchId
                                + " of "
                                + numNodes
                                + " rows got row "
                                + (filled.length() - 1));
            }
        }

        MiniBatch finish() {
            MiniBatch shape = head.head;
            int rowsFilled = filled.cardinality();
            if (rowsFilled != featureRows(shape)) {
                throw new IllegalArgumentException(
                        "batch "
                                + shape.batchId
                                + " has features for "
                                + rowsFilled
                                + " of "
                                + featureRows(shape)
                                + " rows");
            }
            int[] labels = new int[shape.numSeeds()];
            for (MiniBatchPart p : placed) {
                for (int j = 0; j < p.rows.length; j++) {
                    if (p.rows[j] < labels.length) {
                        labels[p.rows[j]] = p.labels[j];
                    }
                }
            }
            MiniBatch b = shape.withFeatures(matrix != null ? matrix : new float[0], labels);
            if (dim > 0) {
                b.featureDim = dim;
            }
            b.featureBytes = featureBytes;
            b.remoteFeatureBytes = remoteFeatureBytes;
            return b;
        }

        /** A placed part as it was received, its features read back from the matrix. */
        MiniBatchPart received(MiniBatchPart p) {
            byte[] bytes = new byte[p.rows.length * dim * Float.BYTES];
            FloatBuffer out = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
            for (int j = 0; j < p.rows.length; j++) {
                out.put(j * dim, matrix, p.rows[j] * dim, dim);
            }
            MiniBatchPart part =
                    MiniBatchPart.features(
                            p.batchId, p.seq, p.trainer, p.attempt, p.part, p.rows, p.labels,
                            bytes);
            part.rowDim = dim;
            return part;
        }
    }
}

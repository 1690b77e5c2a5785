package io.gnnstream.operators.assembly;

import com.carrotsearch.hppc.LongIntHashMap;
import io.gnnstream.operators.internal.IntList;
import io.gnnstream.operators.internal.TrainerFeatureCache;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.MiniBatchPart;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

/**
 * What has arrived of one attempt of a batch: the head, and the matrix with the parts placed in it
 * (their rows and labels; the features are in the matrix).
 */
final class PendingBatch {

    /** Largest array the JVM allocates. */
    private static final long MAX_FLOATS = Integer.MAX_VALUE - 8;

    final int attempt;
    MiniBatchPart head;
    float[] matrix;
    int dim;
    final BitSet parts = new BitSet();
    final BitSet filled = new BitSet();
    final List<MiniBatchPart> placed = new ArrayList<>();
    long featureBytes;

    /**
     * Of {@link #featureBytes}, those sent by a GraphStore subtask of another index than the rank.
     */
    long remoteFeatureBytes;

    /** Parts addressed by vertex that arrived before the head. */
    final List<MiniBatchPart> byVertex = new ArrayList<>();

    /**
     * The head's served rows by vertex, built when the first part addressed by vertex is resolved.
     */
    LongIntHashMap servedRowOf;

    PendingBatch(int attempt) {
        this.attempt = attempt;
    }

    void ensureMatrix(PartialBatches batches) {
        if (matrix == null) {
            matrix = batches.take();
        }
    }

    /**
     * A part addressed by vertex as a part addressed by row: the entries of the head's served rows
     * not filled yet (a vertex that several subtasks sampled comes in several parts, and one that
     * is not a served row, a seed or a node first reached by another way, comes by row).
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
                            "batch " + head.batchId + " serves row " + row + " of " + ids.length);
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
     * Per vertex, the head's served row for it if that row is neither filled nor in {@code taken}
     * (which then takes it), else -1.
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
     * Writes a part's rows into the matrix: its own from its bytes, its cached ones from the cache.
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
        MiniBatchPart kept =
                MiniBatchPart.features(
                        p.batchId, p.seq, p.trainer, p.attempt, p.part, rows, labels, null);
        kept.degrees = p.degrees;
        placed.add(kept);
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
        b.degrees = degrees(shape.numNodes());
        if (dim > 0) {
            b.featureDim = dim;
        }
        b.featureBytes = featureBytes;
        b.remoteFeatureBytes = remoteFeatureBytes;
        return b;
    }

    /**
     * Per row, the degree its part carried ({@link MiniBatchPart#degrees}), or null unless every
     * placed part carried degrees.
     */
    private int[] degrees(int numNodes) {
        if (placed.isEmpty()) {
            return null;
        }
        int[] degrees = new int[numNodes];
        for (MiniBatchPart p : placed) {
            if (p.degrees == null) {
                return null;
            }
            for (int j = 0; j < p.rows.length; j++) {
                degrees[p.rows[j]] = p.degrees[j];
            }
        }
        return degrees;
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
                        p.batchId, p.seq, p.trainer, p.attempt, p.part, p.rows, p.labels, bytes);
        part.rowDim = dim;
        part.degrees = p.degrees;
        return part;
    }

    /** Rows a batch's feature parts fill: every node. */
    static int featureRows(MiniBatch head) {
        return head.numNodes();
    }
}

package io.gnnstream.operators.model;

import com.carrotsearch.hppc.LongIntHashMap;
import java.util.Arrays;

/**
 * One layer's embeddings during layer-wise inference: a row of {@code dim} floats per vertex id,
 * written once per vertex and round and gathered as the next layer's input. Rows live in one
 * growing heap array behind a primitive map, so a round over N vertices costs about
 * {@code N x (4 dim + 16)} bytes. Not thread-safe.
 */
public final class EmbeddingTable {

    private final int dim;
    private final LongIntHashMap rowOf = new LongIntHashMap();
    private long[] ids = new long[0];
    private float[] values = new float[0];
    private int size;

    public EmbeddingTable(int dim) {
        if (dim < 1) {
            throw new IllegalArgumentException("dim must be >= 1, got " + dim);
        }
        this.dim = dim;
    }

    /** Rebuilds a table from {@link #ids()} and {@link #values()} of an earlier one. */
    public static EmbeddingTable of(int dim, long[] ids, float[] values) {
        if (values.length != (long) ids.length * dim) {
            throw new IllegalArgumentException("a table of " + ids.length + " rows of " + dim
                    + " floats needs " + (long) ids.length * dim + " values, got " + values.length);
        }
        EmbeddingTable t = new EmbeddingTable(dim);
        for (int i = 0; i < ids.length; i++) {
            t.put(ids[i], values, i * dim);
        }
        return t;
    }

    public int dim() {
        return dim;
    }

    public int size() {
        return size;
    }

    public boolean contains(long id) {
        return rowOf.containsKey(id);
    }

    /** Sets the row of {@code id} to {@code dim} floats of {@code from} starting at {@code offset}. */
    public void put(long id, float[] from, int offset) {
        int row = rowOf.getOrDefault(id, -1);
        if (row < 0) {
            row = size++;
            if (row == ids.length) {
                int capacity = Math.max(16, row + row / 2);
                ids = Arrays.copyOf(ids, capacity);
                values = Arrays.copyOf(values, capacity * dim);
            }
            ids[row] = id;
            rowOf.put(id, row);
        }
        System.arraycopy(from, offset, values, row * dim, dim);
    }

    /**
     * Copies the rows of {@code vertices[0..n)} into {@code out} (row-major, {@code n x dim}); a
     * vertex without a row gets zeros. Returns the number of such vertices.
     */
    public int gather(long[] vertices, int n, float[] out) {
        int missing = 0;
        for (int i = 0; i < n; i++) {
            int row = rowOf.getOrDefault(vertices[i], -1);
            if (row < 0) {
                Arrays.fill(out, i * dim, (i + 1) * dim, 0f);
                missing++;
            } else {
                System.arraycopy(values, row * dim, out, i * dim, dim);
            }
        }
        return missing;
    }

    /** A copy of the row of {@code id}, or null. */
    public float[] row(long id) {
        int row = rowOf.getOrDefault(id, -1);
        return row < 0 ? null : Arrays.copyOfRange(values, row * dim, (row + 1) * dim);
    }

    /** The vertex ids, in the order their rows were first written. */
    public long[] ids() {
        return Arrays.copyOf(ids, size);
    }

    /** All rows in {@link #ids()} order. */
    public float[] values() {
        return Arrays.copyOf(values, size * dim);
    }
}

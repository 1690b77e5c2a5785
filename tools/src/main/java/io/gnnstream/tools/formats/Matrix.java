package io.gnnstream.tools.formats;

import io.gnnstream.state.records.NodeUpdate;
import io.gnnstream.tools.DatasetException;
import java.util.Arrays;

/** A 2-D matrix read from a file: dense (a 2-D {@link NdArray}) or CSR (scipy's three arrays). */
final class Matrix {

    final int rows;
    final int cols;
    private final NdArray dense;
    private final NdArray data;
    private final long[] indices;
    private final long[] indptr;

    private Matrix(int rows, int cols, NdArray dense, NdArray data, long[] indices, long[] indptr) {
        this.rows = rows;
        this.cols = cols;
        this.dense = dense;
        this.data = data;
        this.indices = indices;
        this.indptr = indptr;
    }

    /** A dense matrix; {@code array} must be 2-D. */
    static Matrix dense(NdArray array, String where) throws DatasetException {
        array.requireDims(2, where);
        return new Matrix(array.shape[0], array.shape[1], array, null, null, null);
    }

    /** A CSR matrix of the given shape, checked for consistency. */
    static Matrix csr(NdArray data, NdArray indices, NdArray indptr, long[] shape, String where)
            throws DatasetException {
        if (shape.length != 2 || shape[0] < 0 || shape[1] < 0 || shape[0] > Integer.MAX_VALUE) {
            throw new DatasetException(where + ": bad CSR shape " + Arrays.toString(shape));
        }
        int rows = (int) shape[0];
        long[] ptr = indptr.longs(where + " indptr");
        long[] idx = indices.longs(where + " indices");
        data.requireDims(1, where + " data");
        if (ptr.length != rows + 1
                || ptr[0] != 0
                || ptr[rows] != idx.length
                || data.shape[0] != idx.length) {
            throw new DatasetException(
                    where
                            + ": inconsistent CSR arrays (indptr "
                            + ptr.length
                            + " entries for "
                            + rows
                            + " rows, "
                            + idx.length
                            + " indices, "
                            + data.shape[0]
                            + " values)");
        }
        for (int r = 0; r < rows; r++) {
            if (ptr[r + 1] < ptr[r]) {
                throw new DatasetException(where + ": CSR indptr decreases at row " + r);
            }
        }
        for (long c : idx) {
            if (c < 0 || c >= shape[1]) {
                throw new DatasetException(
                        where + ": CSR column " + c + " out of range [0, " + shape[1] + ")");
            }
        }
        return new Matrix(rows, (int) shape[1], null, data, idx, ptr);
    }

    /** Row {@code r} into {@code out} (length {@link #cols}); CSR duplicates are summed. */
    void row(int r, float[] out) {
        if (dense != null) {
            for (int c = 0; c < cols; c++) {
                out[c] = (float) dense.get(r, c);
            }
            return;
        }
        Arrays.fill(out, 0, cols, 0f);
        for (long k = indptr[r]; k < indptr[r + 1]; k++) {
            out[(int) indices[(int) k]] += (float) data.get(k);
        }
    }

    /**
     * The column of the largest value of row {@code r} (first on ties), or {@link
     * NodeUpdate#NO_LABEL} for a row of zeros: the class of a one-hot label row.
     */
    int argmax(int r, float[] scratch) {
        row(r, scratch);
        int best = NodeUpdate.NO_LABEL;
        for (int c = 0; c < cols; c++) {
            if (scratch[c] != 0 && (best == NodeUpdate.NO_LABEL || scratch[c] > scratch[best])) {
                best = c;
            }
        }
        return best;
    }

    /** Stored (row, column) pairs of a CSR matrix, or every non-zero of a dense one. */
    void forEachEntry(EntrySink sink) throws DatasetException {
        for (int r = 0; r < rows; r++) {
            if (dense != null) {
                for (int c = 0; c < cols; c++) {
                    if (dense.get(r, c) != 0) {
                        sink.entry(r, c);
                    }
                }
            } else {
                for (long k = indptr[r]; k < indptr[r + 1]; k++) {
                    sink.entry(r, (int) indices[(int) k]);
                }
            }
        }
    }

    /** Receives matrix entries. */
    @FunctionalInterface
    interface EntrySink {
        void entry(int row, int col) throws DatasetException;
    }
}

package io.gnnstream.operators.model;

import java.nio.FloatBuffer;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * A reusable off-heap float buffer exposed both as a row-major INDArray (for gemm) and as a direct
 * {@link FloatBuffer} (for bulk copies from Java loops). It only grows, with headroom, so batches
 * of slightly varying size do not reallocate native memory every step.
 */
final class NativeMatrix {

    private INDArray storage;
    private FloatBuffer floats;
    private INDArray view;

    /**
     * A {@code rows x cols} C-order matrix over the start of the buffer; contents are undefined.
     */
    INDArray shape(int rows, int cols) {
        long need = (long) rows * cols;
        if (storage == null || storage.length() < need) {
            if (storage != null) {
                storage.close();
            }
            long capacity =
                    storage == null
                            ? need
                            : Math.max(need, storage.length() + storage.length() / 4);
            storage = Nd4j.createUninitialized(DataType.FLOAT, Math.max(1, capacity));
            floats = storage.data().asNioFloat();
            view = null;
        }
        if (view == null || view.rows() != rows || view.columns() != cols) {
            view =
                    Nd4j.create(
                            storage.data(),
                            new long[] {rows, cols},
                            new long[] {cols, 1},
                            0,
                            'c',
                            DataType.FLOAT);
        }
        return view;
    }

    /**
     * Frees the native memory now instead of at garbage collection; a later {@link #shape}
     * reallocates.
     */
    void release() {
        if (storage != null) {
            storage.close();
            storage = null;
            floats = null;
            view = null;
        }
    }

    /** The buffer behind the last {@link #shape} call, indexed from 0 in row-major order. */
    FloatBuffer floats() {
        return floats;
    }
}

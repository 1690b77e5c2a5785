package io.gnnstream.tools.formats;

import io.gnnstream.tools.DatasetException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/** Turns unpickled numpy arrays and scipy CSR matrices ({@link Pickle}) into {@link Matrix}. */
final class PickledData {

    private PickledData() {}

    /** A 2-D numpy array or a scipy {@code csr_matrix} as a matrix. */
    static Matrix matrix(Object o, String where) throws DatasetException {
        if (o instanceof Pickle.PickledArray a) {
            return Matrix.dense(array(a, where), where);
        }
        if (o instanceof Pickle.Instance i && i.type.name().startsWith("csr_")) {
            if (!(i.state instanceof Map<?, ?> state)) {
                throw new DatasetException(where + ": " + i.type + " without its attribute dict");
            }
            Object shape = state.containsKey("_shape") ? state.get("_shape") : state.get("shape");
            if (!(shape instanceof List<?> dims)
                    || dims.size() != 2
                    || !(dims.get(0) instanceof Long)
                    || !(dims.get(1) instanceof Long)) {
                throw new DatasetException(where + ": " + i.type + " without a 2-D _shape");
            }
            return Matrix.csr(
                    array(state.get("data"), where + " data"),
                    array(state.get("indices"), where + " indices"),
                    array(state.get("indptr"), where + " indptr"),
                    new long[] {(Long) dims.get(0), (Long) dims.get(1)},
                    where);
        }
        throw new DatasetException(
                where
                        + ": expected a numpy array or a scipy csr_matrix, got "
                        + Pickle.describe(o));
    }

    /** A numpy array as an {@link NdArray}. */
    static NdArray array(Object o, String where) throws DatasetException {
        if (!(o instanceof Pickle.PickledArray a) || a.dtype == null) {
            throw new DatasetException(
                    where + ": expected a numpy array, got " + Pickle.describe(o));
        }
        byte[] bytes;
        if (a.data instanceof byte[] raw) {
            bytes = raw;
        } else if (a.data instanceof String latin1) {
            bytes = latin1.getBytes(StandardCharsets.ISO_8859_1);
        } else {
            throw new DatasetException(
                    where
                            + ": numpy array of '"
                            + a.dtype.name
                            + "' without raw data ("
                            + Pickle.describe(a.data)
                            + ")");
        }
        return new NdArray(a.dtype.descr(), a.shape, a.fortran, bytes, where);
    }
}

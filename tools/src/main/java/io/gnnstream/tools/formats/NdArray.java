package io.gnnstream.tools.formats;

import io.gnnstream.tools.DatasetException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A numpy array as read from a {@code .npy} entry or a pickle: element type, shape, memory order
 * and raw bytes. Numeric element types only ({@code f4 f8 i1 i2 i4 i8 u1 u2 u4 u8 b1}).
 */
final class NdArray {

    final char kind;
    final int itemSize;
    final int[] shape;
    final boolean fortran;
    private final ByteBuffer data;

    NdArray(String descr, int[] shape, boolean fortran, byte[] bytes, String where)
            throws DatasetException {
        String d = descr;
        ByteOrder order = ByteOrder.LITTLE_ENDIAN;
        if (!d.isEmpty() && "<>|=".indexOf(d.charAt(0)) >= 0) {
            order = d.charAt(0) == '>' ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
            d = d.substring(1);
        }
        this.kind = d.isEmpty() ? '?' : d.charAt(0);
        int size;
        try {
            size = Integer.parseInt(d.substring(1));
        } catch (NumberFormatException | IndexOutOfBoundsException e) {
            size = -1;
        }
        this.itemSize = size;
        if (!supported(kind, size)) {
            throw new DatasetException(where + ": unsupported numpy element type '" + descr + "'");
        }
        this.shape = shape.clone();
        this.fortran = fortran;
        long expected = size() * itemSize;
        if (bytes.length != expected) {
            throw new DatasetException(
                    where
                            + ": "
                            + bytes.length
                            + " data bytes for shape "
                            + Arrays.toString(shape)
                            + " of '"
                            + descr
                            + "', expected "
                            + expected);
        }
        this.data = ByteBuffer.wrap(bytes).order(order);
    }

    private static boolean supported(char kind, int size) {
        switch (kind) {
            case 'f':
                return size == 4 || size == 8;
            case 'i':
            case 'u':
                return size == 1 || size == 2 || size == 4 || size == 8;
            case 'b':
                return size == 1;
            default:
                return false;
        }
    }

    /** The number of elements. */
    long size() {
        long n = 1;
        for (int s : shape) {
            n *= s;
        }
        return n;
    }

    /** Element {@code i} of the array in memory order, as a double. */
    double get(long i) {
        int at = Math.toIntExact(i * itemSize);
        switch (kind) {
            case 'f':
                return itemSize == 4 ? data.getFloat(at) : data.getDouble(at);
            case 'b':
                return data.get(at) != 0 ? 1 : 0;
            default:
                return getLong(i);
        }
    }

    /** Element {@code i} of the array in memory order, as a long (floats truncated). */
    long getLong(long i) {
        int at = Math.toIntExact(i * itemSize);
        boolean unsigned = kind == 'u';
        switch (kind) {
            case 'f':
                return (long) get(i);
            case 'b':
                return data.get(at) != 0 ? 1 : 0;
            default:
                switch (itemSize) {
                    case 1:
                        return unsigned ? data.get(at) & 0xff : data.get(at);
                    case 2:
                        return unsigned ? data.getShort(at) & 0xffff : data.getShort(at);
                    case 4:
                        return unsigned ? data.getInt(at) & 0xffffffffL : data.getInt(at);
                    default:
                        return data.getLong(at);
                }
        }
    }

    /** Element (r, c) of a 2-D array. */
    double get(int r, int c) {
        return fortran ? get((long) c * shape[0] + r) : get((long) r * shape[1] + c);
    }

    /** The array as a flat vector of longs, or an error unless it is 1-D. */
    long[] longs(String where) throws DatasetException {
        requireDims(1, where);
        long[] out = new long[shape[0]];
        for (int i = 0; i < out.length; i++) {
            out[i] = getLong(i);
        }
        return out;
    }

    /** An error naming {@code where} unless the array has {@code dims} dimensions. */
    void requireDims(int dims, String where) throws DatasetException {
        if (shape.length != dims) {
            throw new DatasetException(
                    where
                            + ": expected a "
                            + dims
                            + "-D array, got shape "
                            + Arrays.toString(shape));
        }
    }
}

package io.gnnstream.operators.internal;

import java.util.Arrays;

/** Growable list of primitive longs (avoids boxing on the sampling hot path). */
public final class LongList {
    private long[] values = new long[8];
    private int size;

    public void add(long v) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = v;
    }

    /** The last value added; the list must not be empty. */
    public long last() {
        if (size == 0) {
            throw new IllegalStateException("empty list");
        }
        return values[size - 1];
    }

    public int size() {
        return size;
    }

    /** Empties the list, keeping its capacity. */
    public void clear() {
        size = 0;
    }

    public long[] toArray() {
        return Arrays.copyOf(values, size);
    }
}

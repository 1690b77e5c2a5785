package io.gnnstream.operators.internal;

import java.util.Arrays;

/** Growable list of primitive longs (avoids boxing on the sampling hot path). */
final class LongList {
    private long[] values = new long[8];
    private int size;

    void add(long v) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = v;
    }

    int size() {
        return size;
    }

    long[] toArray() {
        return Arrays.copyOf(values, size);
    }
}

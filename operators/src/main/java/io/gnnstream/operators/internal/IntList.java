package io.gnnstream.operators.internal;

import java.util.Arrays;

/** Growable list of primitive ints (avoids boxing on the sampling hot path). */
final class IntList {
    private int[] values = new int[16];
    private int size;

    void add(int v) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = v;
    }

    int size() {
        return size;
    }

    int get(int i) {
        if (i >= size) {
            throw new IndexOutOfBoundsException(i + " of " + size);
        }
        return values[i];
    }

    int[] toArray() {
        return Arrays.copyOf(values, size);
    }
}

package io.gnnstream.operators.internal;

import java.util.Arrays;

/** Growable list of primitive ints (avoids boxing on the sampling hot path). */
public final class IntList {
    private int[] values = new int[16];
    private int size;

    public void add(int v) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = v;
    }

    public int size() {
        return size;
    }

    public int get(int i) {
        if (i >= size) {
            throw new IndexOutOfBoundsException(i + " of " + size);
        }
        return values[i];
    }

    public int[] toArray() {
        return Arrays.copyOf(values, size);
    }
}

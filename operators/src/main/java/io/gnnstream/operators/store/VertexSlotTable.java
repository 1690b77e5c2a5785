package io.gnnstream.operators.store;

import java.util.Arrays;

/**
 * A map from vertex ids to non-negative ints of a fixed capacity, for a {@link
 * FeatureCacheDirectory}'s probes, which come in random order over millions of vertices and so wait
 * on memory: open addressing with linear probing over one array in which each key sits next to its
 * value, so that a probe usually costs one cache miss where a map with separate key and value
 * arrays costs two. Removal shifts the entries after the removed one back, so that no tombstones
 * accumulate. The array doubles as entries come, up to what {@code capacity} entries need at a load
 * of at most 0.7 (16 bytes per bucket). {@link Long#MIN_VALUE} is not a valid key.
 */
final class VertexSlotTable {

    private static final long EMPTY = Long.MIN_VALUE;

    private static final int MIN_BUCKETS = 1024;

    /** Keys whose home buckets {@link #getAll} reads before probing any of them. */
    static final int GROUP = 16;

    /** Key at {@code 2i}, value at {@code 2i + 1}. */
    private long[] table;

    private int mask;
    private final int capacity;
    private int size;
    private final int[] groupBuckets = new int[GROUP];
    private final long[] groupKeys = new long[GROUP];

    /** A table for up to {@code capacity} entries. */
    VertexSlotTable(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be >= 1, got " + capacity);
        }
        this.capacity = capacity;
        allocate(Math.min(MIN_BUCKETS, bucketsFor(capacity)));
    }

    private static int bucketsFor(int entries) {
        long wanted = Math.max(8, (long) Math.ceil(entries / 0.7));
        return Integer.highestOneBit((int) Math.min(wanted, 1 << 29) - 1) << 1;
    }

    private void allocate(int buckets) {
        table = new long[2 * buckets];
        Arrays.fill(table, EMPTY);
        mask = buckets - 1;
    }

    /** The value of {@code key}, or -1. */
    int get(long key) {
        return key == EMPTY ? -1 : probeFrom(bucketOf(key), key);
    }

    /**
     * {@link #get} of {@code keys[from..to)} into {@code values[0..to-from)}. The home buckets of a
     * group of {@value #GROUP} keys are all read before any key is probed: those reads do not
     * depend on each other, so their cache misses overlap, where probing one key at a time waits
     * for each miss in turn (about twice as fast on a table much larger than the processor's
     * caches).
     */
    void getAll(long[] keys, int from, int to, int[] values) {
        for (int g = from; g < to; g += GROUP) {
            int n = Math.min(GROUP, to - g);
            for (int i = 0; i < n; i++) {
                int b = bucketOf(keys[g + i]);
                groupBuckets[i] = b;
                groupKeys[i] = table[2 * b];
            }
            for (int i = 0; i < n; i++) {
                long key = keys[g + i];
                long home = groupKeys[i];
                int value = -1; // EMPTY is never a key
                if (key != EMPTY && home != EMPTY) {
                    int b = groupBuckets[i];
                    value = home == key ? (int) table[2 * b + 1] : probeFrom((b + 1) & mask, key);
                }
                values[g - from + i] = value;
            }
        }
    }

    private int probeFrom(int bucket, long key) {
        for (int b = bucket; ; b = (b + 1) & mask) {
            long k = table[2 * b];
            if (k == key) {
                return (int) table[2 * b + 1];
            }
            if (k == EMPTY) {
                return -1;
            }
        }
    }

    /** Maps {@code key} (not {@link Long#MIN_VALUE}) to {@code value} (>= 0). */
    void put(long key, int value) {
        if (key == EMPTY || value < 0) {
            throw new IllegalArgumentException("entry " + key + " -> " + value);
        }
        int b = bucketOf(key);
        for (; table[2 * b] != EMPTY; b = (b + 1) & mask) {
            if (table[2 * b] == key) {
                table[2 * b + 1] = value;
                return;
            }
        }
        if (size == capacity) {
            throw new IllegalStateException("table of " + capacity + " entries is full");
        }
        if (size + 1 > 0.7 * (mask + 1)) {
            grow();
            b = bucketOf(key);
            while (table[2 * b] != EMPTY) {
                b = (b + 1) & mask;
            }
        }
        table[2 * b] = key;
        table[2 * b + 1] = value;
        size++;
    }

    /** Removes {@code key}; returns its value, or -1 when it had none. */
    int remove(long key) {
        if (key == EMPTY) {
            return -1;
        }
        int b = bucketOf(key);
        while (table[2 * b] != key) {
            if (table[2 * b] == EMPTY) {
                return -1;
            }
            b = (b + 1) & mask;
        }
        int value = (int) table[2 * b + 1];
        // Shift back every following entry of the run that the freed bucket would hide.
        int free = b;
        for (int next = (b + 1) & mask; table[2 * next] != EMPTY; next = (next + 1) & mask) {
            int home = bucketOf(table[2 * next]);
            boolean movable =
                    free <= next ? home <= free || home > next : home <= free && home > next;
            if (movable) {
                table[2 * free] = table[2 * next];
                table[2 * free + 1] = table[2 * next + 1];
                free = next;
            }
        }
        table[2 * free] = EMPTY;
        size--;
        return value;
    }

    int size() {
        return size;
    }

    /** The most entries the table takes. */
    int capacity() {
        return capacity;
    }

    private void grow() {
        long[] old = table;
        allocate(2 * (mask + 1));
        for (int i = 0; i < old.length; i += 2) {
            if (old[i] != EMPTY) {
                int b = bucketOf(old[i]);
                while (table[2 * b] != EMPTY) {
                    b = (b + 1) & mask;
                }
                table[2 * b] = old[i];
                table[2 * b + 1] = old[i + 1];
            }
        }
    }

    private int bucketOf(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32)) & mask;
    }
}

package io.gnnstream.operators.store;

import java.util.Arrays;

/**
 * Heap cache of one byte value per vertex (an attribute record, an adjacency tail) under a budget
 * of heap bytes, evicting by the CLOCK approximation of least-recently-used. Sampling keeps
 * returning to the same vertices, and a hit skips the key switch, the RocksDB read and its copy.
 *
 * <p>Entries live in dense arrays indexed through a {@link VertexSlotTable}: a lookup is a probe of
 * that table and one flag write, where a {@code LinkedHashMap<Long, byte[]>} in access order would
 * cost several dependent cache misses per lookup (boxed key, entry, relinking its neighbours) on
 * the GraphStore's hottest path; {@link #getAll} overlaps the misses of a group of lookups. {@link
 * Long#MIN_VALUE} is never cached.
 *
 * <p>The cache is derived from keyed state and never checkpointed: its owner keeps it coherent by
 * replacing or invalidating an entry whenever it writes that vertex's value.
 */
public final class VertexValueCache {

    /**
     * Heap bytes charged per entry besides the value's elements: map slot, arrays and array header.
     */
    public static final int ENTRY_OVERHEAD_BYTES = 64;

    /** Told of each entry the clock evicts (not of those invalidated, taken or replaced). */
    @FunctionalInterface
    public interface Evictions {
        void evicted(long vertex, byte[] value);
    }

    private final long budgetBytes;
    private Evictions evictions;
    private final VertexSlotTable entries;
    private final int[] groupEntries = new int[VertexSlotTable.GROUP];
    private long[] vertices = new long[16];
    private byte[][] values = new byte[16][];
    private boolean[] referenced = new boolean[16];
    private int size;
    private int hand;
    private long bytes;

    public VertexValueCache(long budgetBytes) {
        if (budgetBytes < 0) {
            throw new IllegalArgumentException(
                    "cache budget must be >= 0 bytes, got " + budgetBytes);
        }
        this.budgetBytes = budgetBytes;
        // Every entry is charged at least ENTRY_OVERHEAD_BYTES, and put evicts right after adding.
        this.entries =
                new VertexSlotTable(
                        (int) Math.min(1 << 28, budgetBytes / ENTRY_OVERHEAD_BYTES + 2));
    }

    /** Tells {@code listener} of each entry the clock evicts from now on. */
    public void onEviction(Evictions listener) {
        this.evictions = listener;
    }

    public byte[] get(long vertex) {
        int e = entryOf(vertex);
        if (e < 0) {
            return null;
        }
        referenced[e] = true;
        return values[e];
    }

    /**
     * {@link #get} of {@code vertices[from..to)} into {@code out[from..to)}, overlapping the cache
     * misses of a group of lookups: first the table's, then the entries' values'.
     */
    public void getAll(long[] vertices, int from, int to, byte[][] out) {
        int group = VertexSlotTable.GROUP;
        for (int g = from; g < to; g += group) {
            int n = Math.min(group, to - g);
            entries.getAll(vertices, g, g + n, groupEntries);
            for (int i = 0; i < n; i++) {
                int e = groupEntries[i];
                if (e >= 0) {
                    referenced[e] = true;
                    out[g + i] = values[e];
                } else {
                    out[g + i] = null;
                }
            }
        }
    }

    /**
     * {@link #put} of {@code vertices[i]} with {@code values[i]} for each {@code i < n}, in order.
     * A grouped lookup first brings the table buckets of a group of vertices into the processor's
     * cache, their misses overlapping; its result is not used, since each put may evict and move
     * entries, and the puts' own probes then find the buckets in the cache.
     */
    public void putAll(long[] vertices, byte[][] values, int n) {
        int group = VertexSlotTable.GROUP;
        for (int g = 0; g < n; g += group) {
            int m = Math.min(group, n - g);
            entries.getAll(vertices, g, g + m, groupEntries);
            for (int i = g; i < g + m; i++) {
                put(vertices[i], values[i]);
            }
        }
    }

    /** The entry holding {@code vertex}, or -1. */
    private int entryOf(long vertex) {
        return size == 0 ? -1 : entries.get(vertex);
    }

    /**
     * Caches {@code value}, evicting entries not used since the clock hand last passed them. A new
     * entry must be used once before the hand reaches it to survive, and an entry moved into an
     * evicted one's place is passed over until the next sweep. Returns whether {@code value} is
     * cached (false for one over the budget, which leaves the cache).
     */
    public boolean put(long vertex, byte[] value) {
        if (costOf(value) > budgetBytes || vertex == Long.MIN_VALUE) {
            invalidate(vertex);
            return false;
        }
        int e = entryOf(vertex);
        if (e >= 0) {
            bytes += value.length - values[e].length;
            values[e] = value;
        } else {
            while (size >= entries.capacity()) {
                evictOne();
            }
            if (size == vertices.length) {
                grow();
            }
            entries.put(vertex, size);
            vertices[size] = vertex;
            values[size] = value;
            referenced[size] = false;
            size++;
            bytes += costOf(value);
        }
        while (bytes > budgetBytes) {
            evictOne();
        }
        return true;
    }

    /** Replaces the cached value of {@code vertex}, if there is one, after a write to state. */
    public void replace(long vertex, byte[] value) {
        if (entryOf(vertex) >= 0) {
            put(vertex, value);
        }
    }

    /** Drops the cached value of {@code vertex}, if there is one, after a write to state. */
    public void invalidate(long vertex) {
        int e = entryOf(vertex);
        if (e >= 0) {
            remove(e);
        }
    }

    /**
     * The cached value of {@code vertex}, which leaves the cache (a value read once, then not
     * again); null when none.
     */
    public byte[] take(long vertex) {
        int e = entryOf(vertex);
        if (e < 0) {
            return null;
        }
        byte[] value = values[e];
        remove(e);
        return value;
    }

    /**
     * Evicts entries, by the same clock as {@link #put}, until the cached entries are charged at
     * most {@code maxBytes} (at most the budget), so that another cache can have the rest.
     */
    public void trimTo(long maxBytes) {
        while (bytes > Math.max(0, maxBytes) && size > 0) {
            evictOne();
        }
    }

    public int size() {
        return size;
    }

    /** Heap bytes the cached entries are charged, at most the budget. */
    public long bytes() {
        return bytes;
    }

    public static long costOf(byte[] value) {
        return value.length + ENTRY_OVERHEAD_BYTES;
    }

    private void evictOne() {
        while (true) {
            if (hand >= size) {
                hand = 0;
            }
            if (referenced[hand]) {
                referenced[hand] = false;
                hand++;
            } else {
                long vertex = vertices[hand];
                byte[] value = values[hand];
                remove(hand);
                hand++;
                if (evictions != null) {
                    evictions.evicted(vertex, value);
                }
                return;
            }
        }
    }

    /** Removes entry {@code e}, moving the last entry into its place so the arrays stay dense. */
    private void remove(int e) {
        bytes -= costOf(values[e]);
        entries.remove(vertices[e]);
        int last = --size;
        if (e != last) {
            vertices[e] = vertices[last];
            values[e] = values[last];
            referenced[e] = referenced[last];
            entries.put(vertices[e], e);
        }
        values[last] = null;
    }

    private void grow() {
        int capacity = vertices.length * 2;
        vertices = Arrays.copyOf(vertices, capacity);
        values = Arrays.copyOf(values, capacity);
        referenced = Arrays.copyOf(referenced, capacity);
    }
}

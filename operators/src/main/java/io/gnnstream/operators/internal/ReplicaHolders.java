package io.gnnstream.operators.internal;

import com.carrotsearch.hppc.LongLongHashMap;
import com.carrotsearch.hppc.LongObjectHashMap;
import com.carrotsearch.hppc.cursors.LongLongCursor;
import java.nio.ByteBuffer;

/**
 * The replica router's heap index of its vertices (see {@code ReplicaRouter}): per vertex with an
 * attribute record or a replica, whether it has a record and which sites hold a replica of it, in
 * bits (bit 0: a record; bit {@code 1 + s}: site {@code s}). Kept per logical partition, so that a
 * changed partition is stored as one value ({@link #encode}) under its anchor key and moves with
 * its key group at a rescale.
 *
 * <p>Value format, version 1: a version byte, the int number of words per vertex {@code w}, the int
 * number of vertices {@code n}, then per vertex its id and {@code w} words, big-endian longs.
 */
public final class ReplicaHolders {

    private static final byte VERSION = 1;

    private final int words;

    /** Per partition, each vertex's first word (record and sites 0 to 62), in one probe. */
    private final LongLongHashMap[] first;

    /** Per partition, each vertex's further words, only with more than 63 sites. */
    private final LongObjectHashMap<long[]>[] rest;

    private final boolean[] dirty;

    @SuppressWarnings("unchecked")
    public ReplicaHolders(int partitions, int sites) {
        this.words = (sites + 1 + 63) / 64;
        this.first = new LongLongHashMap[partitions];
        this.rest = new LongObjectHashMap[partitions];
        this.dirty = new boolean[partitions];
    }

    private LongLongHashMap first(int partition) {
        LongLongHashMap map = first[partition];
        if (map == null) {
            map = first[partition] = new LongLongHashMap();
        }
        return map;
    }

    private long[] rest(int partition, long vertex, boolean create) {
        LongObjectHashMap<long[]> map = rest[partition];
        if (map == null) {
            if (!create) {
                return null;
            }
            map = rest[partition] = new LongObjectHashMap<>();
        }
        long[] more = map.get(vertex);
        if (more == null && create) {
            more = new long[words - 1];
            map.put(vertex, more);
            first(partition).putIfAbsent(vertex, 0L);
        }
        return more;
    }

    /** Word {@code w} of the vertex's bits (0 when it has none). */
    private long word(int partition, long vertex, int w) {
        if (w == 0) {
            LongLongHashMap map = first[partition];
            return map == null ? 0L : map.get(vertex);
        }
        long[] more = rest(partition, vertex, false);
        return more == null ? 0L : more[w - 1];
    }

    /** Sets or clears {@code mask} in word {@code w}; true when that changed the word. */
    private boolean change(int partition, long vertex, int w, long mask, boolean set) {
        if (w == 0) {
            LongLongHashMap map = set ? first(partition) : first[partition];
            if (map == null) {
                return false;
            }
            int slot = map.indexOf(vertex);
            long old = slot >= 0 ? map.indexGet(slot) : 0L;
            long now = set ? old | mask : old & ~mask;
            if (now == old) {
                return false;
            }
            if (slot >= 0) {
                map.indexReplace(slot, now);
            } else {
                map.indexInsert(slot, vertex, now);
            }
        } else {
            long[] more = rest(partition, vertex, set);
            if (more == null) {
                return false;
            }
            long old = more[w - 1];
            more[w - 1] = set ? old | mask : old & ~mask;
            if (more[w - 1] == old) {
                return false;
            }
        }
        dirty[partition] = true;
        return true;
    }

    /** Marks {@code site} as holding a replica; true when it did not before. */
    public boolean hold(int partition, long vertex, int site) {
        int bit = site + 1;
        return change(partition, vertex, bit >>> 6, 1L << bit, true);
    }

    /** Marks {@code site} as holding no replica; true when it held one. */
    public boolean release(int partition, long vertex, int site) {
        int bit = site + 1;
        return change(partition, vertex, bit >>> 6, 1L << bit, false);
    }

    /** Whether {@code site} holds a replica. */
    public boolean holds(int partition, long vertex, int site) {
        int bit = site + 1;
        return (word(partition, vertex, bit >>> 6) & (1L << bit)) != 0;
    }

    /** Notes that the vertex has an attribute record. */
    public void markRecord(int partition, long vertex) {
        change(partition, vertex, 0, 1L, true);
    }

    /** Whether the vertex has an attribute record. */
    public boolean hasRecord(int partition, long vertex) {
        return (word(partition, vertex, 0) & 1L) != 0;
    }

    /** The sites holding a replica of the vertex, ascending. */
    public int[] sites(int partition, long vertex) {
        IntList sites = new IntList();
        for (int w = 0; w < words; w++) {
            long bits = word(partition, vertex, w);
            if (w == 0) {
                bits &= ~1L;
            }
            while (bits != 0) {
                int bit = Long.numberOfTrailingZeros(bits);
                sites.add(w * 64 + bit - 1);
                bits &= bits - 1;
            }
        }
        return sites.toArray();
    }

    /**
     * Forgets the vertex (deleted): its record mark and replicas; returns the sites that held one.
     */
    public int[] forget(int partition, long vertex) {
        int[] held = sites(partition, vertex);
        if (first[partition] != null && first[partition].containsKey(vertex)) {
            first[partition].remove(vertex);
            dirty[partition] = true;
        }
        if (rest[partition] != null && rest[partition].remove(vertex) != null) {
            dirty[partition] = true;
        }
        return held;
    }

    /** Forgets every replica, keeping the record marks (the sites changed). */
    public void releaseAll() {
        for (int p = 0; p < first.length; p++) {
            if (first[p] != null) {
                for (LongLongCursor c : first[p]) {
                    first[p].indexReplace(c.index, c.value & 1L);
                }
                dirty[p] = true;
            }
            rest[p] = null;
        }
    }

    /** Partitions changed since they were last encoded. */
    public boolean dirty(int partition) {
        return dirty[partition];
    }

    public int partitions() {
        return first.length;
    }

    /** The partition's value to store (null when it holds nothing), and it is no longer dirty. */
    public byte[] encode(int partition) {
        dirty[partition] = false;
        LongLongHashMap map = first[partition];
        if (map == null || map.isEmpty()) {
            return null;
        }
        ByteBuffer out =
                ByteBuffer.allocate(1 + 2 * Integer.BYTES + map.size() * (1 + words) * Long.BYTES);
        out.put(VERSION).putInt(words).putInt(map.size());
        for (LongLongCursor c : map) {
            out.putLong(c.key).putLong(c.value);
            for (int w = 1; w < words; w++) {
                out.putLong(word(partition, c.key, w));
            }
        }
        return out.array();
    }

    /**
     * Restores a partition's stored value; with {@code recordsOnly} (written for other sites) only
     * the record marks are kept.
     */
    public void restore(int partition, byte[] value, boolean recordsOnly) {
        ByteBuffer in = ByteBuffer.wrap(value);
        byte version = in.get();
        if (version != VERSION) {
            throw new IllegalStateException("unknown replica holders version " + version);
        }
        int storedWords = in.getInt();
        int n = in.getInt();
        for (int i = 0; i < n; i++) {
            long vertex = in.getLong();
            for (int w = 0; w < storedWords; w++) {
                long word = in.getLong();
                if (recordsOnly) {
                    word = w == 0 ? word & 1L : 0L;
                }
                if (w < words && (word != 0 || w == 0)) {
                    if (w == 0) {
                        first(partition).put(vertex, word);
                    } else {
                        rest(partition, vertex, true)[w - 1] = word;
                    }
                }
            }
        }
        if (recordsOnly) {
            dirty[partition] = true;
        }
    }
}

package io.gnnstream.operators.internal;

import com.carrotsearch.hppc.LongObjectHashMap;
import com.carrotsearch.hppc.cursors.LongObjectCursor;
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
    private final LongObjectHashMap<long[]>[] partitions;
    private final boolean[] dirty;

    @SuppressWarnings("unchecked")
    public ReplicaHolders(int partitions, int sites) {
        this.words = (sites + 1 + 63) / 64;
        this.partitions = new LongObjectHashMap[partitions];
        this.dirty = new boolean[partitions];
    }

    private long[] bits(int partition, long vertex, boolean create) {
        LongObjectHashMap<long[]> map = partitions[partition];
        if (map == null) {
            if (!create) {
                return null;
            }
            map = partitions[partition] = new LongObjectHashMap<>();
        }
        long[] bits = map.get(vertex);
        if (bits == null && create) {
            bits = new long[words];
            map.put(vertex, bits);
        }
        return bits;
    }

    /** Marks {@code site} as holding a replica; true when it did not before. */
    public boolean hold(int partition, long vertex, int site) {
        long[] bits = bits(partition, vertex, true);
        int bit = site + 1;
        long mask = 1L << bit;
        if ((bits[bit >>> 6] & mask) != 0) {
            return false;
        }
        bits[bit >>> 6] |= mask;
        dirty[partition] = true;
        return true;
    }

    /** Marks {@code site} as holding no replica; true when it held one. */
    public boolean release(int partition, long vertex, int site) {
        long[] bits = bits(partition, vertex, false);
        int bit = site + 1;
        long mask = 1L << bit;
        if (bits == null || (bits[bit >>> 6] & mask) == 0) {
            return false;
        }
        bits[bit >>> 6] &= ~mask;
        dirty[partition] = true;
        return true;
    }

    /** Whether {@code site} holds a replica. */
    public boolean holds(int partition, long vertex, int site) {
        long[] bits = bits(partition, vertex, false);
        int bit = site + 1;
        return bits != null && (bits[bit >>> 6] & (1L << bit)) != 0;
    }

    /** Notes that the vertex has an attribute record. */
    public void markRecord(int partition, long vertex) {
        long[] bits = bits(partition, vertex, true);
        if ((bits[0] & 1L) == 0) {
            bits[0] |= 1L;
            dirty[partition] = true;
        }
    }

    /** Whether the vertex has an attribute record. */
    public boolean hasRecord(int partition, long vertex) {
        long[] bits = bits(partition, vertex, false);
        return bits != null && (bits[0] & 1L) != 0;
    }

    /** The vertex's bits (shared, not to be changed), or null when it has neither record nor replica. */
    public long[] of(int partition, long vertex) {
        return bits(partition, vertex, false);
    }

    /** Whether the bits of {@link #of} name {@code site}. */
    public static boolean names(long[] bits, int site) {
        int bit = site + 1;
        return bits != null && (bits[bit >>> 6] & (1L << bit)) != 0;
    }

    /** Forgets every replica, keeping the record marks (the sites changed). */
    public void releaseAll() {
        for (int p = 0; p < partitions.length; p++) {
            if (partitions[p] == null) {
                continue;
            }
            for (LongObjectCursor<long[]> c : partitions[p]) {
                long record = c.value[0] & 1L;
                java.util.Arrays.fill(c.value, 0L);
                c.value[0] = record;
            }
            dirty[p] = true;
        }
    }

    /** Partitions changed since they were last encoded. */
    public boolean dirty(int partition) {
        return dirty[partition];
    }

    public int partitions() {
        return partitions.length;
    }

    /** The partition's value to store (null when it holds nothing), and it is no longer dirty. */
    public byte[] encode(int partition) {
        dirty[partition] = false;
        LongObjectHashMap<long[]> map = partitions[partition];
        if (map == null || map.isEmpty()) {
            return null;
        }
        ByteBuffer out = ByteBuffer.allocate(1 + 2 * Integer.BYTES + map.size() * (1 + words) * Long.BYTES);
        out.put(VERSION).putInt(words).putInt(map.size());
        for (LongObjectCursor<long[]> c : map) {
            out.putLong(c.key);
            for (long w : c.value) {
                out.putLong(w);
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
            long[] bits = bits(partition, vertex, true);
            for (int w = 0; w < storedWords; w++) {
                long word = in.getLong();
                if (recordsOnly) {
                    word = w == 0 ? word & 1L : 0L;
                }
                if (w < words) {
                    bits[w] |= word;
                }
            }
        }
        if (recordsOnly) {
            dirty[partition] = true;
        }
    }
}

package io.gnnstream.operators.internal;

import com.carrotsearch.hppc.LongHashSet;
import com.carrotsearch.hppc.LongObjectHashMap;
import com.carrotsearch.hppc.cursors.LongCursor;
import com.carrotsearch.hppc.cursors.LongObjectCursor;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * The replica router's record of the edges between partitions, per logical partition of their
 * source (see {@code ReplicaRouter}): an append-only log of operations, {@code (source, op)} pairs
 * with {@code op} as in {@code EdgeBundle#op}. An edge costs an append to a heap tail; the tails go
 * to keyed state as chunks ({@link #flush}), and a partition's chunks are replayed into its current
 * edges only when they are needed ({@link #compact}): to decide drops after removals, to make
 * replicas for new sites after a rescale, and to fold duplicates and removals once the log has
 * grown past twice its last compacted size. A compaction writes the current edges back as one
 * chunk.
 *
 * <p>Chunk format, version 1: a version byte, an int count {@code n}, then {@code n} pairs of longs
 * (source, op), big-endian.
 */
public final class CutEdgeLog {

    /** Where the chunks of a partition are kept. */
    public interface Chunks {
        /** The partition's chunks in the order they were appended (empty when none). */
        Iterable<byte[]> read(int partition) throws Exception;

        void append(int partition, byte[] chunk) throws Exception;

        /** Replaces all chunks of the partition by {@code chunks} (none: empty list). */
        void replace(int partition, List<byte[]> chunks) throws Exception;
    }

    /** Operations appended to a partition before its log may be compacted for growth alone. */
    public static final int MIN_COMPACTION = 1 << 16;

    private static final byte VERSION = 1;

    private final LongList[] tails;

    /** Operations appended since the partition's last compaction (or restore). */
    private final long[] sinceCompaction;

    /** Edges the partition's last compaction left. */
    private final long[] compacted;

    private final int flushAt;
    private long tailSize;

    /**
     * A log over {@code partitions}; its tails go to state once they hold {@code flushAt}
     * operations.
     */
    public CutEdgeLog(int partitions, int flushAt) {
        if (flushAt < 1) {
            throw new IllegalArgumentException("flushAt must be >= 1, got " + flushAt);
        }
        this.tails = new LongList[partitions];
        this.sinceCompaction = new long[partitions];
        this.compacted = new long[partitions];
        this.flushAt = flushAt;
    }

    /** Appends an operation; returns true when the tails should be flushed. */
    public boolean append(int partition, long source, long op) {
        LongList tail = tails[partition];
        if (tail == null) {
            tail = tails[partition] = new LongList();
        }
        tail.add(source);
        tail.add(op);
        sinceCompaction[partition]++;
        return ++tailSize >= flushAt;
    }

    /** Operations in the heap tails. */
    public long tailSize() {
        return tailSize;
    }

    /** Whether the partition has operations in its heap tail. */
    public boolean hasTail(int partition) {
        return tails[partition] != null && tails[partition].size() > 0;
    }

    /**
     * Whether the partition's log grew past twice its last compacted size (and {@link
     * #MIN_COMPACTION}).
     */
    public boolean grown(int partition) {
        return sinceCompaction[partition] > Math.max(MIN_COMPACTION, compacted[partition]);
    }

    /** Appends every non-empty tail to its partition's chunks. */
    public void flush(Chunks chunks) throws Exception {
        for (int p = 0; p < tails.length; p++) {
            LongList tail = tails[p];
            if (tail != null && tail.size() > 0) {
                chunks.append(p, encode(tail.toArray()));
                tail.clear();
            }
        }
        tailSize = 0;
    }

    /**
     * Replays the partition's chunks and tail into its current edges, per source the set of
     * destinations, and stores them as one chunk in place of the log.
     */
    public LongObjectHashMap<LongHashSet> compact(int partition, Chunks chunks) throws Exception {
        LongObjectHashMap<LongHashSet> edges = new LongObjectHashMap<>();
        for (byte[] chunk : chunks.read(partition)) {
            replay(chunk, edges);
        }
        LongList tail = tails[partition];
        if (tail != null) {
            long[] ops = tail.toArray();
            for (int i = 0; i < ops.length; i += 2) {
                apply(edges, ops[i], ops[i + 1]);
            }
            tailSize -= ops.length / 2;
            tail.clear();
        }
        long count = 0;
        for (LongObjectCursor<LongHashSet> c : edges) {
            count += c.value.size();
        }
        long[] pairs = new long[(int) (2 * count)];
        int at = 0;
        for (LongObjectCursor<LongHashSet> c : edges) {
            for (LongCursor v : c.value) {
                pairs[at++] = c.key;
                pairs[at++] = v.value;
            }
        }
        chunks.replace(partition, count == 0 ? List.of() : List.of(encode(pairs)));
        compacted[partition] = count;
        sinceCompaction[partition] = 0;
        return edges;
    }

    private static void apply(LongObjectHashMap<LongHashSet> edges, long source, long op) {
        if (op < 0) {
            LongHashSet out = edges.get(source);
            if (out != null && out.remove(-op - 1) && out.isEmpty()) {
                edges.remove(source);
            }
        } else {
            LongHashSet out = edges.get(source);
            if (out == null) {
                out = new LongHashSet(4);
                edges.put(source, out);
            }
            out.add(op);
        }
    }

    private static void replay(byte[] chunk, LongObjectHashMap<LongHashSet> edges) {
        ByteBuffer in = ByteBuffer.wrap(chunk);
        byte version = in.get();
        if (version != VERSION) {
            throw new IllegalStateException("unknown cut-edge log chunk version " + version);
        }
        int n = in.getInt();
        for (int i = 0; i < n; i++) {
            apply(edges, in.getLong(), in.getLong());
        }
    }

    /** One chunk of {@code (source, op)} pairs. */
    static byte[] encode(long[] pairs) {
        ByteBuffer out = ByteBuffer.allocate(1 + Integer.BYTES + pairs.length * Long.BYTES);
        out.put(VERSION).putInt(pairs.length / 2);
        out.asLongBuffer().put(pairs);
        return out.array();
    }
}

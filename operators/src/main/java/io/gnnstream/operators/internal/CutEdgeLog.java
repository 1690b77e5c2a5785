package io.gnnstream.operators.internal;

import com.carrotsearch.hppc.LongHashSet;
import com.carrotsearch.hppc.LongLongHashMap;
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
 * edges only when they are needed ({@link #compact}): to decide drops after removals and deletions,
 * to make replicas for new sites after a rescale, and to fold duplicates and removals once the log
 * has grown past twice its last compacted size. A compaction writes the current edges back as one
 * chunk. A vertex deletion is a marker ({@link #appendDeletion}) in every partition's log: the
 * replay drops every edge into or out of the vertex logged before it.
 *
 * <p>Chunk format, version 2: a version byte, an int count {@code n}, then {@code n} pairs of longs
 * (source, op), big-endian; a negative source {@code -1 - v} is the deletion of {@code v}. Version
 * 1, the same without deletions, is still read.
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

    private static final byte VERSION = 2;

    /** Chunks of this version hold no deletion markers. */
    private static final byte WITHOUT_DELETIONS = 1;

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

    /**
     * Appends the deletion of {@code vertex}: a replay drops the partition's edges into and out of
     * it that were logged before; returns true when the tails should be flushed.
     */
    public boolean appendDeletion(int partition, long vertex) {
        return append(partition, -1 - vertex, 0);
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
        return compact(partition, chunks, new LongHashSet());
    }

    /**
     * As {@link #compact(int, Chunks)}; adds to {@code cutOff} the sources of the edges a deletion
     * dropped into a deleted vertex.
     */
    public LongObjectHashMap<LongHashSet> compact(int partition, Chunks chunks, LongHashSet cutOff)
            throws Exception {
        List<long[]> segments = new java.util.ArrayList<>();
        for (byte[] chunk : chunks.read(partition)) {
            segments.add(decode(chunk));
        }
        LongList tail = tails[partition];
        if (tail != null) {
            segments.add(tail.toArray());
            tailSize -= tail.size() / 2;
            tail.clear();
        }
        // The position of each deleted vertex's last deletion: earlier edges of it are dropped.
        LongLongHashMap deletedAt = new LongLongHashMap();
        long position = 0;
        for (long[] ops : segments) {
            for (int i = 0; i < ops.length; i += 2, position++) {
                if (ops[i] < 0) {
                    deletedAt.put(-1 - ops[i], position);
                }
            }
        }
        LongObjectHashMap<LongHashSet> edges = new LongObjectHashMap<>();
        position = 0;
        for (long[] ops : segments) {
            for (int i = 0; i < ops.length; i += 2, position++) {
                long source = ops[i];
                long op = ops[i + 1];
                if (source < 0) {
                    continue;
                }
                if (!deletedAt.isEmpty()) {
                    long target = op >= 0 ? op : -op - 1;
                    if (deletedAt.getOrDefault(source, -1) > position) {
                        continue;
                    }
                    if (deletedAt.getOrDefault(target, -1) > position) {
                        if (op >= 0) {
                            cutOff.add(source);
                        }
                        continue;
                    }
                }
                apply(edges, source, op);
            }
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

    private static long[] decode(byte[] chunk) {
        ByteBuffer in = ByteBuffer.wrap(chunk);
        byte version = in.get();
        if (version != VERSION && version != WITHOUT_DELETIONS) {
            throw new IllegalStateException("unknown cut-edge log chunk version " + version);
        }
        long[] ops = new long[2 * in.getInt()];
        in.asLongBuffer().get(ops);
        return ops;
    }

    /** One chunk of {@code (source, op)} pairs. */
    static byte[] encode(long[] pairs) {
        ByteBuffer out = ByteBuffer.allocate(1 + Integer.BYTES + pairs.length * Long.BYTES);
        out.put(VERSION).putInt(pairs.length / 2);
        out.asLongBuffer().put(pairs);
        return out.array();
    }
}

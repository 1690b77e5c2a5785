package io.gnnstream.operators.store;

import com.carrotsearch.hppc.LongObjectHashMap;
import io.gnnstream.operators.internal.LongList;
import io.gnnstream.state.VertexKey;
import io.gnnstream.state.VertexPartitioner;
import java.util.Arrays;

/**
 * Edge additions and removals the GraphStore has accepted but not yet written, per destination
 * vertex, in arrival order: an operation is the source ({@code >= 0}) of an addition or {@code -1 -
 * source} of a removal ({@code InAdjacency#applyAll}). Writing all buffered operations of a vertex
 * at once costs one read-modify-write of its adjacency instead of one per edge. The owner drains
 * the buffer before anything reads the adjacency or snapshots it, so the buffer never needs to be
 * part of a checkpoint.
 *
 * <p>A drain visits the vertices in the order of their keys in RocksDB (partition, then id): the
 * memtable's skip list then finds each key next to the one before, in cache, instead of searching
 * from its head at a random place.
 */
final class EdgeBuffer {

    private final int capacity;
    private final VertexPartitioner partitioner;
    private final LongObjectHashMap<LongList> pending = new LongObjectHashMap<>();
    private int size;

    /**
     * @param capacity edges held before {@link #add} reports the buffer full (0: never buffer)
     * @param partitioner the partitioner of the vertices' keys, for the order of a drain
     */
    EdgeBuffer(int capacity, VertexPartitioner partitioner) {
        this.capacity = capacity;
        this.partitioner = partitioner;
    }

    /**
     * Buffers the addition of {@code src -> dst}; returns true when the buffer is full and should
     * be drained.
     */
    boolean add(long dst, long src) {
        return append(dst, src);
    }

    /**
     * Buffers the removal of {@code src -> dst}; returns true when the buffer is full and should be
     * drained.
     */
    boolean remove(long dst, long src) {
        return append(dst, -1 - src);
    }

    private boolean append(long dst, long op) {
        LongList list = pending.get(dst);
        if (list == null) {
            list = new LongList();
            pending.put(dst, list);
        }
        list.add(op);
        size++;
        return size >= capacity;
    }

    /**
     * Whether {@code dst} has buffered operations whose last is of the other kind than a {@code
     * removal} (or addition) would be.
     */
    boolean switchesKind(long dst, boolean removal) {
        LongList list = pending.get(dst);
        return list != null && list.size() > 0 && (list.last() < 0) != removal;
    }

    /** Takes the buffered operations of {@code dst} out of the buffer, in arrival order. */
    long[] take(long dst) {
        LongList list = pending.remove(dst);
        if (list == null) {
            return new long[0];
        }
        size -= list.size();
        return list.toArray();
    }

    boolean isEmpty() {
        return size == 0;
    }

    int size() {
        return size;
    }

    /**
     * Empties the buffer, handing each vertex's key and operations to {@code writer} in arrival
     * order, vertex after vertex in key order: by partition (a counting sort), then by id.
     */
    void drain(Writer writer) throws Exception {
        long[] destinations = pending.keys().toArray();
        int partitions = partitioner.numPartitions();
        int[] partitionOf = new int[destinations.length];
        int[] start = new int[partitions + 1];
        for (int i = 0; i < destinations.length; i++) {
            partitionOf[i] = partitioner.partition(destinations[i]);
            start[partitionOf[i] + 1]++;
        }
        for (int p = 0; p < partitions; p++) {
            start[p + 1] += start[p];
        }
        long[] sorted = new long[destinations.length];
        int[] next = Arrays.copyOf(start, partitions);
        for (int i = 0; i < destinations.length; i++) {
            sorted[next[partitionOf[i]]++] = destinations[i];
        }
        for (int p = 0; p < partitions; p++) {
            Arrays.sort(sorted, start[p], start[p + 1]);
            for (int i = start[p]; i < start[p + 1]; i++) {
                writer.write(new VertexKey(p, sorted[i]), pending.get(sorted[i]).toArray());
            }
        }
        pending.clear();
        size = 0;
    }

    /** Writes the buffered operations of one vertex. */
    interface Writer {
        void write(VertexKey dst, long[] ops) throws Exception;
    }
}

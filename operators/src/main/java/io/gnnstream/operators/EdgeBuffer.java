package io.gnnstream.operators;

import io.gnnstream.operators.internal.LongList;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Edge additions the GraphStore has accepted but not yet written, per destination vertex, in
 * arrival order. Writing all buffered in-neighbours of a vertex at once costs one read-modify-write
 * of its adjacency instead of one per edge. The owner drains the buffer before anything reads the
 * adjacency or snapshots it, so the buffer never needs to be part of a checkpoint.
 */
final class EdgeBuffer {

    private final int capacity;
    private final Map<Long, LongList> pending = new LinkedHashMap<>();
    private int size;

    /** @param capacity edges held before {@link #add} reports the buffer full (0: never buffer) */
    EdgeBuffer(int capacity) {
        this.capacity = capacity;
    }

    /** Buffers {@code src -> dst}; returns true when the buffer is full and should be drained. */
    boolean add(long dst, long src) {
        pending.computeIfAbsent(dst, v -> new LongList()).add(src);
        size++;
        return size >= capacity;
    }

    /** Removes and returns the buffered in-neighbours of {@code dst}, or null if there are none. */
    long[] take(long dst) {
        LongList list = pending.remove(dst);
        if (list == null) {
            return null;
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

    /** Empties the buffer, handing each vertex's in-neighbours to {@code writer} in arrival order. */
    void drain(Writer writer) throws Exception {
        for (Map.Entry<Long, LongList> e : pending.entrySet()) {
            writer.write(e.getKey(), e.getValue().toArray());
        }
        pending.clear();
        size = 0;
    }

    /** Writes the buffered in-neighbours of one vertex. */
    interface Writer {
        void write(long dst, long[] sources) throws Exception;
    }
}

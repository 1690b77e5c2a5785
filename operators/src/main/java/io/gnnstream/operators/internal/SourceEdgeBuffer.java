package io.gnnstream.operators.internal;

import io.gnnstream.state.VertexPartitioner;
import java.util.Arrays;

/**
 * Edge operations buffered by appending to flat arrays, drained grouped by source vertex: sources in
 * the order of their keys in RocksDB (partition, then id), each source's operations in arrival
 * order. Appending costs no lookup, however random the sources arrive; a drain sorts the indices
 * with stable radix passes (the bytes of the ids that are in use, then the partition).
 */
public final class SourceEdgeBuffer {

    /** Receives one source's operations, {@code ops[order[from]]} to {@code ops[order[to - 1]]}. */
    @FunctionalInterface
    public interface Group {
        void apply(long source, long[] ops, int[] order, int from, int to) throws Exception;
    }

    private static final int INITIAL = 4096;

    private final VertexPartitioner partitioner;
    private final int capacity;
    private long[] sources = new long[0];
    private long[] ops = new long[0];
    private int[] partitions = new int[0];
    private int size;

    public SourceEdgeBuffer(VertexPartitioner partitioner, int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be >= 1, got " + capacity);
        }
        this.partitioner = partitioner;
        this.capacity = capacity;
    }

    /** Buffers an operation of {@code source}; returns true when the buffer is full and should be drained. */
    public boolean add(long source, int partition, long op) {
        if (size == sources.length) {
            int grown = (int) Math.min(capacity, Math.max(INITIAL, 2L * sources.length));
            sources = Arrays.copyOf(sources, grown);
            ops = Arrays.copyOf(ops, grown);
            partitions = Arrays.copyOf(partitions, grown);
        }
        sources[size] = source;
        ops[size] = op;
        partitions[size] = partition;
        size++;
        return size >= capacity;
    }

    public int size() {
        return size;
    }

    /** Hands every source's operations to {@code group}, in key order, and empties the buffer. */
    public void drain(Group group) throws Exception {
        if (size == 0) {
            return;
        }
        int[] order = new int[size];
        for (int i = 0; i < size; i++) {
            order[i] = i;
        }
        int[] spare = new int[size];
        long used = 0;
        for (int i = 0; i < size; i++) {
            used |= sources[i];
        }
        for (int shift = 0; shift < Long.SIZE && (used >>> shift) != 0; shift += 8) {
            int s = shift;
            countingPass(order, spare, 256, i -> (int) (sources[i] >>> s) & 0xFF);
            int[] t = order;
            order = spare;
            spare = t;
        }
        countingPass(order, spare, partitioner.numPartitions(), i -> partitions[i]);
        order = spare;
        int from = 0;
        while (from < size) {
            long source = sources[order[from]];
            int to = from + 1;
            while (to < size && sources[order[to]] == source) {
                to++;
            }
            group.apply(source, ops, order, from, to);
            from = to;
        }
        size = 0;
    }

    private interface Digit {
        int of(int index);
    }

    /** A stable counting sort of {@code in} by {@code digit} into {@code out}. */
    private void countingPass(int[] in, int[] out, int buckets, Digit digit) {
        int[] start = new int[buckets + 1];
        for (int k = 0; k < size; k++) {
            start[digit.of(in[k]) + 1]++;
        }
        for (int b = 0; b < buckets; b++) {
            start[b + 1] += start[b];
        }
        for (int k = 0; k < size; k++) {
            int i = in[k];
            out[start[digit.of(i)]++] = i;
        }
    }
}

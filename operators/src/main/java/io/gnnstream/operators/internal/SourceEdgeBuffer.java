package io.gnnstream.operators.internal;

import io.gnnstream.state.VertexPartitioner;
import java.util.Arrays;

/**
 * Edge operations buffered by appending to flat arrays, drained grouped by source vertex: sources in
 * the order of their keys in RocksDB (partition, then id), each source's operations in arrival
 * order. Appending costs no lookup, however random the sources arrive; a drain radix-sorts one key
 * per entry (partition, source, arrival index) by its partition and source bits, the entries being
 * in arrival order already, or, for ids too wide for that, the indices in stable passes (each byte
 * of the source, then the partition).
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
        int[] order = sortedIndices();
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

    /** The entries' indices by partition, source, then arrival. */
    private int[] sortedIndices() {
        long used = 0;
        for (int i = 0; i < size; i++) {
            used |= sources[i];
        }
        int sourceBits = Long.SIZE - Long.numberOfLeadingZeros(used);
        int partitionBits = Integer.SIZE - Integer.numberOfLeadingZeros(partitioner.numPartitions() - 1);
        int indexBits = Integer.SIZE - Integer.numberOfLeadingZeros(size - 1);
        int bits = partitionBits + sourceBits + indexBits;
        int[] order = new int[size];
        if (bits < Long.SIZE) {
            // One key per entry (partition | source | index): a radix sort of longs read in sequence.
            long[] keys = new long[size];
            for (int i = 0; i < size; i++) {
                keys[i] = ((long) partitions[i] << (sourceBits + indexBits)) | (sources[i] << indexBits) | i;
            }
            keys = radixSort(keys, indexBits, bits);
            long mask = (1L << indexBits) - 1;
            for (int k = 0; k < size; k++) {
                order[k] = (int) (keys[k] & mask);
            }
            return order;
        }
        // Wide ids: stable passes over the indices, by each byte of the source, then by partition.
        for (int i = 0; i < size; i++) {
            order[i] = i;
        }
        int[] spare = new int[size];
        for (int shift = 0; shift < sourceBits; shift += 8) {
            int[] start = new int[257];
            for (int k = 0; k < size; k++) {
                start[(int) (sources[order[k]] >>> shift & 0xFF) + 1]++;
            }
            prefixSums(start);
            for (int k = 0; k < size; k++) {
                int i = order[k];
                spare[start[(int) (sources[i] >>> shift & 0xFF)]++] = i;
            }
            int[] t = order;
            order = spare;
            spare = t;
        }
        int[] start = new int[partitioner.numPartitions() + 1];
        for (int k = 0; k < size; k++) {
            start[partitions[order[k]] + 1]++;
        }
        prefixSums(start);
        for (int k = 0; k < size; k++) {
            int i = order[k];
            spare[start[partitions[i]]++] = i;
        }
        return spare;
    }

    /**
     * Sorts non-negative keys by their bits {@code from} to {@code to}, in passes of at most 12 bits.
     * The passes are stable, so keys that arrive in the order of their lower bits keep it.
     */
    private long[] radixSort(long[] keys, int from, int to) {
        long[] spare = new long[size];
        int passes = (to - from + 11) / 12;
        for (int pass = 0; pass < passes; pass++) {
            int shift = from + pass * (to - from) / passes;
            int mask = (1 << (from + (pass + 1) * (to - from) / passes - shift)) - 1;
            int[] start = new int[mask + 2];
            for (int k = 0; k < size; k++) {
                start[((int) (keys[k] >>> shift) & mask) + 1]++;
            }
            prefixSums(start);
            for (int k = 0; k < size; k++) {
                spare[start[(int) (keys[k] >>> shift) & mask]++] = keys[k];
            }
            long[] t = keys;
            keys = spare;
            spare = t;
        }
        return keys;
    }

    private static void prefixSums(int[] start) {
        for (int b = 0; b + 1 < start.length; b++) {
            start[b + 1] += start[b];
        }
    }
}

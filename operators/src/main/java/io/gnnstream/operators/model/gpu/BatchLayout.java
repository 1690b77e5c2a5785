package io.gnnstream.operators.model.gpu;

import io.gnnstream.operators.messages.MiniBatch;

/**
 * A {@link MiniBatch}'s integer arrays as one upload: per hop its CSR (offsets from 0) and the
 * reverse CSR that lets a GPU gather each source's gradient from its destinations in a fixed order
 * instead of scattering with atomics, then the hop-1 {@code summedNeighbours} (if any) and the
 * seeds' labels (where present). Reused across batches; its array only grows. Not thread-safe.
 */
public final class BatchLayout {

    private int[] ints = new int[0];
    private int size;
    private int hops;
    private int[] indptrAt = new int[0];
    private int[] indicesAt = new int[0];
    private int[] revPtrAt = new int[0];
    private int[] revDstAt = new int[0];
    private int summedAt;
    private int labelsAt;

    /**
     * Lays out {@code batch}, with the reverse CSR of hops {@code 1..reverseHops} too: training
     * needs it for every hop but the last, whose sources (the features) take no gradient; inference
     * needs none.
     */
    public BatchLayout build(MiniBatch batch, int reverseHops) {
        hops = batch.numLayers;
        if (indptrAt.length < hops) {
            indptrAt = new int[hops];
            indicesAt = new int[hops];
            revPtrAt = new int[hops];
            revDstAt = new int[hops];
        }
        long need = 0;
        for (int h = 1; h <= hops; h++) {
            int edges = edgeCount(batch, h);
            need += batch.numDst(h) + 1L + edges;
            if (h <= reverseHops) {
                need += batch.numSrc(h) + 1L + edges;
            }
        }
        need += batch.summedNeighbours != null ? batch.numDst(1) : 0;
        need += batch.labels != null ? batch.numSeeds() : 0;
        if (need > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("batch too large for one upload: " + need + " ints");
        }
        if (ints.length < need) {
            ints = new int[(int) Math.min(Integer.MAX_VALUE - 8, need + need / 4)];
        }
        size = 0;
        for (int h = 1; h <= hops; h++) {
            layoutHop(batch, h, h <= reverseHops);
        }
        summedAt = -1;
        if (batch.summedNeighbours != null) {
            summedAt = size;
            System.arraycopy(batch.summedNeighbours, 0, ints, size, batch.numDst(1));
            size += batch.numDst(1);
        }
        labelsAt = -1;
        if (batch.labels != null) {
            labelsAt = size;
            System.arraycopy(batch.labels, 0, ints, size, batch.numSeeds());
            size += batch.numSeeds();
        }
        return this;
    }

    private static int edgeCount(MiniBatch b, int hop) {
        int nDst = b.numDst(hop);
        return nDst == 0 ? 0 : b.edgeEnd(hop, nDst - 1) - b.edgeStart(hop, 0);
    }

    private void layoutHop(MiniBatch b, int hop, boolean reverse) {
        int nDst = b.numDst(hop);
        int first = nDst == 0 ? 0 : b.edgeStart(hop, 0);
        int edges = edgeCount(b, hop);
        indptrAt[hop - 1] = size;
        for (int i = 0; i < nDst; i++) {
            ints[size + i] = b.edgeStart(hop, i) - first;
        }
        ints[size + nDst] = edges;
        size += nDst + 1;
        indicesAt[hop - 1] = size;
        System.arraycopy(b.indices, first, ints, size, edges);
        size += edges;
        if (!reverse) {
            revPtrAt[hop - 1] = -1;
            revDstAt[hop - 1] = -1;
            return;
        }
        int nSrc = b.numSrc(hop);
        int ptr = size;
        revPtrAt[hop - 1] = ptr;
        java.util.Arrays.fill(ints, ptr, ptr + nSrc + 1, 0);
        int idx = indicesAt[hop - 1];
        for (int k = 0; k < edges; k++) {
            int u = ints[idx + k];
            if (u < 0 || u >= nSrc) {
                throw new IllegalArgumentException(
                        "hop " + hop + " edge " + k + " names source " + u + " of " + nSrc);
            }
            ints[ptr + u + 1]++;
        }
        for (int u = 0; u < nSrc; u++) {
            ints[ptr + u + 1] += ints[ptr + u];
        }
        size += nSrc + 1;
        int dst = size;
        revDstAt[hop - 1] = dst;
        // A cursor per source, kept in the slots of revPtr shifted by one while filling.
        int ip = indptrAt[hop - 1];
        for (int i = 0; i < nDst; i++) {
            for (int k = ints[ip + i]; k < ints[ip + i + 1]; k++) {
                int u = ints[idx + k];
                ints[dst + ints[ptr + u]++] = i;
            }
        }
        for (int u = nSrc; u > 0; u--) {
            ints[ptr + u] = ints[ptr + u - 1];
        }
        ints[ptr] = 0;
        size += edges;
    }

    /** The laid-out ints, {@code [0, size())}. */
    public int[] ints() {
        return ints;
    }

    public int size() {
        return size;
    }

    /** Offset of hop {@code hop}'s {@code numDst + 1} CSR offsets. */
    public int indptr(int hop) {
        return indptrAt[hop - 1];
    }

    /** Offset of hop {@code hop}'s source indices. */
    public int indices(int hop) {
        return indicesAt[hop - 1];
    }

    /** Offset of hop {@code hop}'s {@code numSrc + 1} reverse offsets, or -1 without reverse. */
    public int revPtr(int hop) {
        return revPtrAt[hop - 1];
    }

    /** Offset of hop {@code hop}'s destinations grouped by source, or -1 without reverse. */
    public int revDst(int hop) {
        return revDstAt[hop - 1];
    }

    /** Offset of the hop-1 summed-neighbour counts, or -1 when the batch has none. */
    public int summed() {
        return summedAt;
    }

    /** Offset of the seeds' labels, or -1 when the batch has none (inference blocks). */
    public int labels() {
        return labelsAt;
    }
}

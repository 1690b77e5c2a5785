package io.gnnstream.operators.store;

import com.carrotsearch.hppc.LongArrayDeque;
import com.carrotsearch.hppc.LongLongHashMap;

/**
 * The vertices incremental predictions still have to recompute, per model layer, each with the
 * earliest change time (ms) that marked it. A vertex marked again before it is taken keeps its
 * place (coalescing). Blocks are taken in first-mark order from the layer whose oldest mark is the
 * oldest of all, so that a steady stream of new changes at the first layer never starves the later
 * layers of the changes before them: a change's wait is bounded by the work marked before it. Not
 * thread-safe.
 */
final class PendingMarks {

    private final LongLongHashMap[] times;
    private final LongArrayDeque[] order;

    PendingMarks(int layers) {
        times = new LongLongHashMap[layers];
        order = new LongArrayDeque[layers];
        for (int j = 0; j < layers; j++) {
            times[j] = new LongLongHashMap();
            order[j] = new LongArrayDeque();
        }
    }

    int layers() {
        return times.length;
    }

    /** Marks {@code v} at {@code layer} with change time {@code changedAt} (the earliest kept). */
    void mark(int layer, long v, long changedAt) {
        LongLongHashMap t = times[layer];
        int slot = t.indexOf(v);
        if (slot >= 0) {
            if (changedAt < t.indexGet(slot)) {
                t.indexReplace(slot, changedAt);
            }
        } else {
            t.indexInsert(slot, v, changedAt);
            order[layer].addLast(v);
        }
    }

    /** Whether {@code v} waits at {@code layer}. */
    boolean marked(int layer, long v) {
        return times[layer].containsKey(v);
    }

    boolean isEmpty() {
        for (LongLongHashMap t : times) {
            if (!t.isEmpty()) {
                return false;
            }
        }
        return true;
    }

    /** The layer to take from next: the one whose first-marked vertex has the oldest change. */
    int nextLayer() {
        int best = -1;
        long oldest = Long.MAX_VALUE;
        for (int j = 0; j < order.length; j++) {
            if (!order[j].isEmpty()) {
                long t = times[j].get(order[j].getFirst());
                if (best < 0 || t < oldest) {
                    best = j;
                    oldest = t;
                }
            }
        }
        return best;
    }

    /**
     * Takes up to {@code max} vertices of {@code layer} in first-mark order into {@code vertices}
     * and their change times into {@code changedAt}; returns how many.
     */
    int take(int layer, int max, long[] vertices, long[] changedAt) {
        LongArrayDeque q = order[layer];
        int n = 0;
        while (n < max && !q.isEmpty()) {
            long v = q.removeFirst();
            vertices[n] = v;
            changedAt[n++] = times[layer].remove(v);
        }
        return n;
    }

    void clear() {
        for (int j = 0; j < times.length; j++) {
            times[j].clear();
            order[j].clear();
        }
    }

    int size(int layer) {
        return times[layer].size();
    }

    long size() {
        long n = 0;
        for (LongLongHashMap t : times) {
            n += t.size();
        }
        return n;
    }

    /** The marked vertices of {@code layer} in first-mark order. */
    long[] vertices(int layer) {
        return order[layer].toArray();
    }

    /** The change times of {@code vertices} (marked at {@code layer}). */
    long[] times(int layer, long[] vertices) {
        long[] out = new long[vertices.length];
        for (int i = 0; i < vertices.length; i++) {
            out[i] = times[layer].get(vertices[i]);
        }
        return out;
    }
}

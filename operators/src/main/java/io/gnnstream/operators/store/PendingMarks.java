package io.gnnstream.operators.store;

import com.carrotsearch.hppc.LongArrayDeque;
import com.carrotsearch.hppc.LongLongHashMap;

/**
 * The vertices incremental predictions still have to recompute, per model layer, each with the
 * earliest change time (ms) that marked it. A vertex marked again before it is taken keeps its
 * place (coalescing). Blocks are taken in first-mark order from the layer whose oldest mark is the
 * oldest of all, so that a steady stream of new changes at the first layer never starves the later
 * layers of the changes before them: a change's wait is bounded by the work marked before it. Each
 * mark also keeps the local time it was first made, so that a vertex can be left to wait a
 * coalescing window ({@link #readyLayer}) in which further changes reaching it join it. Not
 * thread-safe.
 */
final class PendingMarks {

    private final LongLongHashMap[] times;
    private final LongArrayDeque[] order;

    /** Per layer, parallel to {@link #order}: the local time (ms) of each vertex's first mark. */
    private final LongArrayDeque[] markedAt;

    PendingMarks(int layers) {
        times = new LongLongHashMap[layers];
        order = new LongArrayDeque[layers];
        markedAt = new LongArrayDeque[layers];
        for (int j = 0; j < layers; j++) {
            times[j] = new LongLongHashMap();
            order[j] = new LongArrayDeque();
            markedAt[j] = new LongArrayDeque();
        }
    }

    int layers() {
        return times.length;
    }

    /**
     * Marks {@code v} at {@code layer} with change time {@code changedAt} (the earliest kept); a
     * first mark also keeps the local time {@code now} (ms) it was made at.
     */
    void mark(int layer, long v, long changedAt, long now) {
        LongLongHashMap t = times[layer];
        int slot = t.indexOf(v);
        if (slot >= 0) {
            if (changedAt < t.indexGet(slot)) {
                t.indexReplace(slot, changedAt);
            }
        } else {
            t.indexInsert(slot, v, changedAt);
            order[layer].addLast(v);
            markedAt[layer].addLast(now);
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

    /**
     * The layer to take from next: among the layers whose first-marked vertex was marked at local
     * time {@code markedBy} or before, the one whose first-marked vertex has the oldest change; -1
     * when none is.
     */
    int readyLayer(long markedBy) {
        int best = -1;
        long oldest = Long.MAX_VALUE;
        for (int j = 0; j < order.length; j++) {
            if (!order[j].isEmpty() && markedAt[j].getFirst() <= markedBy) {
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
     * Takes up to {@code max} vertices of {@code layer} first marked at local time {@code markedBy}
     * or before, in first-mark order, into {@code vertices} and their change times into {@code
     * changedAt}; returns how many.
     */
    int take(int layer, int max, long markedBy, long[] vertices, long[] changedAt) {
        LongArrayDeque q = order[layer];
        LongArrayDeque at = markedAt[layer];
        int n = 0;
        while (n < max && !q.isEmpty() && at.getFirst() <= markedBy) {
            long v = q.removeFirst();
            at.removeFirst();
            vertices[n] = v;
            changedAt[n++] = times[layer].remove(v);
        }
        return n;
    }

    /** The local time (ms) of the oldest first mark still waiting; Long.MAX_VALUE when none. */
    long oldestMarkedAt() {
        long oldest = Long.MAX_VALUE;
        for (LongArrayDeque at : markedAt) {
            if (!at.isEmpty()) {
                oldest = Math.min(oldest, at.getFirst());
            }
        }
        return oldest;
    }

    void clear() {
        for (int j = 0; j < times.length; j++) {
            times[j].clear();
            order[j].clear();
            markedAt[j].clear();
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

package io.gnnstream.benchmarks.bench;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The graph changes {@link ChangeStream} sends, drawn so that the graph keeps the dataset's shape
 * however long they go on: 90 % edge changes (additions with the share {@link #addShare} sets, the
 * rest removals), 9 % node records, 1 % deletions. A removal takes a live edge of the dataset at
 * random, and an addition puts back one of the dataset's edges that is gone (removed, or ended by a
 * deletion) whose endpoints are live, so the edges are always a subset of the dataset's and their
 * degree distribution and homophily stay the dataset's. A node record gives a live vertex new
 * non-negative features and keeps its label and split, so the training set stays the same. A
 * deletion ends a vertex and its edges; once more than {@link #maxDeleted} vertices are deleted, a
 * node record brings back the one deleted longest ago (with its label and split), whose edges
 * additions then put back. A stream of random edges instead would turn the dataset into a random
 * graph within half an hour at 1,000 changes/s, and the work per batch with it, which a soak would
 * read as growth.
 *
 * <p>Knows the first {@code src.length} edges of the dataset; the others are never removed, and a
 * deleted vertex's edges among them are not put back.
 */
final class GraphChanges {

    /** The record to send: its topic (edges or nodes), key and value. */
    record Change(boolean edge, String key, String value) {}

    private final long[] src;
    private final long[] dst;
    private final int[] labels;
    private final String[] splits;
    private final int features;
    private final int maxDeleted;
    private final SplittableRandom random;

    /** Per vertex, its edges by source, then by destination: offsets and edge indexes. */
    private final int[] outStart;

    private final int[] outEdges;
    private final int[] inStart;
    private final int[] inEdges;

    /** Edges of the dataset that are gone (removed, or ended by a deletion). */
    private final BitSet isGone = new BitSet();

    private int goneCount;

    /** Gone edges between live vertices, which an addition may put back; per edge its place. */
    private int[] ready = new int[1024];

    private int readyCount;
    private final int[] readyAt;
    private final BitSet deleted = new BitSet();
    private final ArrayDeque<Integer> deletedOrder = new ArrayDeque<>();
    private double addShare = 0.5;
    private long additions;
    private long removals;

    /**
     * @param src sources of the dataset's first edges (ids in [0, labels.length))
     * @param dst their destinations
     * @param labels per vertex, its label
     * @param splits per vertex, its split as the node records name it ("train", "none", ...)
     * @param features features per vertex
     * @param maxDeleted vertices kept deleted at most before the oldest is brought back
     */
    GraphChanges(
            long[] src,
            long[] dst,
            int[] labels,
            String[] splits,
            int features,
            int maxDeleted,
            long seed) {
        if (src.length != dst.length || labels.length != splits.length || maxDeleted < 0) {
            throw new IllegalArgumentException("edges, vertices or maxDeleted do not agree");
        }
        this.src = src;
        this.dst = dst;
        this.labels = labels;
        this.splits = splits;
        this.features = features;
        this.maxDeleted = maxDeleted;
        this.random = new SplittableRandom(seed);
        int n = labels.length;
        this.outStart = new int[n + 1];
        this.inStart = new int[n + 1];
        for (int e = 0; e < src.length; e++) {
            outStart[(int) src[e] + 1]++;
            inStart[(int) dst[e] + 1]++;
        }
        for (int v = 0; v < n; v++) {
            outStart[v + 1] += outStart[v];
            inStart[v + 1] += inStart[v];
        }
        this.readyAt = new int[src.length];
        Arrays.fill(readyAt, -1);
        this.outEdges = new int[src.length];
        this.inEdges = new int[src.length];
        int[] outNext = Arrays.copyOf(outStart, n);
        int[] inNext = Arrays.copyOf(inStart, n);
        for (int e = 0; e < src.length; e++) {
            outEdges[outNext[(int) src[e]]++] = e;
            inEdges[inNext[(int) dst[e]]++] = e;
        }
    }

    /** The share of the edge changes that are additions from now on, in [0, 1]. */
    void addShare(double share) {
        addShare = checkShare(share);
    }

    /** {@code share} if it is in [0, 1]; throws otherwise. */
    static double checkShare(double share) {
        if (!(share >= 0 && share <= 1)) {
            throw new IllegalArgumentException(
                    "the additions' share must be in [0, 1], got " + share);
        }
        return share;
    }

    long additions() {
        return additions;
    }

    long removals() {
        return removals;
    }

    /** Dataset edges gone now (removed, or ended by a deletion). */
    int goneEdges() {
        return goneCount;
    }

    /** Gone edges between live vertices, which an addition may put back now. */
    int readyEdges() {
        return readyCount;
    }

    int deletedVertices() {
        return deletedOrder.size();
    }

    /** The next change. */
    Change next() {
        double kind = random.nextDouble();
        if (kind < 0.9) {
            // With nothing to put back, a removal: the mix stays, and the next addition takes it.
            Change c = kind < 0.9 * addShare ? putBack() : null;
            c = c != null ? c : remove();
            return c != null ? c : node(liveVertex());
        }
        if (kind < 0.99) {
            if (deletedOrder.size() > maxDeleted) {
                int v = deletedOrder.poll();
                deleted.clear(v);
                forEachEdge(
                        v,
                        e -> {
                            if (isGone.get(e) && isLive(e)) {
                                makeReady(e);
                            }
                        });
                return node(v);
            }
            return node(liveVertex());
        }
        int v = liveVertex();
        deleted.set(v);
        deletedOrder.add(v);
        forEachEdge(
                v,
                e -> {
                    if (!isGone.get(e)) {
                        isGone.set(e);
                        goneCount++;
                    } else {
                        unready(e);
                    }
                });
        return new Change(false, "" + v, "{\"id\":" + v + ",\"op\":\"delete\"}");
    }

    private Change remove() {
        if (src.length == 0) {
            return null;
        }
        for (int attempt = 0; attempt < 16; attempt++) {
            int e = random.nextInt(src.length);
            if (!isGone.get(e)) {
                isGone.set(e);
                goneCount++;
                makeReady(e);
                removals++;
                return new Change(true, "" + dst[e], src[e] + "," + dst[e] + ",-");
            }
        }
        return null;
    }

    /** Puts back a gone edge between live vertices; null when there is none. */
    private Change putBack() {
        if (readyCount == 0) {
            return null;
        }
        int e = ready[random.nextInt(readyCount)];
        unready(e);
        isGone.clear(e);
        goneCount--;
        additions++;
        return new Change(true, "" + dst[e], src[e] + "," + dst[e]);
    }

    private boolean isLive(int e) {
        return !deleted.get((int) src[e]) && !deleted.get((int) dst[e]);
    }

    private void makeReady(int e) {
        if (readyAt[e] >= 0) {
            return;
        }
        if (readyCount == ready.length) {
            ready = Arrays.copyOf(ready, ready.length * 2);
        }
        readyAt[e] = readyCount;
        ready[readyCount++] = e;
    }

    private void unready(int e) {
        int at = readyAt[e];
        if (at < 0) {
            return;
        }
        int last = ready[--readyCount];
        ready[at] = last;
        readyAt[last] = at;
        readyAt[e] = -1;
    }

    private void forEachEdge(int v, java.util.function.IntConsumer visit) {
        for (int i = outStart[v]; i < outStart[v + 1]; i++) {
            visit.accept(outEdges[i]);
        }
        for (int i = inStart[v]; i < inStart[v + 1]; i++) {
            visit.accept(inEdges[i]);
        }
    }

    private int liveVertex() {
        while (true) {
            int v = random.nextInt(labels.length);
            if (!deleted.get(v)) {
                return v;
            }
        }
    }

    private Change node(int v) {
        StringBuilder b = new StringBuilder(48 + 6 * features);
        b.append("{\"id\":").append(v);
        if (labels[v] >= 0) {
            b.append(",\"label\":").append(labels[v]);
        }
        b.append(",\"split\":\"").append(splits[v].toLowerCase(Locale.ROOT));
        b.append("\",\"features\":[");
        for (int f = 0; f < features; f++) {
            b.append(f == 0 ? "" : ",")
                    .append(random.nextInt(4) == 0 ? random.nextInt(1, 100) / 100.0 : 0);
        }
        return new Change(false, "" + v, b.append("]}").toString());
    }
}

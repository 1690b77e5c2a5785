package io.gnnstream.operators.schedule;

import io.gnnstream.operators.messages.GraphUpdate;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.state.records.EdgeUpdate;
import io.gnnstream.state.records.NodeUpdate;
import io.gnnstream.state.records.Split;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The graph stream of a {@link ProtocolSimulator} run, drawn from its seed, and what a batch built
 * from it must hold. Seeds {@code 0..seeds-1} (train, validation, test by {@code id mod 5}) and
 * {@code extra} vertices without a split, then their in-edges; then, while training runs, edges
 * added and removed, records rewritten and vertices without a split deleted (none of them
 * re-added). Vertex {@code v}'s features are {@code [v + 1, version]} and its label {@code v mod
 * 3}; a hidden layer's output row of {@code v} in the round of step {@code s} is {@code [v + 1,
 * s]}. So every row of a batch shows whose it is: a row of another vertex (a part of a superseded
 * attempt) or a missing row of a vertex never deleted (an output acknowledged but lost) fails the
 * check.
 */
final class SimGraph {

    static final int DIM = 2;
    static final int ROW = 2;

    /** An operation of the stream: a record for the GraphStore, or a deletion (update null). */
    record Op(GraphUpdate update, long deleted) {}

    final int seeds;
    final int extra;
    private final List<Op> ops = new ArrayList<>();

    /** Where the changes begin: the operations before it load the graph. */
    private int loaded;

    /** Vertices whose deletion is in the stream (an oracle: never rolled back). */
    private final Set<Long> deletable = new HashSet<>();

    /**
     * The stream of a run: with {@code changesWhileTraining}, its changes come once training runs,
     * else before (the graph then stays the same while training runs).
     */
    SimGraph(SplittableRandom random, int seeds, int extra, boolean changesWhileTraining) {
        this.seeds = seeds;
        this.extra = extra;
        int n = seeds + extra;
        List<Op> loading = new ArrayList<>();
        for (long v = 0; v < n; v++) {
            loading.add(node(v, 0));
        }
        List<Op> edges = new ArrayList<>();
        for (long dst = 0; dst < n; dst++) {
            for (int k = 0; k < 3; k++) {
                edges.add(edge(random.nextInt(n), dst, false));
            }
        }
        // Records first (the scheduler waits for the seeds), so every edge's source has one.
        ops.addAll(loading);
        for (int i = edges.size() - 1; i > 0; i--) {
            Op e = edges.get(i);
            int j = random.nextInt(i + 1);
            edges.set(i, edges.get(j));
            edges.set(j, e);
        }
        ops.addAll(edges);
        loaded = ops.size();
        for (int i = 0; i < 600; i++) {
            int kind = random.nextInt(10);
            if (kind < 4) {
                ops.add(edge(random.nextInt(n), random.nextInt(n), false));
            } else if (kind < 7) {
                Op e = edges.get(random.nextInt(edges.size()));
                ops.add(edge(e.update().edge.src, e.update().edge.dst, true));
            } else if (kind < 9) {
                ops.add(node(random.nextInt(n), 1 + i));
            } else {
                long v = seeds + random.nextInt(extra);
                if (deletable.add(v)) {
                    ops.add(new Op(null, v));
                }
            }
        }
        if (!changesWhileTraining) {
            ops.add(edge(random.nextInt(n), random.nextInt(n), false)); // the last: an edge
        }
        loaded = changesWhileTraining ? loaded : ops.size();
        // No record of a deleted vertex after its deletion: it would be a new vertex.
        Set<Long> gone = new HashSet<>();
        ops.removeIf(
                op -> {
                    if (op.update() == null) {
                        gone.add(op.deleted());
                        return false;
                    }
                    return op.update().node != null && gone.contains(op.update().node.id);
                });
    }

    int size() {
        return ops.size();
    }

    /** Whether operation {@code i} changes the loaded graph (it comes once training runs). */
    boolean isChange(int i) {
        return i >= loaded;
    }

    Op op(int i) {
        return ops.get(i);
    }

    /** Edge operations of the stream (additions and removals): its ingested edges in the end. */
    long edgeOps() {
        return ops.stream().filter(op -> op.update() != null && op.update().edge != null).count();
    }

    /** The vertices the scheduler waits for before training. */
    int vertices() {
        return seeds + extra;
    }

    private Op node(long v, int version) {
        Split split =
                v >= seeds
                        ? Split.NONE
                        : v % 5 == 3 ? Split.VAL : v % 5 == 4 ? Split.TEST : Split.TRAIN;
        return new Op(
                GraphUpdate.of(
                        new NodeUpdate(v, new float[] {v + 1, version}, (int) (v % 3), split)),
                -1);
    }

    private static Op edge(long src, long dst, boolean remove) {
        return new Op(GraphUpdate.of(new EdgeUpdate(src, dst, remove, 0)), -1);
    }

    /**
     * Checks a whole batch: every row holds its own vertex's features (or, for an inference block
     * of layer 2 and up, its output of this round's previous layer), or is empty for a vertex that
     * the stream deletes or, in an inference block, that the round does not cover ({@code round}:
     * the vertices the scheduler knew when the round began); every seed has its label.
     */
    void check(MiniBatch b, String where, Set<Long> round) {
        int width = b.featureDim;
        boolean rows = b.layer >= 2;
        for (int i = 0; i < b.numNodes(); i++) {
            long v = b.nodeIds[i];
            float[] row = Arrays.copyOfRange(b.features, i * width, i * width + 2);
            boolean own = row[0] == v + 1 && (!rows || row[1] == b.step);
            boolean empty =
                    row[0] == 0
                            && row[1] == 0
                            && (deletable.contains(v) || (rows && !round.contains(v)));
            if (!own && !empty) {
                throw new AssertionError(
                        where
                                + ": row "
                                + i
                                + " of vertex "
                                + v
                                + " holds "
                                + Arrays.toString(row)
                                + (rows ? " (outputs of step " + b.step + ")" : "")
                                + " in a batch of seq "
                                + b.seq
                                + " step "
                                + b.step
                                + " layer "
                                + b.layer);
            }
        }
        if (b.isTraining()) {
            for (int i = 0; i < b.numSeeds(); i++) {
                if (b.labels[i] != b.nodeIds[i] % 3) {
                    throw new AssertionError(where + ": label of seed " + b.nodeIds[i]);
                }
            }
        }
    }
}

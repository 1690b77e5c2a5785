package io.gnnstream.operators.schedule;

import io.gnnstream.operators.messages.GraphUpdate;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.model.LayerwiseInference;
import io.gnnstream.state.records.EdgeUpdate;
import io.gnnstream.state.records.NodeUpdate;
import io.gnnstream.state.records.Split;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The graph stream of a {@link ProtocolSimulator} run, drawn from its seed, and what a batch built
 * from it must hold. Seeds {@code 0..seeds-1} (train, validation, test by {@code id mod 5}) and
 * {@code extra} vertices without a split, then their in-edges; then, while training runs, edges
 * added and removed, records rewritten and vertices without a split deleted (with real rows, half
 * of them re-created after their deletion, without edges; else none). Vertex {@code v}'s features
 * are {@code [v + 1, version]} and its label {@code v mod 3}; a hidden layer's output row of {@code
 * v} in the round of step {@code s} is {@code [v + 1, s]}. So every row of a batch shows whose it
 * is: a row of another vertex (a part of a superseded attempt) or a missing row of a vertex never
 * deleted (an output acknowledged but lost) fails the check.
 *
 * <p>For runs with incremental predictions ({@code real}): the features are scaled by 1/64, so a
 * real model's outputs stay of moderate size; vertices without a split also come while training
 * runs, with edges to and from them; no edge names a vertex after its deletion (it would come back
 * as a vertex without attributes); a round's rows are a real model's outputs, which the check does
 * not read; and {@link #finalGraph} is the graph once every operation is applied.
 */
final class SimGraph {

    static final int DIM = 2;
    static final int ROW = 2;

    /** Labels are {@code v mod CLASSES}. */
    static final int CLASSES = 3;

    /** An operation of the stream: a record for the GraphStore, or a deletion (update null). */
    record Op(GraphUpdate update, long deleted) {}

    final int seeds;
    final int extra;

    /**
     * Mixed into the simulated validation counts ({@code SimRank}): the run's seed, so that which
     * round is the best differs from run to run (set by the simulator; 0 by default).
     */
    long validationSalt;

    private final List<Op> ops = new ArrayList<>();

    /** Rows are real model outputs; features scaled (see the class comment). */
    private final boolean real;

    private final float scale;

    /** Where the changes begin: the operations before it load the graph. */
    private int loaded;

    /** Whether the changes come while training runs (else every batch sees the final graph). */
    private final boolean changesWhileTraining;

    /** Per vertex, its in-degree in the final graph plus one; made on first use. */
    private Map<Long, Integer> finalDegrees;

    /** Vertices whose deletion is in the stream (an oracle: never rolled back). */
    private final Set<Long> deletable = new HashSet<>();

    /**
     * The stream of a run: with {@code changesWhileTraining}, its changes come once training runs,
     * else before (the graph then stays the same while training runs).
     */
    SimGraph(SplittableRandom random, int seeds, int extra, boolean changesWhileTraining) {
        this(random, seeds, extra, changesWhileTraining, false);
    }

    /** A stream as above; {@code real}: for a run with incremental predictions. */
    SimGraph(
            SplittableRandom random,
            int seeds,
            int extra,
            boolean changesWhileTraining,
            boolean real) {
        this.seeds = seeds;
        this.extra = extra;
        this.real = real;
        this.changesWhileTraining = changesWhileTraining;
        this.scale = real ? 1f / 64 : 1f;
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
        int vertices = n; // with real rows, vertices without a split come while training runs
        for (int i = 0; i < 600; i++) {
            int kind = random.nextInt(10);
            if (real && kind == 0 && random.nextInt(4) == 0) {
                ops.add(node(vertices++, 1 + i));
            } else if (kind < 4) {
                int range = real ? vertices : n;
                ops.add(edge(random.nextInt(range), random.nextInt(range), false));
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
        // With real rows, half the deleted vertices are re-created after their deletion, without
        // edges.
        Set<Op> recreations = new HashSet<>();
        if (real) {
            for (int i = ops.size() - 1; i >= loaded; i--) {
                Op op = ops.get(i);
                if (op.update() == null && random.nextBoolean()) {
                    Op again = node(op.deleted(), 1000 + i);
                    recreations.add(again);
                    ops.add(i + 1 + random.nextInt(ops.size() - i), again);
                }
            }
        }
        // No other record of a deleted vertex after its deletion: it would be a vertex of its own.
        Set<Long> gone = new HashSet<>();
        ops.removeIf(
                op -> {
                    if (op.update() == null) {
                        gone.add(op.deleted());
                        return false;
                    }
                    if (op.update().node != null) {
                        return gone.contains(op.update().node.id) && !recreations.contains(op);
                    }
                    return real
                            && (gone.contains(op.update().edge.src)
                                    || gone.contains(op.update().edge.dst));
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
                        new NodeUpdate(
                                v,
                                new float[] {(v + 1) * scale, version * scale},
                                (int) (v % CLASSES),
                                split)),
                -1);
    }

    private static Op edge(long src, long dst, boolean remove) {
        return new Op(GraphUpdate.of(new EdgeUpdate(src, dst, remove, 0)), -1);
    }

    /**
     * Checks a whole batch: every row holds its own vertex's features (or, for an inference block
     * of layer 2 and up, its output of this round's previous layer), or is empty for a vertex that
     * the stream deletes or, in an inference block, that the round does not cover ({@code round}:
     * the vertices the scheduler knew when the round began); every seed has its label. In a run
     * with real rows, the rows of layer 2 and up are not read.
     */
    void check(MiniBatch b, String where, Set<Long> round) {
        int width = b.featureDim;
        boolean rows = b.layer >= 2;
        for (int i = 0; i < b.numNodes() && !(rows && real); i++) {
            long v = b.nodeIds[i];
            float[] row = Arrays.copyOfRange(b.features, i * width, i * width + 2);
            boolean own = row[0] == (v + 1) * scale && (!rows || row[1] == b.step);
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
        if (!real) {
            checkDegrees(b, where);
        }
        if (b.isTraining()) {
            for (int i = 0; i < b.numSeeds(); i++) {
                if (b.labels[i] != b.nodeIds[i] % CLASSES) {
                    throw new AssertionError(where + ": label of seed " + b.nodeIds[i]);
                }
            }
        }
    }

    /**
     * Runs without a real model run the GraphStore with degrees ({@code GraphStoreConfig
     * .withDegrees(-1)}): every row of every batch carries one, through restores and checkpointed
     * partial batches, and on a graph that stays the same while training runs it is the vertex's
     * in-degree plus one.
     */
    private void checkDegrees(MiniBatch b, String where) {
        if (b.degrees == null || b.degrees.length != b.numNodes()) {
            throw new AssertionError(
                    where + ": batch of seq " + b.seq + " without a degree for every row");
        }
        for (int i = 0; i < b.numNodes(); i++) {
            int expected = changesWhileTraining ? -1 : finalDegrees().getOrDefault(b.nodeIds[i], 1);
            if (b.degrees[i] < 1 || (expected > 0 && b.degrees[i] != expected)) {
                throw new AssertionError(
                        where
                                + ": row "
                                + i
                                + " of vertex "
                                + b.nodeIds[i]
                                + " has degree "
                                + b.degrees[i]
                                + (expected > 0 ? ", not " + expected : "")
                                + " in a batch of seq "
                                + b.seq);
            }
        }
    }

    private Map<Long, Integer> finalDegrees() {
        if (finalDegrees == null) {
            Map<Long, Set<Long>> in = new HashMap<>();
            for (Op op : ops) {
                if (op.update() == null) {
                    in.remove(op.deleted());
                    in.values().forEach(n -> n.remove(op.deleted()));
                } else if (op.update().edge != null) {
                    EdgeUpdate e = op.update().edge;
                    Set<Long> n = in.computeIfAbsent(e.dst, k -> new HashSet<>());
                    if (e.remove) {
                        n.remove(e.src);
                    } else {
                        n.add(e.src);
                    }
                }
            }
            finalDegrees = new HashMap<>();
            in.forEach((v, n) -> finalDegrees.put(v, n.size() + 1));
        }
        return finalDegrees;
    }

    /** The graph once every operation is applied: its vertices with attributes, in id order. */
    record Final(long[] ids, LayerwiseInference.Graph graph) {

        /** The in-neighbours of vertex {@code i} (an index into {@link #ids}), as ids. */
        long[] inNeighbours(int i) {
            long[] n = new long[graph.offsets()[i + 1] - graph.offsets()[i]];
            for (int k = 0; k < n.length; k++) {
                n[k] = ids[graph.neighbours()[graph.offsets()[i] + k]];
            }
            Arrays.sort(n);
            return n;
        }
    }

    Final finalGraph() {
        Map<Long, float[]> features = new HashMap<>();
        Map<Long, Set<Long>> in = new HashMap<>();
        for (Op op : ops) {
            if (op.update() == null) {
                long v = op.deleted();
                features.remove(v);
                in.remove(v);
                for (Set<Long> n : in.values()) {
                    n.remove(v);
                }
            } else if (op.update().node != null) {
                features.put(op.update().node.id, op.update().node.features);
                in.computeIfAbsent(op.update().node.id, k -> new LinkedHashSet<>());
            } else {
                EdgeUpdate e = op.update().edge;
                Set<Long> n = in.computeIfAbsent(e.dst, k -> new LinkedHashSet<>());
                if (e.remove) {
                    n.remove(e.src);
                } else {
                    n.add(e.src);
                }
            }
        }
        long[] ids = features.keySet().stream().mapToLong(Long::longValue).sorted().toArray();
        Map<Long, Integer> index = new HashMap<>();
        for (int i = 0; i < ids.length; i++) {
            index.put(ids[i], i);
        }
        int[] offsets = new int[ids.length + 1];
        List<Integer> neighbours = new ArrayList<>();
        float[] x = new float[ids.length * DIM];
        for (int i = 0; i < ids.length; i++) {
            for (long u : in.get(ids[i])) {
                Integer at = index.get(u);
                if (at == null) {
                    throw new IllegalStateException(
                            "edge " + u + " -> " + ids[i] + " from a vertex without attributes");
                }
                neighbours.add(at);
            }
            offsets[i + 1] = neighbours.size();
            System.arraycopy(features.get(ids[i]), 0, x, i * DIM, DIM);
        }
        return new Final(
                ids,
                new LayerwiseInference.Graph(
                        ids.length,
                        offsets,
                        neighbours.stream().mapToInt(Integer::intValue).toArray(),
                        x,
                        DIM,
                        ids));
    }
}

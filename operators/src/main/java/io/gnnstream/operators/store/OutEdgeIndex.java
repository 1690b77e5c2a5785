package io.gnnstream.operators.store;

import com.carrotsearch.hppc.LongArrayList;
import io.gnnstream.state.VertexKey;
import java.util.Iterator;
import org.apache.flink.api.common.state.KeyedStateStore;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.BooleanSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;

/**
 * The GraphStore's out-edge index: for an edge {@code u -> w} stored in {@code w}'s in-adjacency,
 * an entry {@code w} in the map under {@code VertexKey(partition(w), u)}, whatever the partition of
 * {@code u}. So each logical partition indexes the out-edges that end in it: the entries live and
 * move with the in-adjacency they mirror (rescales, restores), and a site answers "which of my
 * vertices have {@code u} as an in-neighbour" with one prefix read per partition it owns, without
 * asking another site. A vertex deletion uses it to remove the deleted vertex from the in-adjacency
 * of its out-neighbours, on every site (docs/design.md, "Graph changes").
 *
 * <p>A partition's index is built when it is first needed ({@link #build}, one scan of the
 * partition's adjacency) and kept up to date from then on; a partition marks that in keyed state
 * under its anchor ({@link #BUILT}), so the mark moves with it. A stream without deletions never
 * pays the write per edge that a kept index costs (BENCHMARKS.md, "Graph changes").
 *
 * <p>Operates through {@code setCurrentKey}: every call leaves the key of its entries current.
 */
public final class OutEdgeIndex {

    public static final MapStateDescriptor<Long, Boolean> STATE =
            new MapStateDescriptor<>(
                    "out-edge-index", LongSerializer.INSTANCE, BooleanSerializer.INSTANCE);

    /** Under a partition's anchor: whether the partition's index is built. */
    public static final ValueStateDescriptor<Boolean> BUILT =
            new ValueStateDescriptor<>("out-edge-index-built", BooleanSerializer.INSTANCE);

    /** Scans the adjacency of the vertices of a set of partitions, for {@link #build}. */
    @FunctionalInterface
    public interface AdjacencyScan {
        /** Calls {@code visit} with each vertex of the partitions and its in-neighbours. */
        void scan(boolean[] partitions, VertexVisitor visit) throws Exception;
    }

    /** A vertex and its in-neighbours, as an {@link AdjacencyScan} reports them. */
    @FunctionalInterface
    public interface VertexVisitor {
        void visit(VertexKey vertex, long[] inNeighbours) throws Exception;
    }

    private final MapState<Long, Boolean> targets;
    private final ValueState<Boolean> built;
    private final CurrentKey setCurrentKey;

    /** Per partition: the index is built (known for the owned partitions only). */
    private final boolean[] isBuilt;

    /**
     * An index over {@code partitions} logical partitions, of which the subtask owns {@code owned}
     * (the built marks of those are read now).
     */
    public OutEdgeIndex(KeyedStateStore store, CurrentKey setCurrentKey, boolean[] owned)
            throws Exception {
        this.targets = store.getMapState(STATE);
        this.built = store.getState(BUILT);
        this.setCurrentKey = setCurrentKey;
        this.isBuilt = new boolean[owned.length];
        for (int p = 0; p < owned.length; p++) {
            if (owned[p]) {
                setCurrentKey.set(VertexKey.anchor(p));
                isBuilt[p] = Boolean.TRUE.equals(built.value());
            }
        }
    }

    /** Whether {@code partition}'s index is built (and so kept up to date). */
    public boolean isBuilt(int partition) {
        return isBuilt[partition];
    }

    /**
     * Builds the index of every partition in {@code partitions} that has none, from one {@code
     * scan} of their adjacency.
     */
    public void build(boolean[] partitions, AdjacencyScan scan) throws Exception {
        boolean[] missing = new boolean[partitions.length];
        boolean any = false;
        for (int p = 0; p < partitions.length; p++) {
            missing[p] = partitions[p] && !isBuilt[p];
            any |= missing[p];
        }
        if (!any) {
            return;
        }
        scan.scan(
                missing,
                (vertex, in) -> {
                    for (long u : in) {
                        setCurrentKey.set(new VertexKey(vertex.partition(), u));
                        targets.put(vertex.vertex(), Boolean.TRUE);
                    }
                });
        for (int p = 0; p < missing.length; p++) {
            if (missing[p]) {
                setCurrentKey.set(VertexKey.anchor(p));
                built.update(Boolean.TRUE);
                isBuilt[p] = true;
            }
        }
    }

    /**
     * Records the edge {@code source -> target}, {@code target} in {@code partition}, if that
     * partition's index is built.
     */
    public void add(int partition, long source, long target) throws Exception {
        if (!isBuilt[partition]) {
            return;
        }
        setCurrentKey.set(new VertexKey(partition, source));
        targets.put(target, Boolean.TRUE);
    }

    /** Forgets the edge {@code source -> target}, {@code target} in {@code partition}. */
    public void remove(int partition, long source, long target) throws Exception {
        if (!isBuilt[partition]) {
            return;
        }
        setCurrentKey.set(new VertexKey(partition, source));
        targets.remove(target);
    }

    /**
     * Removes and returns the targets in {@code partition} (whose index is built) of {@code
     * source}'s out-edges (empty when it has none there).
     */
    public long[] takeAll(int partition, long source) throws Exception {
        requireBuilt(partition);
        setCurrentKey.set(new VertexKey(partition, source));
        Iterator<Long> keys = targets.keys().iterator();
        if (!keys.hasNext()) {
            return new long[0];
        }
        LongArrayList out = new LongArrayList();
        while (keys.hasNext()) {
            out.add(keys.next());
        }
        targets.clear();
        return out.toArray();
    }

    /**
     * The targets in {@code partition} (whose index is built) of {@code source}'s out-edges, in no
     * particular order.
     */
    public long[] targets(int partition, long source) throws Exception {
        requireBuilt(partition);
        setCurrentKey.set(new VertexKey(partition, source));
        LongArrayList out = new LongArrayList();
        for (Long w : targets.keys()) {
            out.add(w);
        }
        return out.toArray();
    }

    private void requireBuilt(int partition) {
        if (!isBuilt[partition]) {
            throw new IllegalStateException(
                    "the out-edge index of partition " + partition + " is not built");
        }
    }
}

package io.gnnstream.operators.store;

import com.carrotsearch.hppc.ByteArrayList;
import com.carrotsearch.hppc.LongArrayList;
import com.carrotsearch.hppc.sorting.IndirectSort;
import io.gnnstream.state.VertexKey;
import org.apache.flink.api.common.state.KeyedStateStore;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.BooleanSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;

/**
 * The vertices of this site that have {@code u} as an in-neighbour, in one map under {@code
 * VertexKey(holder, u)} (the site's first partition, as halo replicas are kept), so incremental
 * predictions find the readers of a changed vertex with one prefix read, where the {@link
 * OutEdgeIndex} (kept by partition, so that it rescales with the adjacency) takes one per owned
 * partition. Kept with the adjacency once {@link #build} ran; made for one parallelism (see
 * docs/design.md, "Incremental predictions").
 *
 * <p>A flush of the edge buffer stages its out-edges ({@link #stage}) and writes them in the order
 * of their RocksDB keys ({@link #writeStaged}): every entry's key shares the holder's key group and
 * partition, so that order is by source, then target. The memtable's skip list then inserts each
 * entry next to the one before instead of searching for it from its head, which is most of the cost
 * of an unsorted write (BENCHMARKS.md, "Incremental predictions").
 */
final class SiteOutEdges {

    static final MapStateDescriptor<Long, Boolean> STATE =
            new MapStateDescriptor<>(
                    "site-out-edges", LongSerializer.INSTANCE, BooleanSerializer.INSTANCE);

    /** Under the holder's anchor: whether the index is built. */
    static final ValueStateDescriptor<Boolean> BUILT =
            new ValueStateDescriptor<>("site-out-edges-built", BooleanSerializer.INSTANCE);

    private final MapState<Long, Boolean> targets;
    private final ValueState<Boolean> built;
    private final CurrentKey keys;
    private final int holder;
    private boolean on;

    /** Staged writes: source, target and whether it is an addition, in arrival order. */
    private final LongArrayList stagedSources = new LongArrayList();

    private final LongArrayList stagedTargets = new LongArrayList();
    private final ByteArrayList stagedAdds = new ByteArrayList();

    SiteOutEdges(KeyedStateStore store, CurrentKey keys, int holder) {
        this.targets = store.getMapState(STATE);
        this.built = store.getState(BUILT);
        this.keys = keys;
        this.holder = holder;
    }

    boolean isOn() {
        return on;
    }

    /** Turns the index on, built from one {@code scan} of the adjacency where it is missing. */
    void build(boolean[] owned, OutEdgeIndex.AdjacencyScan scan) throws Exception {
        keys.set(VertexKey.anchor(holder));
        if (!Boolean.TRUE.equals(built.value())) {
            scan.scan(
                    owned,
                    (vertex, in) -> {
                        for (long u : in) {
                            keys.set(new VertexKey(holder, u));
                            targets.put(vertex.vertex(), Boolean.TRUE);
                        }
                    });
            keys.set(VertexKey.anchor(holder));
            built.update(Boolean.TRUE);
        }
        on = true;
    }

    /**
     * Stages the addition ({@code add}) or removal of {@code source -> target} for {@link
     * #writeStaged}; nothing is staged while the index is off.
     */
    void stage(long source, long target, boolean add) {
        if (on) {
            stagedSources.add(source);
            stagedTargets.add(target);
            stagedAdds.add(add ? (byte) 1 : (byte) 0);
        }
    }

    /**
     * Writes the staged changes sorted by source and target; changes of the same edge keep their
     * order (the sort is stable).
     */
    void writeStaged() throws Exception {
        int n = stagedSources.size();
        if (n == 0) {
            return;
        }
        long[] src = stagedSources.buffer;
        long[] dst = stagedTargets.buffer;
        int[] order =
                IndirectSort.mergesort(
                        0,
                        n,
                        (a, b) -> {
                            int c = Long.compare(src[a], src[b]);
                            return c != 0 ? c : Long.compare(dst[a], dst[b]);
                        });
        long current = Long.MIN_VALUE;
        for (int i : order) {
            if (i == order[0] || src[i] != current) {
                current = src[i];
                keys.set(new VertexKey(holder, current));
            }
            if (stagedAdds.get(i) != 0) {
                targets.put(dst[i], Boolean.TRUE);
            } else {
                targets.remove(dst[i]);
            }
        }
        stagedSources.clear();
        stagedTargets.clear();
        stagedAdds.clear();
    }

    void remove(long source, long target) throws Exception {
        if (on) {
            keys.set(new VertexKey(holder, source));
            targets.remove(target);
        }
    }

    /** Forgets every out-edge of {@code source} (a deleted vertex). */
    void clear(long source) throws Exception {
        if (on) {
            keys.set(new VertexKey(holder, source));
            targets.clear();
        }
    }

    long[] targets(long source) throws Exception {
        keys.set(new VertexKey(holder, source));
        LongArrayList out = new LongArrayList();
        for (Long w : targets.keys()) {
            out.add(w);
        }
        return out.toArray();
    }
}

package io.gnnstream.operators.store;

import com.carrotsearch.hppc.LongArrayList;
import com.carrotsearch.hppc.LongHashSet;
import io.gnnstream.state.HashPartitioner;
import io.gnnstream.state.VertexKey;
import java.util.HashMap;
import java.util.Map;
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
 * <p>A flush of the edge buffer {@link #stage stages} its out-edges and {@link #writeStaged writes}
 * them source after source in key order, a source's additions as one write batch: RocksDB's
 * memtable then takes keys next to the ones before instead of at random places.
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
    private final EdgeBuffer staged;
    private final LongHashSet seen = new LongHashSet();
    private final Map<Long, Boolean> additions = new HashMap<>();
    private boolean on;

    /**
     * @param stagedCapacity out-edge changes staged before {@link #stage} reports the stage full
     */
    SiteOutEdges(KeyedStateStore store, CurrentKey keys, int holder, int stagedCapacity) {
        this.staged = new EdgeBuffer(stagedCapacity, new HashPartitioner(1));
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
     * Stages the addition ({@code remove} false) or removal of {@code source -> target}; returns
     * true when the stage is full and should be written.
     */
    boolean stage(long source, long target, boolean remove) {
        if (!on) {
            return false;
        }
        return remove ? staged.remove(source, target) : staged.add(source, target);
    }

    /**
     * Writes the staged out-edges by source in ascending order: of a source's operations on one
     * target, the last decides, as if each were written in its turn.
     */
    void writeStaged() throws Exception {
        if (staged.isEmpty()) {
            return;
        }
        staged.drain(
                (key, ops) -> {
                    keys.set(new VertexKey(holder, key.vertex()));
                    seen.clear();
                    additions.clear();
                    for (int i = ops.length - 1; i >= 0; i--) {
                        long target = ops[i] >= 0 ? ops[i] : -1 - ops[i];
                        if (!seen.add(target)) {
                            continue;
                        }
                        if (ops[i] >= 0) {
                            additions.put(target, Boolean.TRUE);
                        } else {
                            targets.remove(target);
                        }
                    }
                    if (additions.size() == 1) {
                        targets.put(additions.keySet().iterator().next(), Boolean.TRUE);
                    } else if (!additions.isEmpty()) {
                        targets.putAll(additions);
                    }
                });
    }

    void add(long source, long target) throws Exception {
        if (on) {
            writeStaged();
            keys.set(new VertexKey(holder, source));
            targets.put(target, Boolean.TRUE);
        }
    }

    void remove(long source, long target) throws Exception {
        if (on) {
            writeStaged();
            keys.set(new VertexKey(holder, source));
            targets.remove(target);
        }
    }

    /** Forgets every out-edge of {@code source} (a deleted vertex). */
    void clear(long source) throws Exception {
        if (on) {
            writeStaged();
            keys.set(new VertexKey(holder, source));
            targets.clear();
        }
    }

    long[] targets(long source) throws Exception {
        writeStaged();
        keys.set(new VertexKey(holder, source));
        LongArrayList out = new LongArrayList();
        for (Long w : targets.keys()) {
            out.add(w);
        }
        return out.toArray();
    }
}

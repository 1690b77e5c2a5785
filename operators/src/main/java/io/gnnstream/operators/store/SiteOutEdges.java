package io.gnnstream.operators.store;

import com.carrotsearch.hppc.LongArrayList;
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

    void add(long source, long target) throws Exception {
        if (on) {
            keys.set(new VertexKey(holder, source));
            targets.put(target, Boolean.TRUE);
        }
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

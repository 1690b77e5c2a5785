package io.gnnstream.operators.internal;

import com.carrotsearch.hppc.LongArrayList;
import io.gnnstream.state.VertexKey;
import java.util.Iterator;
import java.util.function.Consumer;
import org.apache.flink.api.common.state.KeyedStateStore;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeutils.base.BooleanSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;

/**
 * The GraphStore's out-edge index: for an edge {@code u -> w} stored in {@code w}'s in-adjacency,
 * an entry {@code w} in the map under {@code VertexKey(partition(w), u)}, whatever the partition of
 * {@code u}. So each logical partition indexes the out-edges that end in it: the entries live and
 * move with the in-adjacency they mirror (rescales, restores), and a site answers "which of my
 * vertices have {@code u} as an in-neighbour" with one prefix read per partition it owns, without
 * asking another site. A vertex deletion uses it to remove the deleted vertex from the in-adjacency
 * of its out-neighbours, on every site (docs/design.md, "Vertex deletion"); a write per stored edge
 * is its cost at ingestion (BENCHMARKS.md, "Deletions").
 *
 * <p>Operates through {@code setCurrentKey}: every call leaves the key of its entries current.
 */
public final class OutEdgeIndex {

    public static final MapStateDescriptor<Long, Boolean> STATE =
            new MapStateDescriptor<>(
                    "out-edge-index", LongSerializer.INSTANCE, BooleanSerializer.INSTANCE);

    private final MapState<Long, Boolean> targets;
    private final Consumer<VertexKey> setCurrentKey;

    public OutEdgeIndex(KeyedStateStore store, Consumer<VertexKey> setCurrentKey) {
        this.targets = store.getMapState(STATE);
        this.setCurrentKey = setCurrentKey;
    }

    /** Records the edges {@code sources[i] -> target}, {@code target} in {@code partition}. */
    public void add(int partition, long[] sources, long target) throws Exception {
        for (long u : sources) {
            setCurrentKey.accept(new VertexKey(partition, u));
            targets.put(target, Boolean.TRUE);
        }
    }

    /** Forgets the edge {@code source -> target}, {@code target} in {@code partition}. */
    public void remove(int partition, long source, long target) throws Exception {
        setCurrentKey.accept(new VertexKey(partition, source));
        targets.remove(target);
    }

    /**
     * Removes and returns the targets in {@code partition} of {@code source}'s out-edges (empty
     * when it has none there).
     */
    public long[] takeAll(int partition, long source) throws Exception {
        setCurrentKey.accept(new VertexKey(partition, source));
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

    /** The targets in {@code partition} of {@code source}'s out-edges, in no particular order. */
    public long[] targets(int partition, long source) throws Exception {
        setCurrentKey.accept(new VertexKey(partition, source));
        LongArrayList out = new LongArrayList();
        for (Long w : targets.keys()) {
            out.add(w);
        }
        return out.toArray();
    }
}

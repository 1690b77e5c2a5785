package io.gnnstream.operators.store;

import io.gnnstream.operators.messages.EdgeBundle;
import io.gnnstream.state.InAdjacency;
import io.gnnstream.state.VertexKey;
import io.gnnstream.state.VertexPartitioner;
import org.apache.flink.api.common.state.KeyedStateStore;

/**
 * The GraphStore's adjacency writes: edge additions and removals wait in the {@link EdgeBuffer} and
 * are written one adjacency update per vertex, with the {@link OutEdgeIndex} of the partitions that
 * have one, the partition sizes and the adjacency cache kept in step; and a deletion's removal of
 * the deleted vertex's edges. See docs/design.md, "Graph state" and "Graph changes".
 */
final class EdgeWriter {

    private final InAdjacency adjacency;
    private final OutEdgeIndex outEdges;
    private final SiteOutEdges siteOutEdges;
    private final EdgeBuffer buffer;
    private final PartitionSizes sizes;
    private final Sampler sampler;
    private final VertexPartitioner partitioner;
    private final Site site;
    private final CurrentKey keys;
    private final StoredKeys storedKeys;
    private final StoreCounters counters;

    /** Null: none. */
    private final StoreProbe probe;

    /** The vertex {@link #written} reads: the one whose in-adjacency was just written. */
    private VertexKey writtenKey;

    private final Written written =
            new Written() {
                @Override
                public int degree() throws Exception {
                    keys.set(writtenKey);
                    return adjacency.degree();
                }

                @Override
                public long[] neighbours() throws Exception {
                    keys.set(writtenKey);
                    return adjacency.neighbours();
                }
            };

    /** Told of every vertex whose in-adjacency a write changed; null: none. */
    private Changes adjacencyChanged;

    /** Told of a vertex whose in-adjacency a write changed. */
    @FunctionalInterface
    interface Changes {
        void changed(long vertex) throws Exception;

        /**
         * {@code ops} (sources, or {@code -1 - source} for removals) were applied to {@code
         * vertex}'s in-adjacency, changing its degree by {@code change}; {@code written} reads the
         * in-adjacency as they left it, during the call.
         */
        default void applied(long vertex, long[] ops, int change, Written written)
                throws Exception {
            changed(vertex);
        }

        /** Every buffered edge was written (the buffer filled, or a read needed them). */
        default void flushed() {}
    }

    /** The in-adjacency of the vertex just written, read on demand. */
    interface Written {
        int degree() throws Exception;

        long[] neighbours() throws Exception;
    }

    EdgeWriter(
            KeyedStateStore state,
            InAdjacency adjacency,
            int bufferEdges,
            PartitionSizes sizes,
            Sampler sampler,
            VertexPartitioner partitioner,
            Site site,
            CurrentKey keys,
            StoredKeys storedKeys,
            StoreCounters counters,
            StoreProbe probe,
            long outEdgeCacheBytes)
            throws Exception {
        this.adjacency = adjacency;
        this.outEdges = new OutEdgeIndex(state, keys, site.owned());
        this.siteOutEdges =
                new SiteOutEdges(state, keys, site.holder(), bufferEdges, outEdgeCacheBytes);
        this.buffer = new EdgeBuffer(bufferEdges, partitioner);
        this.sizes = sizes;
        this.sampler = sampler;
        this.partitioner = partitioner;
        this.site = site;
        this.keys = keys;
        this.storedKeys = storedKeys;
        this.counters = counters;
        this.probe = probe;
    }

    /**
     * Keeps the site's out-edges from now on (built by one scan where missing), which deletions
     * then use in place of the partitions' out-edge index, and tells {@code changed} of every
     * vertex whose in-adjacency changes.
     */
    void followChanges(Changes changed) throws Exception {
        siteOutEdges.build(site.owned(), this::scanAdjacency, storedKeys);
        this.adjacencyChanged = changed;
    }

    /** The vertices of this site with in-neighbour {@code u} (buffered edges not counted). */
    long[] outNeighbours(long u) throws Exception {
        return siteOutEdges.targets(u);
    }

    /** A bundle of edges whose destinations this subtask owns. */
    void applyAll(EdgeBundle bundle) throws Exception {
        for (int i = 0; i < bundle.size(); i++) {
            long dst = EdgeBundle.destination(bundle.ops[i]);
            boolean remove = EdgeBundle.isRemoval(bundle.ops[i]);
            apply(partitioner.keyOf(dst), bundle.sources[i], dst, remove);
        }
    }

    /** An edge addition or removal into {@code key}'s vertex, buffered with the others. */
    void apply(VertexKey key, long src, long dst, boolean remove) throws Exception {
        long[] s = sizes.of(key);
        s[PartitionSizes.EDGES_INGESTED]++;
        if (adjacencyChanged != null && buffer.switchesKind(dst, remove)) {
            // A followed vertex's batch holds one kind only, which its sums take as a difference.
            write(key, buffer.take(dst));
        }
        if (remove ? buffer.remove(dst, src) : buffer.add(dst, src)) {
            flush();
        }
        sizes.touched(key.partition());
        counters.edgesIngested++;
        if (!remove && partitioner.partition(src) != key.partition()) {
            counters.cutEdgesIngested++;
            s[PartitionSizes.CUT_EDGES_INGESTED]++;
        }
    }

    /**
     * Writes every buffered edge addition and removal, one adjacency update per destination vertex,
     * and keeps the out-edge index of the built partitions in step; the site's out-edges stay
     * staged until enough wait, a read or {@link #writeStagedOutEdges}.
     */
    void flush() throws Exception {
        if (buffer.isEmpty()) {
            return;
        }
        buffer.drain(this::write);
        if (adjacencyChanged != null) {
            adjacencyChanged.flushed();
        }
    }

    /** Writes the site out-edges staged since the last write (after {@link #flush}: all). */
    void writeStagedOutEdges() throws Exception {
        siteOutEdges.writeStaged();
    }

    /** Buffered edges: not yet in the adjacency. */
    int buffered() {
        return buffer.size();
    }

    /**
     * Writes the operations {@code ops} of {@code key}'s vertex into its in-adjacency, keeps the
     * indexes in step and tells the follower; the site's out-edges are staged until the next {@link
     * #flush}.
     */
    private void write(VertexKey key, long[] ops) throws Exception {
        if (probe != null) {
            for (long op : ops) {
                if (op >= 0) {
                    probe.added(site.subtask(), key.vertex(), new long[] {op});
                } else {
                    probe.removed(site.subtask(), key.vertex(), -1 - op);
                }
            }
        }
        keys.set(key);
        long[] s = sizes.of(key);
        int change = adjacency.applyAll(ops);
        s[PartitionSizes.EDGES] += change;
        sizes.touched(key.partition());
        sampler.invalidate(key.vertex());
        if (adjacencyChanged != null) {
            writtenKey = key;
            adjacencyChanged.applied(key.vertex(), ops, change, written);
        }
        if (siteOutEdges.isOn()) {
            for (long op : ops) {
                siteOutEdges.stage(op >= 0 ? op : -1 - op, key.vertex(), op >= 0);
            }
        }
        if (outEdges.isBuilt(key.partition())) {
            for (long op : ops) {
                if (op >= 0) {
                    outEdges.add(key.partition(), op, key.vertex());
                } else {
                    outEdges.remove(key.partition(), -1 - op, key.vertex());
                }
            }
        }
    }

    /**
     * Removes {@code v} from the in-adjacency of this site's vertices, found through the site's
     * out-edges where they are kept, else through the out-edge index (built first if a partition
     * has none, one read per partition); buffered edges must be written before.
     */
    void removeOutEdges(long v) throws Exception {
        if (probe != null) {
            probe.deleted(site.subtask(), v);
        }
        if (siteOutEdges.isOn()) {
            long[] targets = siteOutEdges.targets(v);
            siteOutEdges.clear(v, targets);
            for (long w : targets) {
                VertexKey key = partitioner.keyOf(w);
                outEdges.remove(key.partition(), v, w); // where a restored index is kept
                removeInEdge(key, v, w);
                sizes.touched(key.partition());
            }
            siteOutEdges.writeStaged();
            return;
        }
        outEdges.build(site.owned(), this::scanAdjacency);
        for (int p = 0; p < site.owned().length; p++) {
            if (!site.owns(p)) {
                continue;
            }
            long[] targets = outEdges.takeAll(p, v);
            for (long w : targets) {
                removeInEdge(partitioner.keyOf(w), v, w);
            }
            if (targets.length > 0) {
                sizes.touched(p);
            }
        }
    }

    private void removeInEdge(VertexKey key, long v, long w) throws Exception {
        keys.set(key);
        // As a batch of one: a vertex without an index whose list is short enough is changed in
        // memory instead of having its index built (a write per neighbour) for one removal.
        boolean removed = adjacency.applyAll(new long[] {-1 - v}) < 0;
        if (removed) {
            sizes.of(key)[PartitionSizes.EDGES]--;
        }
        sampler.invalidate(w);
        if (adjacencyChanged != null && removed) {
            writtenKey = key;
            adjacencyChanged.applied(w, new long[] {-1 - v}, -1, written);
        } else if (adjacencyChanged != null) {
            adjacencyChanged.changed(w);
        }
    }

    /**
     * Clears the in-adjacency of {@code v} (key {@code key}, owned here) and the index entries of
     * its in-edges; returns the in-neighbours it had.
     */
    long[] clearInEdges(VertexKey key, long v) throws Exception {
        keys.set(key);
        long[] in = adjacency.neighbours();
        adjacency.clear();
        sampler.invalidate(v);
        for (long u : in) {
            outEdges.remove(key.partition(), u, v);
            siteOutEdges.stage(u, v, false);
        }
        siteOutEdges.writeStaged();
        return in;
    }

    /** The stored in-neighbours of {@code vertex} (buffered edges written first). */
    long[] inNeighbours(long vertex) throws Exception {
        flush();
        keys.set(partitioner.keyOf(vertex));
        return adjacency.neighbours();
    }

    /**
     * The out-edge index's targets of {@code source} in {@code partition} (null while the
     * partition's index is not built); buffered edges written first.
     */
    long[] outEdgeTargets(int partition, long source) throws Exception {
        flush();
        return outEdges.isBuilt(partition) ? outEdges.targets(partition, source) : null;
    }

    /**
     * Visits every vertex of {@code partitions} that has in-neighbours, with them (for {@link
     * OutEdgeIndex#build}); holds the keys of those vertices meanwhile.
     */
    private void scanAdjacency(boolean[] partitions, OutEdgeIndex.VertexVisitor visit)
            throws Exception {
        for (VertexKey key :
                storedKeys.of(
                        InAdjacency.TAIL.getName(),
                        k -> !k.isAnchor() && partitions[k.partition()])) {
            keys.set(key);
            visit.visit(key, adjacency.neighbours());
        }
    }
}

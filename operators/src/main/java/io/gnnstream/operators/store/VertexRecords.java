package io.gnnstream.operators.store;

import io.gnnstream.operators.GraphStoreConfig;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.state.VertexKey;
import io.gnnstream.state.VertexPartitioner;
import io.gnnstream.state.VertexRecord;
import io.gnnstream.state.records.NodeUpdate;
import io.gnnstream.state.records.Split;
import org.apache.flink.api.common.state.KeyedStateStore;
import org.apache.flink.api.common.state.ValueState;

/**
 * The GraphStore's attribute records ({@link VertexRecord}, one keyed value per vertex) behind the
 * record cache (a {@link VertexValueCache}, replaced on every write), and the record sent for a
 * vertex without attributes. See docs/design.md, "Graph state".
 */
final class VertexRecords {

    private final ValueState<byte[]> attributes;
    private final VertexValueCache cache;
    private final VertexPartitioner partitioner;
    private final CurrentKey keys;

    /** The record sent for a vertex without attributes: zero features, no label. */
    private final byte[] noAttributes;

    VertexRecords(
            KeyedStateStore state,
            VertexPartitioner partitioner,
            CurrentKey keys,
            GraphStoreConfig config) {
        this.attributes = state.getState(GraphStore.ATTRIBUTES);
        this.cache = new VertexValueCache(config.recordCacheBytes);
        this.partitioner = partitioner;
        this.keys = keys;
        this.noAttributes =
                VertexRecord.encode(
                        new NodeUpdate(
                                -1, new float[config.featureDim], NodeUpdate.NO_LABEL, Split.NONE));
    }

    byte[] noAttributes() {
        return noAttributes;
    }

    /** The record of {@code vertex}, from the cache or the state (then cached); null for none. */
    byte[] recordOf(long vertex) throws Exception {
        byte[] record = cache.get(vertex);
        if (record == null) {
            keys.set(partitioner.keyOf(vertex));
            record = attributes.value();
            if (record != null) {
                cache.put(vertex, record);
            }
        }
        return record;
    }

    /**
     * The label of {@code vertex} for a row it writes: from the record cache, else from the state
     * without caching the record (a round writes every vertex once, and those records would evict
     * the ones sampling keeps reading); {@link MiniBatch#ABSENT} without a record.
     */
    int labelOf(long vertex) throws Exception {
        byte[] record = cache.get(vertex);
        if (record == null) {
            keys.set(partitioner.keyOf(vertex));
            record = attributes.value();
        }
        return record == null ? MiniBatch.ABSENT : VertexRecord.label(record);
    }

    /**
     * Writes {@code node}'s record under {@code key}, its vertex's; returns the one it replaced.
     */
    byte[] write(VertexKey key, NodeUpdate node) throws Exception {
        keys.set(key);
        byte[] previous = attributes.value();
        byte[] record = VertexRecord.encode(node);
        attributes.update(record);
        cache.replace(node.id, record);
        return previous;
    }

    /** Removes the record of {@code vertex}, whose key is {@code key}; returns it (null: none). */
    byte[] clear(VertexKey key, long vertex) throws Exception {
        keys.set(key);
        byte[] previous = attributes.value();
        attributes.clear();
        cache.invalidate(vertex);
        return previous;
    }

    /** The stored record of {@code vertex}, or null (the cache not asked). */
    byte[] stored(long vertex) throws Exception {
        keys.set(partitioner.keyOf(vertex));
        return attributes.value();
    }
}

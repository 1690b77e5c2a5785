package io.gnnstream.operators;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Least-recently-used heap cache of vertex attribute records, by vertex id. Feature fetches are the
 * bulk of the GraphStore's keyed-state reads, and sampled neighbourhoods keep returning to the same
 * (high-degree) vertices; a hit skips the key switch, the RocksDB read and its copy. The owner keeps
 * it coherent by replacing an entry whenever it writes the record to state.
 */
final class RecordCache {

    /** Heap bytes per entry besides the record: map entry, boxed key and array header. */
    static final int ENTRY_OVERHEAD_BYTES = 96;

    private final Map<Long, byte[]> records;

    RecordCache(int capacity) {
        this.records = new LinkedHashMap<>(Math.min(capacity, 1 << 16), 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, byte[]> eldest) {
                return size() > capacity;
            }
        };
    }

    byte[] get(long vertex) {
        return records.get(vertex);
    }

    void put(long vertex, byte[] record) {
        records.put(vertex, record);
    }

    /** Replaces the cached record of {@code vertex}, if there is one, after a write to state. */
    void replace(long vertex, byte[] record) {
        records.replace(vertex, record);
    }

    int size() {
        return records.size();
    }
}

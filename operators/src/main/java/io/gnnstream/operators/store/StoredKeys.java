package io.gnnstream.operators.store;

import io.gnnstream.state.VertexKey;
import java.util.List;
import java.util.function.Predicate;

/**
 * The keys that hold a value of one keyed state, for the GraphStore's scans of its state (building
 * the out-edge index, dropping halo replicas made for another parallelism); the operator asks its
 * keyed state backend.
 */
@FunctionalInterface
public interface StoredKeys {
    /**
     * The keys holding a value of keyed state {@code state} that {@code which} accepts, all
     * collected before the caller switches keys.
     */
    List<VertexKey> of(String state, Predicate<VertexKey> which) throws Exception;
}

package io.gnnstream.operators.store;

import io.gnnstream.state.VertexKey;

/**
 * Switches the current key of the keyed state the GraphStore runs on: its states read and write the
 * values of the key made current last (the operator's {@code setCurrentKey}, or an in-memory
 * store's).
 */
@FunctionalInterface
public interface CurrentKey {
    void set(VertexKey key);
}

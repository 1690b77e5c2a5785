/**
 * The GraphStore's core, free of Flink's runtime: {@link io.gnnstream.operators.store.GraphStore}
 * and what it keeps (attribute records, in-adjacency writes and sampling, the out-edge index, halo
 * replicas, partition sizes, layer outputs, the heap caches and the trainer-cache directories),
 * over Flink's keyed state interfaces and the small interfaces through which the operator switches
 * keys and lists stored ones. {@code GraphStoreOperator} feeds it records, timers and snapshots and
 * sends what it returns; tests run it on an in-memory state store. See docs/design.md, "Graph
 * state".
 */
package io.gnnstream.operators.store;

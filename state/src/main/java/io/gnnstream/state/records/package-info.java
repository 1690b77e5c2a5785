/**
 * The parsed input records: edge updates, node updates with features, label and split, and the
 * {@link io.gnnstream.state.records.Split} a vertex belongs to. Flink POJOs, serialized without
 * Kryo.
 */
package io.gnnstream.state.records;

/**
 * The graph's layout in Flink keyed state: vertex keys that pin each logical partition to one key
 * group ({@link io.gnnstream.state.VertexKey}, {@link io.gnnstream.state.KeyGroupAnchors}), the
 * vertex partitioners, the byte layout of a vertex's attributes ({@link
 * io.gnnstream.state.VertexRecord}) and the block-structured in-adjacency with O(fanout) sampling
 * ({@link io.gnnstream.state.InAdjacency}). See docs/design.md, "Graph state".
 */
package io.gnnstream.state;

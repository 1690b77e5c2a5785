/**
 * Helpers of the connectors: the shared Jackson configuration of the input formats, dead-letter
 * record encodings, fast ASCII output, byte-counting streams, child JVM processes, and the
 * deterministic random primitives (SplitMix, Feistel permutation, distinct and in-neighbour
 * sampling) behind the synthetic graph generator.
 */
package io.gnnstream.connectors.internal;

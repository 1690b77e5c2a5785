/**
 * Helpers of the tools: fast ASCII output, byte-counting streams, child JVM processes, and the
 * deterministic random primitives (SplitMix, Feistel permutation, distinct and in-neighbour
 * sampling) behind the synthetic graph generator.
 */
package io.gnnstream.tools.internal;

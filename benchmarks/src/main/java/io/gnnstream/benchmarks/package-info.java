/**
 * The {@code bench} and {@code plot} commands and their entry point ({@link BenchMain}), and JMH
 * micro-benchmarks of the graph state on a real RocksDB keyed backend: adjacency inserts and
 * sampling, feature reads, and the bulk serialization of mini-batch arrays, each next to a simpler
 * alternative.
 */
package io.gnnstream.benchmarks;

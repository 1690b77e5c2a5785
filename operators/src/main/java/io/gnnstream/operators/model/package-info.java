/**
 * GraphSAGE in ND4J and plain Java loops: forward and backward passes over mini-batch blocks,
 * dropout, Adam, deterministic multi-threaded loops, model snapshots and NumPy export. Free of
 * Flink imports, so it runs and is tested outside a job. See docs/design.md, "Trainer".
 */
package io.gnnstream.operators.model;

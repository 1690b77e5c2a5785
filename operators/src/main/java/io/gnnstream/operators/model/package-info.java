/**
 * GNN models (GraphSAGE, GCN) in ND4J and plain Java loops: forward and backward passes over
 * mini-batch blocks, dropout, Adam, deterministic multi-threaded loops, model snapshots and NumPy
 * export. Each architecture is a plug-in: its {@link io.gnnstream.operators.model.Architecture},
 * registered in {@link io.gnnstream.operators.model.ModelType}. Free of Flink imports, so it runs
 * and is tested outside a job. See docs/design.md, "Trainer".
 */
package io.gnnstream.operators.model;

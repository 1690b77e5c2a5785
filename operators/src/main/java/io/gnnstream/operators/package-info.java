/**
 * The Flink operators of the training job and their settings: the GraphStore, which owns the graph
 * and answers sample requests; the SeedScheduler, which decides the batches; the BatchAssembler,
 * which drives the sampling loop; and the TrainerOperator, which trains the model. See
 * docs/design.md, "Dataflow".
 */
package io.gnnstream.operators;

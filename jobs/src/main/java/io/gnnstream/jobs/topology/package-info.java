/**
 * The training topology's builders, one per part (docs/design.md, "Dataflow"): {@link
 * io.gnnstream.jobs.topology.Ingest} (parsing, edge bundles, replica router), {@link
 * io.gnnstream.jobs.topology.SamplingLoop} (GraphStore, scheduler, assembler, loop 1), {@link
 * io.gnnstream.jobs.topology.AllReduceLoop} (trainer ranks, reducers, loop 3 and the credits of
 * loop 2) and {@link io.gnnstream.jobs.topology.Outputs} (metrics, predictions, layer outputs), all
 * reading the options through {@link io.gnnstream.jobs.topology.TopologySettings}; {@link
 * io.gnnstream.jobs.TrainingJob} composes them.
 */
package io.gnnstream.jobs.topology;

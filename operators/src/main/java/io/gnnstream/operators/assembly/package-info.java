/**
 * The batch assembler role without Flink's runtime (docs/design.md, "Sampling loop and flow
 * control", "Feature paths and caches" and "Checkpoints and restore", "BatchAssembler"): {@link
 * io.gnnstream.operators.assembly.AssemblerCore} builds batches from their specs with a {@link
 * io.gnnstream.operators.assembly.BatchBuilder} each, keeps its requests within a {@link
 * io.gnnstream.operators.assembly.RequestWindow} and handles timeouts and attempts; {@link
 * io.gnnstream.operators.assembly.PartialBatches} joins a batch's head and feature parts at the
 * trainer. Keyed state only through {@code org.apache.flink.api.common.state} handles; {@code
 * BatchAssembler} and {@code TrainerOperator} are the adapters.
 */
package io.gnnstream.operators.assembly;

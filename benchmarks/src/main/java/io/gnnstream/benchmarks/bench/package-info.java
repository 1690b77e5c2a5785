/**
 * The benchmarks of the {@code bench} command: the trainer step, the sampling loop, ingestion and
 * the whole pipeline, each measured against a baseline in the same invocation, with reports, JSON
 * output and scaling plots. A new benchmark implements {@link
 * io.gnnstream.benchmarks.bench.Benchmark} and is listed in {@link
 * io.gnnstream.benchmarks.bench.Benchmarks#ALL}.
 */
package io.gnnstream.benchmarks.bench;

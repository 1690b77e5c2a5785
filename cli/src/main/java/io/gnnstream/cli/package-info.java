/**
 * The {@code gnnstream} command line (picocli): demo, train, load, generate, kafka, predict,
 * partition and the cluster commands; the benchmarks module adds bench and plot. The training
 * commands take their job flags from {@link io.gnnstream.jobs.JobFlags}.
 */
package io.gnnstream.cli;

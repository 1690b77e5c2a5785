/**
 * The training job: {@link io.gnnstream.jobs.TrainingJob} builds the topology from injected sources
 * and sinks (or the Kafka ones), each option is declared once in an {@code *Options} class through
 * an {@link io.gnnstream.jobs.OptionGroup}, and {@link io.gnnstream.jobs.JobFlags} derives the
 * command-line flags from them. {@link io.gnnstream.jobs.JobDefaults} holds the Flink settings
 * every run needs; {@link io.gnnstream.jobs.TrainingRunner} submits a run and follows its metrics.
 */
package io.gnnstream.jobs;

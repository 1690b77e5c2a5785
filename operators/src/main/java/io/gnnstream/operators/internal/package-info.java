/**
 * Helpers of the operators without Flink state of their own: the per-batch sampling state machine,
 * the join of batch parts at the trainer, the trainer's feature cache, the step thread of the
 * trainer, metrics windows and primitive lists.
 */
package io.gnnstream.operators.internal;

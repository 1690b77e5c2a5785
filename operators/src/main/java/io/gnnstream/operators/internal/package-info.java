/**
 * Helpers of the operators without Flink state of their own: the trainer's feature cache, its step
 * thread, the inference round's bookkeeping, metrics windows and primitive lists.
 */
package io.gnnstream.operators.internal;

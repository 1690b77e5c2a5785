/**
 * Helpers of the operators without Flink state of their own: the feature caches and their
 * directories, the step thread of the trainer, metrics windows and primitive lists.
 */
package io.gnnstream.operators.internal;

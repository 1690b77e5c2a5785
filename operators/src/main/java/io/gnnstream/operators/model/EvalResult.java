package io.gnnstream.operators.model;

/**
 * Outcome of evaluating one batch. The loss is a sum (not a mean) so results of many batches add up
 * to an exact split-level mean; {@code predictions[i]} is the arg-max class of seed {@code i}.
 */
public record EvalResult(double lossSum, int correct, int numSeeds, int[] predictions) {}

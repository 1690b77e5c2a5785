package io.gnnstream.operators.model;

/** Outcome of one training step: mean loss over the seeds (before the update) and accuracy. */
public record TrainResult(double loss, int correct, int numSeeds) {}

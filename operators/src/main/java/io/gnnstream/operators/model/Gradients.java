package io.gnnstream.operators.model;

/**
 * Gradient of the mean loss over one batch's seeds, flattened in {@link
 * SageModel#parameterVector()} layout, plus that batch's loss and accuracy. Replicas combining
 * gradients should weight each by {@code numSeeds} (a plain average when batches are equally
 * sized).
 */
public record Gradients(float[] grad, double loss, int correct, int numSeeds) {}

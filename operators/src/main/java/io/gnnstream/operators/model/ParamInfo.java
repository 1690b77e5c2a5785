package io.gnnstream.operators.model;

/**
 * One parameter tensor: PyG-style name (e.g. {@code layers.0.lin_root.weight}), shape ({@code [in,
 * out]} for weights, {@code [out]} for biases) and a row-major copy of its values.
 */
public record ParamInfo(String name, int[] shape, float[] values) {}

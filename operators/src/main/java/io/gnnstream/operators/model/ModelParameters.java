package io.gnnstream.operators.model;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The trainable state every architecture shares: named tensors in a fixed order, laid out one after
 * the other in a single flat vector (the master copy for Adam, snapshots and the gradient
 * all-reduce), with the Adam moments and step count over that vector. An architecture only names
 * its tensors per layer ({@link Tensor}); initialization, the update, snapshots, restore and the
 * checksum are the same for all of them. Not thread-safe.
 */
final class ModelParameters {

    /** One tensor of a layer: weights are {@code [in, out]}, Glorot-initialized; biases zeros. */
    record Tensor(String name, int[] shape, boolean weight) {

        static Tensor weight(String name, int in, int out) {
            return new Tensor(name, new int[] {in, out}, true);
        }

        static Tensor bias(String name, int out) {
            return new Tensor(name, new int[] {out}, false);
        }

        int size() {
            int n = 1;
            for (int d : shape) {
                n *= d;
            }
            return n;
        }
    }

    private final List<Tensor> tensors = new ArrayList<>();
    private final int[] tensorOffsets;
    private final int[] layerOffsets;
    final float[] values;
    private final Adam adam;

    /**
     * Lays out {@code layers.get(j)}'s tensors for layer {@code j}, in order, and draws the weights
     * Glorot-uniform from {@code seed} (one stream over all weight tensors in order).
     */
    ModelParameters(List<List<Tensor>> layers, long seed, double weightDecay) {
        this.layerOffsets = new int[layers.size() + 1];
        List<Integer> offsets = new ArrayList<>();
        int offset = 0;
        for (int j = 0; j < layers.size(); j++) {
            for (Tensor t : layers.get(j)) {
                tensors.add(t);
                offsets.add(offset);
                offset += t.size();
            }
            layerOffsets[j + 1] = offset;
        }
        this.tensorOffsets = offsets.stream().mapToInt(Integer::intValue).toArray();
        this.values = new float[offset];
        this.adam = new Adam(weightDecay, offset);
        SplittableRandom random = new SplittableRandom(seed);
        for (int t = 0; t < tensors.size(); t++) {
            Tensor tensor = tensors.get(t);
            if (tensor.weight()) {
                double limit = Math.sqrt(6.0 / (tensor.shape()[0] + tensor.shape()[1]));
                for (int k = tensorOffsets[t]; k < tensorOffsets[t] + tensor.size(); k++) {
                    values[k] = (float) ((2.0 * random.nextDouble() - 1.0) * limit);
                }
            }
        }
    }

    /** Length of the flat vector. */
    int size() {
        return values.length;
    }

    /** Start of layer {@code j}'s tensors in the flat vector. */
    int layerOffset(int j) {
        return layerOffsets[j];
    }

    /** Number of floats of layer {@code j}'s tensors. */
    int layerSize(int j) {
        return layerOffsets[j + 1] - layerOffsets[j];
    }

    /** Number of optimizer updates applied so far. */
    long step() {
        return adam.step;
    }

    /** The Adam state over the flat vector, for a model that keeps its master copy elsewhere. */
    Adam adam() {
        return adam;
    }

    /** One Adam step with learning rate {@code lr} and {@code grad} in the flat layout. */
    void update(float[] grad, double lr) {
        if (grad.length != values.length) {
            throw new IllegalArgumentException(
                    "gradient has " + grad.length + " entries, model has " + values.length);
        }
        adam.update(values, grad, lr);
    }

    /** The tensors in layout order, with copies of their values. */
    List<ParamInfo> infos() {
        List<ParamInfo> list = new ArrayList<>(tensors.size());
        for (int t = 0; t < tensors.size(); t++) {
            Tensor tensor = tensors.get(t);
            int from = tensorOffsets[t];
            list.add(
                    new ParamInfo(
                            tensor.name(),
                            tensor.shape().clone(),
                            Arrays.copyOfRange(values, from, from + tensor.size())));
        }
        return list;
    }

    /** Overwrites all values; the Adam state is kept. */
    void set(float[] vector) {
        if (vector.length != values.length) {
            throw new IllegalArgumentException(
                    "vector has " + vector.length + " entries, model has " + values.length);
        }
        System.arraycopy(vector, 0, values, 0, values.length);
    }

    /** 64-bit hash of the bit patterns of all values: equal vectors have equal checksums. */
    long checksum() {
        return checksum(values);
    }

    /** {@link #checksum()} of a parameter vector. */
    static long checksum(float[] values) {
        long h = 0x243F6A8885A308D3L;
        for (float p : values) {
            h = Dropout.mix(h ^ Float.floatToRawIntBits(p)) + 0x9E3779B97F4A7C15L;
        }
        return h;
    }

    /** Deep copy of values, Adam moments and step, per tensor in layout order. */
    ModelState snapshot() {
        ModelState s = new ModelState();
        s.step = adam.step;
        s.params = new float[tensors.size()][];
        s.adamM = new float[tensors.size()][];
        s.adamV = new float[tensors.size()][];
        for (int t = 0; t < tensors.size(); t++) {
            int from = tensorOffsets[t];
            int to = from + tensors.get(t).size();
            s.params[t] = Arrays.copyOfRange(values, from, to);
            s.adamM[t] = Arrays.copyOfRange(adam.m, from, to);
            s.adamV[t] = Arrays.copyOfRange(adam.v, from, to);
        }
        return s;
    }

    /**
     * Takes values, Adam moments and step from a {@link #snapshot()} of the same layout.
     *
     * @throws IllegalArgumentException if {@code state} does not hold these tensors
     */
    void restore(ModelState state) {
        for (float[][] part : new float[][][] {state.params, state.adamM, state.adamV}) {
            if (part == null || part.length != tensors.size()) {
                throw new IllegalArgumentException(
                        "state must hold "
                                + tensors.size()
                                + " tensors per part, got "
                                + (part == null ? "null" : part.length));
            }
        }
        if (state.step < 0) {
            throw new IllegalArgumentException("state step must be >= 0, got " + state.step);
        }
        for (int t = 0; t < tensors.size(); t++) {
            copy(state.params[t], values, t);
            copy(state.adamM[t], adam.m, t);
            copy(state.adamV[t], adam.v, t);
        }
        adam.step = state.step;
    }

    private void copy(float[] from, float[] to, int t) {
        Tensor tensor = tensors.get(t);
        if (from == null || from.length != tensor.size()) {
            throw new IllegalArgumentException(
                    "state tensor "
                            + tensor.name()
                            + " must have "
                            + tensor.size()
                            + " entries, got "
                            + (from == null ? "null" : from.length));
        }
        System.arraycopy(from, 0, to, tensorOffsets[t], tensor.size());
    }
}

package io.gnnstream.operators.model;

import io.gnnstream.operators.messages.MiniBatch;
import java.util.List;
import java.util.Map;

/**
 * A trainable GNN over {@link MiniBatch} blocks: model layer {@code j} of {@code L} consumes hop
 * {@code L - j}. Implementations ({@link SageModel}, {@link GcnModel}) keep their parameters in one
 * flat vector ({@link #parameterVector()}, tensors in {@link #parameters()} order), train with the
 * same loss, dropout masks and Adam update, and are deterministic: replicas fed the same batches
 * stay bit-identical whatever the number of loop threads. Not thread-safe.
 */
public interface GnnModel extends AutoCloseable {

    /** A freshly initialized model of the type {@link ModelConfig#modelType()} names. */
    static GnnModel create(ModelConfig config) {
        return config.architecture().create(config);
    }

    /**
     * Rebuilds a model of the type {@link ModelConfig#modelType()} names from a {@link
     * #snapshot()}; training then continues bit-identically.
     *
     * @throws IllegalArgumentException if {@code state} does not hold this model's tensors
     */
    static GnnModel restore(ModelConfig config, ModelState state) {
        return config.architecture().restore(config, state);
    }

    /**
     * The {@link #checksum()} a model of the parameter vector {@code parameters} ({@link
     * #parameterVector()}) has.
     */
    static long checksumOf(float[] parameters) {
        return ModelParameters.checksum(parameters);
    }

    ModelConfig config();

    /**
     * What the model's steps run on: {@code cpu} for the ND4J models, the device's kind for {@link
     * GpuModel} ({@code cuda <name> sm_<cc> ...}). Replicas of different kinds round differently,
     * so an all-reduce refuses to mix them.
     */
    default String deviceKind() {
        return "cpu";
    }

    /** Number of optimizer updates applied so far. */
    long step();

    /** Forward, backward and one Adam update. */
    TrainResult trainStep(MiniBatch batch);

    /**
     * Gradient of the mean training loss over the labelled seeds (with this step's dropout masks)
     * without changing the model; combine with other replicas' gradients and pass to {@link
     * #applyGradients}.
     */
    Gradients computeGradients(MiniBatch batch);

    /** One Adam step with {@code flatGrad} (in {@link #parameterVector()} layout). */
    void applyGradients(float[] flatGrad);

    /** Loss and predictions without dropout or update. */
    EvalResult evaluate(MiniBatch batch);

    /**
     * One layer of layer-wise full-neighbour inference: the output of model layer {@code layer}
     * (0-based) for the destinations of the one-hop {@code block}, whose source rows (block node
     * order, {@code layerIn(layer)} floats each) are given in {@code input}. Hidden layers return
     * their ReLU activations, the last layer its logits; no dropout. Row {@code i} of the result
     * ({@code layerOut(layer)} floats) belongs to destination {@code i}.
     */
    float[] inferLayer(int layer, MiniBatch block, float[] input);

    /**
     * What model layer {@code layer} reads of {@code rows} rows {@code h} of its input ({@code
     * layerIn(layer)} floats each) in place of the rows themselves: their products with each of the
     * layer's weight blocks, without the bias ({@link ModelConfig#roundRowWidth} floats per row).
     * Since the layer's aggregations are linear, {@link #inferProjected} on these rows gives what
     * {@link #inferLayer} gives on {@code h} (up to rounding), while a narrow layer reads far fewer
     * floats per source.
     */
    float[] project(int layer, float[] h, int rows);

    /**
     * {@link #inferLayer} on a block whose source rows are {@link #project}ions of the layer's
     * input rows.
     */
    float[] inferProjected(int layer, MiniBatch block, float[] rows);

    /** The parameter tensors in a fixed order, with copies of their values. */
    List<ParamInfo> parameters();

    /** Copy of all parameters, concatenated in {@link #parameters()} order. */
    float[] parameterVector();

    /** Overwrites all parameters (e.g. to adopt a leader's initialization); Adam state is kept. */
    void setParameterVector(float[] values);

    /** 64-bit hash of the bit patterns of all parameters: equal models have equal checksums. */
    long checksum();

    /** Deep copy of the full training state (parameters, Adam moments and step). */
    ModelState snapshot();

    /** Turns per-phase accounting of training and evaluation on or off and clears it. */
    void setPhaseTiming(boolean on);

    /** Wall-clock nanoseconds per phase since {@link #setPhaseTiming} turned timing on. */
    Map<String, Long> phaseNanos();

    /** As {@link #phaseNanos()}, but CPU time of the calling thread. */
    Map<String, Long> phaseCpuNanos();

    /**
     * Releases native buffers and loop threads now; the model stays usable and reallocates them on
     * demand.
     */
    @Override
    void close();
}

package io.gnnstream.operators.model;

import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Hyper-parameters of a {@link GnnModel}, including its {@link ModelType} ({@link
 * ModelType#DEFAULT} unless set). Immutable and {@link Serializable} so it can travel inside job
 * graphs; every replica built from an equal config (including {@link #seed()}) starts from
 * bit-identical parameters.
 */
public final class ModelConfig implements Serializable {

    private static final long serialVersionUID = 1L;

    private final ModelType modelType;
    private final int inFeatures;
    private final int hidden;
    private final int numClasses;
    private final int numLayers;
    private final double dropout;
    private final double learningRate;
    private final double weightDecay;
    private final long seed;
    private final long decaySteps;
    private final int heads;
    private final int outHeads;
    private final double attentionDropout;

    /** GCN only; null in configs serialized before it existed, which mean {@link GcnNorm#MEAN}. */
    private GcnNorm gcnNorm = GcnNorm.MEAN;

    /** A GraphSAGE configuration with a constant learning rate. */
    public ModelConfig(
            int inFeatures,
            int hidden,
            int numClasses,
            int numLayers,
            double dropout,
            double learningRate,
            double weightDecay,
            long seed) {
        this(
                inFeatures,
                hidden,
                numClasses,
                numLayers,
                dropout,
                learningRate,
                weightDecay,
                seed,
                0L);
    }

    /**
     * A GraphSAGE configuration.
     *
     * @param decaySteps {@code > 0}: the learning rate follows a cosine from {@code learningRate}
     *     down to zero over this many steps (and stays there); {@code 0}: constant
     * @throws IllegalArgumentException if a value is out of range (see {@link Builder}).
     */
    public ModelConfig(
            int inFeatures,
            int hidden,
            int numClasses,
            int numLayers,
            double dropout,
            double learningRate,
            double weightDecay,
            long seed,
            long decaySteps) {
        this(
                ModelType.DEFAULT,
                inFeatures,
                hidden,
                numClasses,
                numLayers,
                dropout,
                learningRate,
                weightDecay,
                seed,
                decaySteps);
    }

    /**
     * A configuration of a model of type {@code modelType}; the other parameters are those of
     * {@link #ModelConfig(int, int, int, int, double, double, double, long, long)}.
     *
     * @throws IllegalArgumentException if {@code modelType} is null or a value is out of range
     */
    public ModelConfig(
            ModelType modelType,
            int inFeatures,
            int hidden,
            int numClasses,
            int numLayers,
            double dropout,
            double learningRate,
            double weightDecay,
            long seed,
            long decaySteps) {
        this(
                modelType,
                inFeatures,
                hidden,
                numClasses,
                numLayers,
                dropout,
                learningRate,
                weightDecay,
                seed,
                decaySteps,
                1,
                1,
                0.0);
    }

    /**
     * A configuration with attention heads: {@code heads} per hidden layer (concatenated, so a
     * hidden layer outputs {@code hidden * heads} floats), {@code outHeads} on the last layer
     * (averaged) and {@code attentionDropout} on the attention coefficients during training. Only
     * {@link ModelType#GAT} has heads; other types need 1, 1 and 0.
     *
     * @throws IllegalArgumentException if a value is out of range or heads are set for a type
     *     without attention
     */
    public ModelConfig(
            ModelType modelType,
            int inFeatures,
            int hidden,
            int numClasses,
            int numLayers,
            double dropout,
            double learningRate,
            double weightDecay,
            long seed,
            long decaySteps,
            int heads,
            int outHeads,
            double attentionDropout) {
        require(modelType != null, "modelType must not be null");
        require(inFeatures >= 1, "inFeatures must be >= 1, got " + inFeatures);
        require(hidden >= 1, "hidden must be >= 1, got " + hidden);
        require(numClasses >= 2, "numClasses must be >= 2, got " + numClasses);
        require(numLayers >= 1, "numLayers must be >= 1, got " + numLayers);
        require(dropout >= 0.0 && dropout < 1.0, "dropout must be in [0, 1), got " + dropout);
        require(
                learningRate > 0.0 && Double.isFinite(learningRate),
                "learningRate must be finite and > 0, got " + learningRate);
        require(
                weightDecay >= 0.0 && Double.isFinite(weightDecay),
                "weightDecay must be finite and >= 0, got " + weightDecay);
        require(decaySteps >= 0, "decaySteps must be >= 0, got " + decaySteps);
        require(heads >= 1, "heads must be >= 1, got " + heads);
        require(outHeads >= 1, "outHeads must be >= 1, got " + outHeads);
        require(
                attentionDropout >= 0.0 && attentionDropout < 1.0,
                "attentionDropout must be in [0, 1), got " + attentionDropout);
        require(
                modelType.architecture().hasHeads()
                        || (heads == 1 && outHeads == 1 && attentionDropout == 0.0),
                "heads, out-heads and attention-dropout apply to model gat only, got model "
                        + modelType.id());
        this.modelType = modelType;
        this.inFeatures = inFeatures;
        this.hidden = hidden;
        this.numClasses = numClasses;
        this.numLayers = numLayers;
        this.dropout = dropout;
        this.learningRate = learningRate;
        this.weightDecay = weightDecay;
        this.seed = seed;
        this.decaySteps = decaySteps;
        this.heads = heads;
        this.outHeads = outHeads;
        this.attentionDropout = attentionDropout;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The architecture's type: which {@link GnnModel} class {@link GnnModel#create} builds. */
    public ModelType modelType() {
        return modelType;
    }

    /** A {@link GcnModel}'s normalisation: {@link GcnNorm#MEAN} unless {@link #withGcnNorm}. */
    public GcnNorm gcnNorm() {
        return gcnNorm == null ? GcnNorm.MEAN : gcnNorm;
    }

    /**
     * This config with GCN normalisation {@code norm}.
     *
     * @throws IllegalArgumentException if {@code norm} is {@link GcnNorm#SYM} and the type is not
     *     GCN
     */
    public ModelConfig withGcnNorm(GcnNorm norm) {
        require(norm != null, "gcnNorm must not be null");
        require(
                norm == GcnNorm.MEAN || modelType == ModelType.GCN,
                "--gcn-norm " + norm.id() + " needs --model gcn, got " + modelType.id());
        ModelConfig c =
                new ModelConfig(
                        modelType,
                        inFeatures,
                        hidden,
                        numClasses,
                        numLayers,
                        dropout,
                        learningRate,
                        weightDecay,
                        seed,
                        decaySteps,
                        heads,
                        outHeads,
                        attentionDropout);
        c.gcnNorm = norm;
        return c;
    }

    /** What the model is: {@code modelType().architecture()}. */
    public Architecture architecture() {
        return modelType.architecture();
    }

    public int inFeatures() {
        return inFeatures;
    }

    public int hidden() {
        return hidden;
    }

    public int numClasses() {
        return numClasses;
    }

    public int numLayers() {
        return numLayers;
    }

    public double dropout() {
        return dropout;
    }

    public double learningRate() {
        return learningRate;
    }

    public long decaySteps() {
        return decaySteps;
    }

    /** Learning rate of the update that follows {@code step} earlier updates. */
    public double learningRateAt(long step) {
        if (decaySteps == 0) {
            return learningRate;
        }
        double progress = Math.min(1.0, (double) step / decaySteps);
        return learningRate * 0.5 * (1.0 + Math.cos(Math.PI * progress));
    }

    /** Attention heads of each hidden layer (1 for types without attention). */
    public int heads() {
        return heads;
    }

    /** Attention heads of the last layer, averaged (1 for types without attention). */
    public int outHeads() {
        return outHeads;
    }

    /** Dropout on attention coefficients during training (0 for types without attention). */
    public double attentionDropout() {
        return attentionDropout;
    }

    public double weightDecay() {
        return weightDecay;
    }

    public long seed() {
        return seed;
    }

    /** Input width of model layer {@code layer} (0 = input side). */
    public int layerIn(int layer) {
        return layer == 0 ? inFeatures : hidden * heads;
    }

    /**
     * Output width of model layer {@code layer}; the last layer outputs class logits, a hidden
     * layer {@code hidden} per head.
     */
    public int layerOut(int layer) {
        return layer == numLayers - 1 ? numClasses : hidden * heads;
    }

    /**
     * Trainable parameters of layer {@code layer}: the sizes of its {@link Architecture#tensors}.
     */
    public int layerParameters(int layer) {
        int n = 0;
        for (ModelParameters.Tensor t : architecture().tensors(this).get(layer)) {
            n += t.size();
        }
        return n;
    }

    /**
     * Whether the rows an inference round stores for model layer {@code layer} ({@code >= 1}) to
     * read are the layer's projections of its input ({@link GnnModel#project}) rather than the
     * previous layer's outputs: when they are narrower and {@code keepHidden} (hidden rows wanted,
     * e.g. for embeddings) is off.
     */
    public boolean projectsRoundInput(int layer, boolean keepHidden) {
        if (layer < 1 || layer >= numLayers || keepHidden || !architecture().projectsRows()) {
            return false;
        }
        return weightBlocks() * layerOut(layer) < layerIn(layer);
    }

    /**
     * Floats per vertex of the rows model layer {@code layer} reads in an inference round: the
     * features for layer 0, else the rows the round stores for it (see {@link
     * #projectsRoundInput}).
     */
    public int roundRowWidth(int layer, boolean keepHidden) {
        return projectsRoundInput(layer, keepHidden)
                ? weightBlocks() * layerOut(layer)
                : layerIn(layer);
    }

    /**
     * Of the rows an inference round stores for model layer {@code layer}, the leading floats that
     * only the layer's destinations read: the projection by the {@link Architecture#hasRootWeight()
     * root weight} ({@code layerOut(layer)} floats) when the rows are projected, else none. The
     * layer's sources read the rest, its projection by the neighbour weight.
     */
    public int roundRootWidth(int layer, boolean keepHidden) {
        return projectsRoundInput(layer, keepHidden) && architecture().hasRootWeight()
                ? layerOut(layer)
                : 0;
    }

    /** Weight blocks per layer, the architecture's. */
    private int weightBlocks() {
        return architecture().weightBlocks();
    }

    /** Trainable parameters of the whole model (the length of its parameter vector). */
    public int numParameters() {
        int n = 0;
        for (int j = 0; j < numLayers; j++) {
            n += layerParameters(j);
        }
        return n;
    }

    /**
     * Field names and values in declaration order, e.g. for export manifests; the type is under
     * {@code "model"} as its {@link ModelType#id()}.
     */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("model", modelType.id());
        m.put("inFeatures", inFeatures);
        m.put("hidden", hidden);
        m.put("numClasses", numClasses);
        m.put("numLayers", numLayers);
        m.put("dropout", dropout);
        m.put("learningRate", learningRate);
        m.put("weightDecay", weightDecay);
        m.put("seed", seed);
        m.put("decaySteps", decaySteps);
        if (modelType.architecture().hasHeads()) {
            m.put("heads", heads);
            m.put("outHeads", outHeads);
            m.put("attentionDropout", attentionDropout);
        }
        if (modelType == ModelType.GCN) {
            m.put("gcnNorm", gcnNorm().id());
        }
        return m;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof ModelConfig)) {
            return false;
        }
        ModelConfig c = (ModelConfig) o;
        return modelType == c.modelType
                && inFeatures == c.inFeatures
                && hidden == c.hidden
                && numClasses == c.numClasses
                && numLayers == c.numLayers
                && Double.compare(dropout, c.dropout) == 0
                && Double.compare(learningRate, c.learningRate) == 0
                && decaySteps == c.decaySteps
                && Double.compare(weightDecay, c.weightDecay) == 0
                && seed == c.seed
                && heads == c.heads
                && outHeads == c.outHeads
                && Double.compare(attentionDropout, c.attentionDropout) == 0
                && gcnNorm() == c.gcnNorm();
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                modelType,
                decaySteps,
                inFeatures,
                hidden,
                numClasses,
                numLayers,
                dropout,
                learningRate,
                weightDecay,
                seed,
                heads,
                outHeads,
                attentionDropout,
                gcnNorm());
    }

    @Override
    public String toString() {
        return "ModelConfig" + toMap();
    }

    /**
     * Configs serialized before the type existed deserialize with a null type (they mean SAGE),
     * before heads existed with zero heads (they mean one).
     */
    private Object readResolve() {
        if (modelType != null && heads >= 1) {
            if (gcnNorm == null) {
                gcnNorm = GcnNorm.MEAN;
            }
            return this;
        }
        ModelConfig c =
                new ModelConfig(
                        modelType != null ? modelType : ModelType.DEFAULT,
                        inFeatures,
                        hidden,
                        numClasses,
                        numLayers,
                        dropout,
                        learningRate,
                        weightDecay,
                        seed,
                        decaySteps);
        c.gcnNorm = gcnNorm;
        return c;
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }

    /**
     * Builder; {@code inFeatures} and {@code numClasses} must be set, the rest default to SAGE,
     * hidden 256, 2 layers, dropout 0.5, learning rate 0.003, no weight decay, seed 0, one head and
     * no attention dropout.
     */
    public static final class Builder {
        private ModelType modelType = ModelType.DEFAULT;
        private int inFeatures = -1;
        private int hidden = 256;
        private int numClasses = -1;
        private int numLayers = 2;
        private double dropout = 0.5;
        private double learningRate = 0.003;
        private double weightDecay = 0.0;
        private long seed = 0L;
        private long decaySteps = 0L;
        private int heads = 1;
        private int outHeads = 1;
        private double attentionDropout = 0.0;

        private Builder() {}

        public Builder heads(int v) {
            heads = v;
            return this;
        }

        public Builder outHeads(int v) {
            outHeads = v;
            return this;
        }

        public Builder attentionDropout(double v) {
            attentionDropout = v;
            return this;
        }

        public Builder modelType(ModelType v) {
            modelType = v;
            return this;
        }

        public Builder inFeatures(int v) {
            inFeatures = v;
            return this;
        }

        public Builder hidden(int v) {
            hidden = v;
            return this;
        }

        public Builder numClasses(int v) {
            numClasses = v;
            return this;
        }

        public Builder numLayers(int v) {
            numLayers = v;
            return this;
        }

        public Builder dropout(double v) {
            dropout = v;
            return this;
        }

        public Builder learningRate(double v) {
            learningRate = v;
            return this;
        }

        public Builder weightDecay(double v) {
            weightDecay = v;
            return this;
        }

        public Builder seed(long v) {
            seed = v;
            return this;
        }

        public Builder decaySteps(long v) {
            decaySteps = v;
            return this;
        }

        public ModelConfig build() {
            return new ModelConfig(
                    modelType,
                    inFeatures,
                    hidden,
                    numClasses,
                    numLayers,
                    dropout,
                    learningRate,
                    weightDecay,
                    seed,
                    decaySteps,
                    heads,
                    outHeads,
                    attentionDropout);
        }
    }
}

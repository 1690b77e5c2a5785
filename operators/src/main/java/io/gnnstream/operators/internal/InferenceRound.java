package io.gnnstream.operators.internal;

import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.PredictionBatch;
import io.gnnstream.operators.model.ClassProbabilities;
import io.gnnstream.operators.model.EmbeddingTable;
import io.gnnstream.operators.model.EvalResult;
import io.gnnstream.operators.model.ModelConfig;
import io.gnnstream.operators.model.GnnModel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The trainer's side of layer-wise evaluation (docs/design.md, "Evaluation"). An evaluation round
 * arrives as one-hop blocks in layer order ({@link MiniBatch#layer}); a block of layer {@code l}
 * takes its source rows from the table of layer {@code l-1} (the features for {@code l = 1}) and
 * writes its destinations' outputs into the table of layer {@code l}, so each vertex's layer
 * embedding is computed once per round. Blocks of the last layer are scored (validation and test
 * seeds with a label) and give a {@link Prediction} per destination. A source without a row (a
 * vertex without attributes, or one that appeared after the round started) counts as zeros and is
 * counted in {@link Outcome#missingRows}.
 *
 * <p>Blocks of one round carry its step; the first block of a later round drops the tables. The
 * tables of a round in progress are part of the trainer's checkpoint ({@link #snapshot}).
 */
public final class InferenceRound {

    private final ModelConfig config;
    private final boolean predictions;
    private final boolean embeddings;
    private long step = -1;
    private EmbeddingTable[] tables;

    /** What one block gave: its score, its predictions (null when there are none), rows it lacked. */
    public record Outcome(EvalResult eval, PredictionBatch predictions, int missingRows) {}

    public InferenceRound(ModelConfig config, boolean predictions, boolean embeddings) {
        this.config = config;
        this.predictions = predictions;
        this.embeddings = embeddings;
        this.tables = new EmbeddingTable[config.numLayers()];
    }

    /** Runs one block on {@code model}; on the trainer's step thread. */
    public Outcome compute(GnnModel model, MiniBatch block) {
        int layers = config.numLayers();
        if (block.layer < 1 || block.layer > layers) {
            throw new IllegalArgumentException("block of layer " + block.layer + " for a model of " + layers
                    + " layers");
        }
        if (block.step != step) {
            step = block.step;
            tables = new EmbeddingTable[layers];
        }
        int nDst = block.numSeeds();
        if (nDst == 0) {
            return new Outcome(new EvalResult(0, 0, 0, new int[0]), null, 0);
        }
        int j = block.layer - 1;
        float[] input;
        int missing = 0;
        if (j == 0) {
            input = block.features;
        } else {
            EmbeddingTable from = table(j);
            input = new float[block.numSrc(1) * from.dim()];
            missing = from.gather(block.nodeIds, block.numSrc(1), input);
        }
        float[] out = model.inferLayer(j, block, input);
        if (block.layer < layers) {
            EmbeddingTable to = table(block.layer);
            for (int i = 0; i < nDst; i++) {
                to.put(block.nodeIds[i], out, i * to.dim());
            }
            return new Outcome(new EvalResult(0, 0, 0, new int[0]), null, missing);
        }
        return score(block, out, missing);
    }

    private Outcome score(MiniBatch block, float[] logits, int missing) {
        int classes = config.numClasses();
        int nDst = block.numSeeds();
        boolean scored = block.kind == MiniBatch.Kind.EVAL_VAL || block.kind == MiniBatch.Kind.EVAL_TEST;
        int[] predicted = new int[nDst];
        double lossSum = 0;
        int correct = 0;
        int labelled = 0;
        for (int i = 0; i < nDst; i++) {
            predicted[i] = ClassProbabilities.argmax(logits, i, classes);
            int label = block.labels[i];
            if (scored && label != MiniBatch.NO_LABEL) {
                labelled++;
                correct += predicted[i] == label ? 1 : 0;
                lossSum += ClassProbabilities.loss(logits, i, classes, label);
            }
        }
        return new Outcome(new EvalResult(lossSum, correct, labelled, predicted),
                predictions ? predictions(block, logits, predicted) : null, missing);
    }

    private PredictionBatch predictions(MiniBatch block, float[] logits, int[] predicted) {
        int classes = config.numClasses();
        int nDst = block.numSeeds();
        PredictionBatch out = new PredictionBatch();
        out.step = block.step;
        out.vertices = Arrays.copyOf(block.nodeIds, nDst);
        out.labels = predicted;
        out.classes = classes;
        out.probs = new float[nDst * classes];
        for (int i = 0; i < nDst; i++) {
            System.arraycopy(ClassProbabilities.softmax(logits, i, classes), 0, out.probs, i * classes, classes);
        }
        if (embeddings) {
            int layers = config.numLayers();
            out.embeddingDim = layers == 1 ? block.featureDim : config.layerOut(layers - 2);
            out.embeddings = new float[nDst * out.embeddingDim];
            if (layers == 1) {
                System.arraycopy(block.features, 0, out.embeddings, 0, nDst * out.embeddingDim);
            } else {
                table(layers - 1).gather(block.nodeIds, nDst, out.embeddings);
            }
        }
        return out;
    }

    /** The table of model layer {@code layer}'s outputs (1-based), created on first use. */
    private EmbeddingTable table(int layer) {
        if (tables[layer] == null) {
            tables[layer] = new EmbeddingTable(config.layerOut(layer - 1));
        }
        return tables[layer];
    }

    /** The tables of the round in progress, for the trainer's checkpoint. */
    public List<InferenceTableState> snapshot() {
        List<InferenceTableState> states = new ArrayList<>();
        for (int l = 1; l < tables.length; l++) {
            if (tables[l] != null) {
                InferenceTableState s = new InferenceTableState();
                s.step = step;
                s.layer = l;
                s.dim = tables[l].dim();
                s.ids = tables[l].ids();
                s.values = tables[l].values();
                states.add(s);
            }
        }
        return states;
    }

    /** Takes back the tables of {@link #snapshot}. */
    public void restore(Iterable<InferenceTableState> states) {
        for (InferenceTableState s : states) {
            if (s.layer < 1 || s.layer >= tables.length || s.dim != config.layerOut(s.layer - 1)) {
                throw new IllegalStateException("checkpointed inference table of layer " + s.layer + " (" + s.dim
                        + " columns) does not fit a model of " + tables.length + " layers");
            }
            step = s.step;
            tables[s.layer] = EmbeddingTable.of(s.dim, s.ids, s.values);
        }
    }
}

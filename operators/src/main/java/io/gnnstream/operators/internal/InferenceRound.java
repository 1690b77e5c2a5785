package io.gnnstream.operators.internal;

import io.gnnstream.operators.messages.LayerOutputs;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.PredictionBatch;
import io.gnnstream.operators.model.ClassProbabilities;
import io.gnnstream.operators.model.EvalResult;
import io.gnnstream.operators.model.GnnModel;
import io.gnnstream.operators.model.ModelConfig;
import io.gnnstream.state.StoreSites;
import io.gnnstream.state.VertexPartitioner;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A trainer rank's side of layer-wise evaluation (docs/design.md, "Evaluation"). An evaluation
 * round arrives as one-hop blocks ({@link MiniBatch#layer}), spread over the ranks. A block's
 * source rows come with it: the features for layer 1, the sources' outputs of layer {@code l-1}
 * from the GraphStore's layer-output store for layer {@code l}. A block of a hidden layer gives its
 * destinations' rows for the next layer as {@link LayerOutputs} (their outputs, or the next layer's
 * projections of them where those are narrower: {@link ModelConfig#projectsRoundInput}), records
 * per GraphStore subtask owning some of them (small ones, which {@link LayerOutputSender} sends
 * without blocking), which the GraphStore stores for the next layer's blocks (with incremental
 * predictions, first-layer blocks also give their destinations' features' sums); a rank keeps
 * nothing of a round between blocks. Blocks of the last layer are scored (validation and test seeds
 * with a label) and give a {@link PredictionBatch} of their destinations, with their last hidden
 * layer (their source rows) as embeddings when asked.
 */
public final class InferenceRound {

    private final ModelConfig config;
    private final boolean predictions;
    private final boolean embeddings;
    private final boolean keepHidden;
    private final VertexPartitioner partitioner;
    private final StoreSites sites;
    private boolean featureSums;

    /**
     * What one block gave: its score, its predictions (null when there are none), and the outputs
     * to store (empty for the last layer).
     */
    public record Outcome(
            EvalResult eval, PredictionBatch predictions, List<LayerOutputs> outputs) {}

    /**
     * @param keepHidden store hidden layers' outputs, never projections (true with {@code
     *     embeddings}, which read the last hidden layer)
     * @param partitioner the vertex assignment, with the GraphStore's {@code storeParallelism}
     *     naming the subtask owning each vertex; null for a single GraphStore subtask
     */
    public InferenceRound(
            ModelConfig config,
            boolean predictions,
            boolean embeddings,
            boolean keepHidden,
            VertexPartitioner partitioner,
            int storeParallelism) {
        this.config = config;
        this.predictions = predictions;
        this.embeddings = embeddings;
        this.keepHidden = keepHidden || embeddings;
        this.partitioner = partitioner;
        this.sites =
                partitioner == null
                        ? null
                        : new StoreSites(partitioner.numPartitions(), storeParallelism);
    }

    /**
     * First-layer blocks also give each destination's sum of its neighbours' features ({@link
     * LayerOutputs#FEATURE_SUMS}), which incremental predictions keep (the sender stamps them with
     * the job's incarnation, {@link LayerOutputs#incarnation}); returns this.
     */
    public InferenceRound withFeatureSums(boolean on) {
        this.featureSums = on;
        return this;
    }

    /** Runs one block on {@code model}; on the trainer's step thread. */
    public Outcome compute(GnnModel model, MiniBatch block) {
        int layers = config.numLayers();
        if (block.layer < 1 || block.layer > layers) {
            throw new IllegalArgumentException(
                    "block of layer " + block.layer + " for a model of " + layers + " layers");
        }
        int j = block.layer - 1;
        int nDst = block.numSeeds();
        if (nDst == 0) {
            return new Outcome(new EvalResult(0, 0, 0, new int[0]), null, List.of());
        }
        boolean projected = config.projectsRoundInput(j, keepHidden);
        int width = config.roundRowWidth(j, keepHidden);
        if (block.featureDim != width) {
            throw new IllegalArgumentException(
                    "block of layer "
                            + block.layer
                            + " has source rows of "
                            + block.featureDim
                            + " floats, the layer reads "
                            + width);
        }
        float[] out =
                projected
                        ? model.inferProjected(j, block, block.features)
                        : model.inferLayer(j, block, block.features);
        List<LayerOutputs> records = new ArrayList<>();
        Outcome outcome;
        if (block.layer < layers) {
            float[] rows = out;
            if (config.projectsRoundInput(j + 1, keepHidden)) {
                rows = model.project(j + 1, out, nDst);
            }
            records.addAll(
                    outputs(block, rows, config.roundRowWidth(j + 1, keepHidden), block.layer));
            outcome = new Outcome(new EvalResult(0, 0, 0, new int[0]), null, records);
        } else {
            outcome = score(block, out, records);
        }
        if (featureSums && block.layer == 1) {
            int dim = block.featureDim + 1;
            records.addAll(outputs(block, featureSums(block), dim, LayerOutputs.FEATURE_SUMS));
        }
        for (int p = 0; p < records.size(); p++) {
            records.get(p).part = p;
            records.get(p).parts = records.size();
        }
        return outcome;
    }

    /**
     * Per destination of a first-layer block, the sum of its sources' features (the rows of the
     * block's edges) and, last, their count.
     */
    private static float[] featureSums(MiniBatch block) {
        int nDst = block.numSeeds();
        int f = block.featureDim;
        float[] sums = new float[nDst * (f + 1)];
        for (int i = 0; i < nDst; i++) {
            int at = i * (f + 1);
            int start = block.edgeStart(1, i);
            int end = block.edgeEnd(1, i);
            for (int e = start; e < end; e++) {
                int from = block.indices[e] * f;
                for (int c = 0; c < f; c++) {
                    sums[at + c] += block.features[from + c];
                }
            }
            sums[at + f] = end - start;
        }
        return sums;
    }

    /**
     * The destinations' rows {@code out} of {@code dim} floats as records of {@code layer}, of
     * {@link LayerOutputSender#RECORD_BYTES} per owning GraphStore subtask, not yet numbered.
     */
    private List<LayerOutputs> outputs(MiniBatch block, float[] out, int dim, int layer) {
        int nDst = block.numSeeds();
        Map<Integer, IntList> byRoute = new LinkedHashMap<>();
        for (int i = 0; i < nDst; i++) {
            if (layer == LayerOutputs.FEATURE_SUMS
                    && block.labels != null
                    && block.labels[i] == MiniBatch.ABSENT) {
                continue; // no sum for a vertex the round found deleted
            }
            int route = sites == null ? 0 : sites.holderOf(partitioner.partition(block.nodeIds[i]));
            byRoute.computeIfAbsent(route, r -> new IntList()).add(i);
        }
        int maxRows =
                Math.max(1, LayerOutputSender.RECORD_BYTES / (dim * Float.BYTES + Long.BYTES));
        List<LayerOutputs> records = new ArrayList<>();
        for (Map.Entry<Integer, IntList> e : byRoute.entrySet()) {
            int[] rows = e.getValue().toArray();
            for (int from = 0; from < rows.length; from += maxRows) {
                int n = Math.min(maxRows, rows.length - from);
                LayerOutputs o = new LayerOutputs();
                o.step = block.step;
                o.layer = layer;
                o.roundIndex = block.roundIndex;
                o.route = e.getKey();
                o.dim = dim;
                o.vertices = new long[n];
                o.values = new float[n * dim];
                for (int k = 0; k < n; k++) {
                    int row = rows[from + k];
                    o.vertices[k] = block.nodeIds[row];
                    System.arraycopy(out, row * dim, o.values, k * dim, dim);
                }
                records.add(o);
            }
        }
        return records;
    }

    /** The last layer's block scored, with {@code records} (features' sums, or none) as outputs. */
    private Outcome score(MiniBatch block, float[] logits, List<LayerOutputs> records) {
        int classes = config.numClasses();
        int nDst = block.numSeeds();
        boolean scored =
                block.kind == MiniBatch.Kind.EVAL_VAL || block.kind == MiniBatch.Kind.EVAL_TEST;
        int[] predicted = new int[nDst];
        double lossSum = 0;
        int correct = 0;
        int labelled = 0;
        for (int i = 0; i < nDst; i++) {
            predicted[i] = ClassProbabilities.argmax(logits, i, classes);
            int label = block.labels[i];
            if (scored && label >= 0) {
                labelled++;
                correct += predicted[i] == label ? 1 : 0;
                lossSum += ClassProbabilities.loss(logits, i, classes, label);
            }
        }
        return new Outcome(
                new EvalResult(lossSum, correct, labelled, predicted),
                predictions ? predictions(block, logits, predicted) : null,
                records);
    }

    /** The predictions of the block's destinations, but for those {@link MiniBatch#ABSENT}. */
    private PredictionBatch predictions(MiniBatch block, float[] logits, int[] predicted) {
        int classes = config.numClasses();
        int nDst = block.numSeeds();
        int present = 0;
        for (int i = 0; i < nDst; i++) {
            present += block.labels[i] == MiniBatch.ABSENT ? 0 : 1;
        }
        PredictionBatch out = new PredictionBatch();
        out.step = block.step;
        out.vertices = new long[present];
        out.labels = new int[present];
        out.classes = classes;
        out.probs = new float[present * classes];
        if (embeddings) {
            // The destinations come first among the block's sources: their rows are the last hidden
            // layer (the features for a one-layer model), the classifier's input.
            out.embeddingDim = block.featureDim;
            out.embeddings = new float[present * block.featureDim];
        }
        int k = 0;
        for (int i = 0; i < nDst; i++) {
            if (block.labels[i] == MiniBatch.ABSENT) {
                continue;
            }
            out.vertices[k] = block.nodeIds[i];
            out.labels[k] = predicted[i];
            System.arraycopy(
                    ClassProbabilities.softmax(logits, i, classes),
                    0,
                    out.probs,
                    k * classes,
                    classes);
            if (embeddings) {
                System.arraycopy(
                        block.features,
                        i * block.featureDim,
                        out.embeddings,
                        k * block.featureDim,
                        block.featureDim);
            }
            k++;
        }
        return out;
    }
}

package io.gnnstream.operators.store;

import com.carrotsearch.hppc.LongIntHashMap;
import io.gnnstream.operators.messages.LayerOutputs;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.PredictionBatch;
import io.gnnstream.operators.model.Architecture;
import io.gnnstream.operators.model.ClassProbabilities;
import io.gnnstream.operators.model.GnnModel;
import io.gnnstream.operators.model.ModelConfig;
import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One layer of {@link IncrementalPredictions}' marked vertices computed under the pinned model, as
 * a round computes it ({@link GnnModel#inferLayer}, {@link GnnModel#inferProjected} on a one-hop
 * block): each vertex's own row and one source standing for its neighbourhood's sum. A hidden
 * layer's new rows are stored under the pinned step, and each row that changed marks the vertex for
 * the next layer and fans its difference out to its readers; the last layer's outputs are emitted
 * as predictions.
 */
final class Recomputation {

    private static final Logger LOG = LoggerFactory.getLogger(Recomputation.class);

    private final ModelConfig config;
    private final boolean keepHidden;
    private final LayerOutputStore rows;
    private final NeighbourSums sums;
    private final IncrementalPredictions.Graph graph;
    private final PinnedRound pinned;
    private final NeighbourParts parts;
    private final ChangeDifferences changes;
    private final ChangeDifferences.Marker marks;
    private final IncrementalCounters counters;

    Recomputation(
            ModelConfig config,
            boolean keepHidden,
            LayerOutputStore rows,
            NeighbourSums sums,
            IncrementalPredictions.Graph graph,
            PinnedRound pinned,
            NeighbourParts parts,
            ChangeDifferences changes,
            ChangeDifferences.Marker marks,
            IncrementalCounters counters) {
        this.config = config;
        this.keepHidden = keepHidden;
        this.rows = rows;
        this.sums = sums;
        this.graph = graph;
        this.pinned = pinned;
        this.parts = parts;
        this.changes = changes;
        this.marks = marks;
        this.counters = counters;
    }

    /**
     * Computes layer {@code m} of {@code candidates} (each with its earliest change time); deleted
     * ones are left out.
     */
    void compute(int m, long[] candidates, long[] changedAt, StoreOutputs out) throws Exception {
        int width = config.roundRowWidth(m, keepHidden);
        int root = m == 0 ? 0 : config.roundRootWidth(m, keepHidden);
        int k = candidates.length;
        float[] own = new float[k * width];
        int[] labels = new int[k];
        if (m == 0) {
            for (int i = 0; i < k; i++) {
                float[] x = graph.features(candidates[i]);
                if (x == null) {
                    labels[i] = MiniBatch.ABSENT; // deleted: left out
                    continue;
                }
                System.arraycopy(x, 0, own, i * width, width);
                // The record just read, and so cached: no second read of it.
                labels[i] = graph.label(candidates[i]);
            }
        } else {
            // A row of the pinned round carries its vertex's label and exists only while the
            // vertex does; only a vertex without one (new since the round) has its record read.
            boolean[] stored = rows.rows(m, pinned.step, candidates, k, width, own, labels);
            for (int i = 0; i < k; i++) {
                if (!stored[i]) {
                    labels[i] = graph.label(candidates[i]);
                }
            }
        }
        int n = 0;
        long[] dst = new long[k];
        long[] at = new long[k];
        for (int i = 0; i < k; i++) {
            if (labels[i] == MiniBatch.ABSENT) {
                continue;
            }
            if (n != i) {
                System.arraycopy(own, i * width, own, n * width, width);
            }
            dst[n] = candidates[i];
            // One change time per computed vertex (PredictionBatch#changedAt).
            at[n] = changedAt[i];
            labels[n++] = labels[i];
        }
        if (n == 0) {
            return;
        }
        dst = Arrays.copyOf(dst, n);
        at = Arrays.copyOf(at, n);
        labels = Arrays.copyOf(labels, n);
        own = Arrays.copyOf(own, n * width);
        NeighbourSums.Sum[] sum = new NeighbourSums.Sum[n];
        int pseudo = 0;
        for (int i = 0; i < n; i++) {
            sum[i] = sums.get(m, dst[i], pinned.tag(m));
            if (sum[i] != null && sum[i].values().length != parts.width(m)) {
                // A sum is derived state: one of another width is dropped and summed again.
                LOG.warn(
                        "Neighbour sum of layer {} of vertex {} has {} floats, not {}: summed"
                                + " again",
                        m,
                        dst[i],
                        sum[i].values().length,
                        parts.width(m));
                sum[i] = null;
            }
            if (sum[i] == null) {
                sum[i] = parts.sumOf(m, dst[i]);
                sums.put(m, dst[i], pinned.tag(m), sum[i]);
                counters.summedAgain++;
                counters.rowSumsSummedAgain += m > 0 ? 1 : 0;
            }
            pseudo += sum[i].count() > 0 ? 1 : 0;
        }
        MiniBatch block = block(dst, sum, pseudo);
        float[] input = new float[(n + pseudo) * width];
        System.arraycopy(own, 0, input, 0, own.length);
        Architecture architecture = config.architecture();
        for (int i = 0, p = n; i < n; i++) {
            int count = sum[i].count();
            if (count == 0) {
                continue;
            }
            float[] v = sum[i].values();
            int base = p++ * width + root;
            for (int c = 0; c < v.length; c++) {
                // One source standing for the neighbourhood: the row that, as the only neighbour,
                // gives the architecture's aggregate (SAGE: the mean; GCN: the row that makes the
                // mean of the vertex and it the mean of the vertex and its neighbours).
                input[base + c] =
                        architecture.pseudoNeighbour(own[i * width + root + c], v[c], count);
            }
        }
        boolean projected = config.projectsRoundInput(m, keepHidden);
        float[] result =
                projected
                        ? pinned.model.inferProjected(m, block, input)
                        : pinned.model.inferLayer(m, block, input);
        counters.recomputed += n;
        if (m == config.numLayers() - 1) {
            out.prediction(predictions(dst, at, result));
            counters.predicted += n;
            return;
        }
        propagate(m + 1, dst, labels, at, result);
    }

    /**
     * Stores the new rows layer {@code next} reads of {@code dst} (their outputs {@code result} of
     * the layer before), adds each changed row's difference to the sums of the vertices that
     * aggregate it, and marks those and the vertex itself for layer {@code next}.
     */
    private void propagate(int next, long[] dst, int[] labels, long[] at, float[] result)
            throws Exception {
        int n = dst.length;
        boolean projected = config.projectsRoundInput(next, keepHidden);
        int dim = config.roundRowWidth(next, keepHidden);
        int root = config.roundRootWidth(next, keepHidden);
        float[] stored = projected ? pinned.model.project(next, result, n) : result;
        float[] before = new float[n * dim];
        boolean[] had = rows.rows(next, pinned.step, dst, n, dim, before);
        LayerOutputs outputs = new LayerOutputs();
        outputs.step = pinned.step;
        outputs.layer = next;
        outputs.vertices = dst;
        outputs.dim = dim;
        outputs.values = stored;
        LongIntHashMap labelOf = new LongIntHashMap(n);
        for (int i = 0; i < n; i++) {
            labelOf.put(dst[i], labels[i]);
        }
        rows.write(outputs, labelOf::get);
        for (int i = 0; i < n; i++) {
            int from = i * dim;
            // A row the round did not store is new, also where it is zeros (as a missing row
            // reads): the vertex's next layer was never computed under the pinned model.
            if (had[i] && Arrays.equals(before, from, from + dim, stored, from, from + dim)) {
                continue;
            }
            marks.mark(next, dst[i], at[i]);
            float[] delta = new float[dim - root];
            for (int c = root; c < dim; c++) {
                delta[c - root] = stored[from + c] - before[from + c];
            }
            changes.fanOut(next, dst[i], delta, at[i]);
        }
    }

    private PredictionBatch predictions(long[] dst, long[] changedAt, float[] logits) {
        int classes = config.numClasses();
        PredictionBatch batch = new PredictionBatch();
        batch.step = pinned.step;
        batch.vertices = dst;
        batch.classes = classes;
        batch.labels = new int[dst.length];
        batch.probs = new float[dst.length * classes];
        batch.changedAt = changedAt;
        for (int i = 0; i < dst.length; i++) {
            batch.labels[i] = ClassProbabilities.argmax(logits, i, classes);
            System.arraycopy(
                    ClassProbabilities.softmax(logits, i, classes),
                    0,
                    batch.probs,
                    i * classes,
                    classes);
        }
        return batch;
    }

    /**
     * A one-hop block of the destinations {@code dst}, each with one source standing for its
     * neighbourhood (none for an empty one), placed after the destinations.
     */
    private MiniBatch block(long[] dst, NeighbourSums.Sum[] sum, int pseudo) {
        int n = dst.length;
        MiniBatch b = new MiniBatch();
        b.numLayers = 1;
        b.indptr = new int[n + 1];
        b.indptrOffsets = new int[] {0};
        b.indicesOffsets = new int[] {0};
        b.indices = new int[pseudo];
        b.nodeIds = new long[n + pseudo];
        System.arraycopy(dst, 0, b.nodeIds, 0, n);
        for (int i = 0, e = 0; i < n; i++) {
            if (sum[i].count() > 0) {
                b.nodeIds[n + e] = -1 - i;
                b.indices[e] = n + e;
                e++;
            }
            b.indptr[i + 1] = e;
        }
        b.nodeCounts = new int[] {n, n + pseudo};
        b.featureDim = config.inFeatures();
        b.labels = new int[n];
        Arrays.fill(b.labels, MiniBatch.NO_LABEL);
        return b;
    }
}

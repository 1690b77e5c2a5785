package io.gnnstream.operators.store;

import com.carrotsearch.hppc.LongArrayList;
import com.carrotsearch.hppc.LongIntHashMap;
import com.carrotsearch.hppc.LongLongHashMap;
import com.carrotsearch.hppc.cursors.LongLongCursor;
import io.gnnstream.operators.messages.LayerOutputs;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.PredictionBatch;
import io.gnnstream.operators.model.ClassProbabilities;
import io.gnnstream.operators.model.GnnModel;
import io.gnnstream.operators.model.ModelConfig;
import java.util.Arrays;

/**
 * A GraphStore subtask's incremental predictions (docs/design.md, "Incremental predictions"): after
 * a change, the vertices whose L-hop in-neighbourhood it changed get a new prediction under the
 * pinned model, the model of the latest complete inference round, without waiting for the next
 * round. A change marks the vertices whose layer-1 input it changed ({@link #mark}); {@link
 * #process} recomputes marked vertices layer by layer from the rows the round stored ({@link
 * LayerOutputStore}), writes the new hidden rows under the round's step, marks the next layer's
 * readers of each row that changed, and emits the last layer's predictions. A vertex marked again
 * before it is processed is computed once (coalescing). The computation is the round's ({@link
 * GnnModel#inferLayer}, {@link GnnModel#inferProjected} on one-hop blocks over the same
 * neighbourhoods), so the result equals a full round with the pinned model on the current graph.
 *
 * <p>Pinning: each rank, once it has scored its share of a round, sends a pin record ({@link
 * PinAssembly}); rank 0's carry the model's parameters. The first request or row of a newer round
 * pauses processing (its rows replace the pinned model's); once every rank's pin record of that
 * round has come, its model is pinned and processing resumes, with every change marked meanwhile.
 * Marking starts at the first round, which covers every change before it. Not thread-safe.
 */
public final class IncrementalPredictions {

    /** Destinations per computed block. */
    public static final int BLOCK_VERTICES = 512;

    /** What the engine reads of the graph; all vertices it is asked about are owned here. */
    public interface Graph {
        /** The in-neighbours a round aggregates for {@code v} (its evaluation neighbourhood). */
        long[] neighbourhood(long v) throws Exception;

        /** The vertices of this site with in-neighbour {@code u}. */
        long[] outNeighbours(long u) throws Exception;

        /** The features of {@code v}, or null without attributes. */
        float[] features(long v) throws Exception;

        /** {@code v}'s label, {@link MiniBatch#NO_LABEL}, or {@link MiniBatch#ABSENT}. */
        int label(long v) throws Exception;
    }

    private final ModelConfig config;
    private final boolean keepHidden;
    private final LayerOutputStore rows;
    private final Graph graph;

    private GnnModel model;
    private long pinnedStep = -1;
    private float[] pinnedParams;
    private boolean paused;
    private boolean marking;
    private PinAssembly assembly = new PinAssembly();

    /** Per model layer: vertex to recompute -> earliest change time (ms) that marked it. */
    private final LongLongHashMap[] pending;

    private long recomputed;
    private long predicted;

    public IncrementalPredictions(
            ModelConfig config, boolean keepHidden, LayerOutputStore rows, Graph graph) {
        this.config = config;
        this.keepHidden = keepHidden;
        this.rows = rows;
        this.graph = graph;
        this.pending = new LongLongHashMap[config.numLayers()];
        for (int j = 0; j < pending.length; j++) {
            pending[j] = new LongLongHashMap();
        }
    }

    /**
     * A round of {@code step} reads the graph or writes rows: changes from now on are marked, and a
     * newer round than the pinned one pauses processing until its pin. A change it may have read
     * before the change is then processed under its model; one processed now under the pinned model
     * could leave a vertex with the round's older prediction.
     */
    public void roundRuns(long step) {
        marking = true;
        if (step > pinnedStep) {
            paused = true;
        }
    }

    /** {@code v}'s layer-1 input changed at {@code changedAt} (ms). */
    public void mark(long v, long changedAt) {
        mark(0, v, changedAt);
    }

    /** {@code u}'s attributes changed: {@code u} and the vertices that aggregate it. */
    public void markWithOutNeighbours(long u, long changedAt) throws Exception {
        if (!marking) {
            return;
        }
        mark(0, u, changedAt);
        for (long w : graph.outNeighbours(u)) {
            mark(0, w, changedAt);
        }
    }

    private void mark(int layer, long v, long changedAt) {
        if (!marking) {
            return;
        }
        LongLongHashMap p = pending[layer];
        int slot = p.indexOf(v);
        if (slot >= 0) {
            if (changedAt < p.indexGet(slot)) {
                p.indexReplace(slot, changedAt);
            }
        } else {
            p.indexInsert(slot, v, changedAt);
        }
    }

    /** Takes a pin record; true when it completed a round's pin. */
    public boolean pin(LayerOutputs record) {
        if (record.step <= pinnedStep) {
            return false;
        }
        if (!assembly.add(record)) {
            return false;
        }
        GnnModel fresh = GnnModel.create(config);
        fresh.setParameterVector(assembly.parameters());
        if (model != null) {
            model.close();
        }
        model = fresh;
        pinnedParams = assembly.parameters();
        pinnedStep = assembly.step();
        assembly = new PinAssembly();
        paused = false;
        marking = true;
        return true;
    }

    /** Whether {@link #process} has work it may do now. */
    public boolean hasWork() {
        if (model == null || paused) {
            return false;
        }
        for (LongLongHashMap p : pending) {
            if (!p.isEmpty()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Recomputes one block of marked vertices of the lowest layer that has any (a change's later
     * layers wait for its earlier ones, which mark them again); returns the vertices computed.
     */
    public int process(StoreOutputs out) throws Exception {
        if (!hasWork()) {
            return 0;
        }
        int layer = 0;
        while (pending[layer].isEmpty()) {
            layer++;
        }
        LongLongHashMap p = pending[layer];
        LongArrayList taken = new LongArrayList(Math.min(p.size(), BLOCK_VERTICES));
        LongArrayList times = new LongArrayList(taken.buffer.length);
        for (LongLongCursor c : p) {
            taken.add(c.key);
            times.add(c.value);
            if (taken.size() == BLOCK_VERTICES) {
                break;
            }
        }
        for (int i = 0; i < taken.size(); i++) {
            p.remove(taken.get(i));
        }
        compute(layer, taken.toArray(), times.toArray(), out);
        return taken.size();
    }

    private void compute(int j, long[] candidates, long[] changedAt, StoreOutputs out)
            throws Exception {
        int n = 0;
        long[] dst = new long[candidates.length];
        long[] at = new long[candidates.length];
        int[] labels = new int[candidates.length];
        for (int i = 0; i < candidates.length; i++) {
            int label = graph.label(candidates[i]);
            if (label != MiniBatch.ABSENT) {
                dst[n] = candidates[i];
                at[n] = changedAt[i];
                labels[n++] = label;
            }
        }
        if (n == 0) {
            return;
        }
        dst = Arrays.copyOf(dst, n);
        MiniBatch block = block(dst);
        boolean projected = config.projectsRoundInput(j, keepHidden);
        int width = config.roundRowWidth(j, keepHidden);
        long[] nodes = block.nodeIds;
        float[] input;
        if (j == 0) {
            int f = config.inFeatures();
            float[] features = new float[nodes.length * f];
            for (int i = 0; i < nodes.length; i++) {
                float[] x = graph.features(nodes[i]);
                if (x != null) {
                    System.arraycopy(x, 0, features, i * f, f);
                }
            }
            input = projected ? model.project(0, features, nodes.length) : features;
        } else {
            input = new float[nodes.length * width];
            rows.rows(j, pinnedStep, nodes, n, width, input);
        }
        float[] result =
                projected
                        ? model.inferProjected(j, block, input)
                        : model.inferLayer(j, block, input);
        recomputed += n;
        if (j == config.numLayers() - 1) {
            out.prediction(predictions(dst, at, result));
            predicted += n;
            return;
        }
        int next = j + 1;
        boolean nextProjected = config.projectsRoundInput(next, keepHidden);
        int dim = config.roundRowWidth(next, keepHidden);
        float[] stored = nextProjected ? model.project(next, result, n) : result;
        float[] before = new float[n * dim];
        rows.rows(next, pinnedStep, dst, n, dim, before);
        LayerOutputs outputs = new LayerOutputs();
        outputs.step = pinnedStep;
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
            if (!Arrays.equals(before, i * dim, (i + 1) * dim, stored, i * dim, (i + 1) * dim)) {
                mark(next, dst[i], at[i]);
                for (long w : graph.outNeighbours(dst[i])) {
                    mark(next, w, at[i]);
                }
            }
        }
    }

    private PredictionBatch predictions(long[] dst, long[] changedAt, float[] logits) {
        int classes = config.numClasses();
        PredictionBatch batch = new PredictionBatch();
        batch.step = pinnedStep;
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

    /** A one-hop block: the destinations first, then their neighbourhoods in first-seen order. */
    private MiniBatch block(long[] dst) throws Exception {
        long[][] hoods = new long[dst.length][];
        int edges = 0;
        for (int i = 0; i < dst.length; i++) {
            hoods[i] = graph.neighbourhood(dst[i]);
            edges += hoods[i].length;
        }
        LongIntHashMap index = new LongIntHashMap();
        LongArrayList nodes = new LongArrayList(dst.length + edges);
        for (long v : dst) {
            index.put(v, nodes.size());
            nodes.add(v);
        }
        MiniBatch b = new MiniBatch();
        b.numLayers = 1;
        b.indptr = new int[dst.length + 1];
        b.indptrOffsets = new int[] {0};
        b.indicesOffsets = new int[] {0};
        b.indices = new int[edges];
        int e = 0;
        for (int i = 0; i < dst.length; i++) {
            for (long u : hoods[i]) {
                int slot = index.indexOf(u);
                int row;
                if (slot >= 0) {
                    row = index.indexGet(slot);
                } else {
                    row = nodes.size();
                    index.indexInsert(slot, u, row);
                    nodes.add(u);
                }
                b.indices[e++] = row;
            }
            b.indptr[i + 1] = e;
        }
        b.nodeIds = nodes.toArray();
        b.nodeCounts = new int[] {dst.length, b.nodeIds.length};
        b.featureDim = config.inFeatures();
        b.labels = new int[dst.length];
        Arrays.fill(b.labels, MiniBatch.NO_LABEL);
        return b;
    }

    /** The step of the pinned model's round; -1 before the first. */
    public long pinnedStep() {
        return pinnedStep;
    }

    public boolean paused() {
        return paused;
    }

    /** Vertices marked and not yet recomputed, over all layers. */
    public long pendingVertices() {
        long n = 0;
        for (LongLongHashMap p : pending) {
            n += p.size();
        }
        return n;
    }

    /** Vertex layers recomputed since this subtask started. */
    public long recomputed() {
        return recomputed;
    }

    /** Predictions emitted since this subtask started. */
    public long predicted() {
        return predicted;
    }

    /** The state to snapshot ({@link IncrementalState}). */
    public IncrementalState state() {
        long[][] vertices = new long[pending.length][];
        long[][] times = new long[pending.length][];
        for (int j = 0; j < pending.length; j++) {
            vertices[j] = pending[j].keys().toArray();
            times[j] = new long[vertices[j].length];
            for (int i = 0; i < vertices[j].length; i++) {
                times[j][i] = pending[j].get(vertices[j][i]);
            }
        }
        return new IncrementalState(
                pinnedStep, pinnedParams, paused, marking, vertices, times, assembly);
    }

    /**
     * Restores from the states of every subtask of the snapshot: the newest pinned model, and the
     * marks of vertices {@code owned} accepts.
     */
    public void restore(Iterable<IncrementalState> states, java.util.function.LongPredicate owned) {
        for (IncrementalState s : states) {
            marking |= s.marking();
        }
        for (IncrementalState s : states) {
            if (s.pinnedStep() > pinnedStep && s.pinnedParams() != null) {
                pinnedStep = s.pinnedStep();
                pinnedParams = s.pinnedParams();
                paused = s.paused();
            }
            if (s.assembly().step() > assembly.step()) {
                assembly = s.assembly();
            }
            for (int j = 0; j < Math.min(pending.length, s.pending().length); j++) {
                for (int i = 0; i < s.pending()[j].length; i++) {
                    if (owned.test(s.pending()[j][i])) {
                        mark(j, s.pending()[j][i], s.changedAt()[j][i]);
                    }
                }
            }
        }
        if (pinnedParams != null) {
            model = GnnModel.create(config);
            model.setParameterVector(pinnedParams);
        }
    }
}

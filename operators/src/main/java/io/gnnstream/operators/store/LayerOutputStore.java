package io.gnnstream.operators.store;

import com.carrotsearch.hppc.LongIntHashMap;
import io.gnnstream.operators.messages.LayerOutputs;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.messages.SampleRequest;
import io.gnnstream.operators.messages.SampleResponse;
import io.gnnstream.operators.model.Architecture;
import io.gnnstream.operators.model.ModelType;
import io.gnnstream.state.LayerOutputRecord;
import io.gnnstream.state.VertexPartitioner;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntUnaryOperator;
import java.util.function.LongPredicate;
import org.apache.flink.api.common.state.KeyedStateStore;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;

/**
 * The GraphStore's layer-output store (docs/design.md, "Evaluation"): per vertex and hidden model
 * layer {@code j}, keyed state {@code layer-output-j} holding the vertex's output of layer {@code
 * j} in the latest inference round ({@link LayerOutputRecord}: the round's step, the vertex's
 * label, the outputs), in RocksDB with the rest of the vertex's state, so it spills to disk,
 * checkpoints and rescales with the graph. A round overwrites the values of the previous one.
 *
 * <p>A row whose leading floats only the next layer's destinations read (its root part: SAGE's
 * projection by the root weight, see {@code ModelConfig.roundRootWidth} and {@link
 * Architecture#hasRootWeight}) is kept as two values: the root part in {@code layer-output-j-root},
 * read for the destination rows of a request ({@link SampleRequest#layerRootRows}), about once per
 * vertex and round; the rest, which every block with the vertex among its sources reads, in {@code
 * layer-output-j} and the cache.
 *
 * <p>Root parts pass through a second heap cache per layer that only gets the room the rest parts
 * leave in the same budget: the rest parts are read once per block with the vertex among its
 * sources, a root part once per round, so a root part is dropped first and leaves the cache when
 * its destination reads it. A root part not found there is read from the state.
 *
 * <p>Each layer's rows pass through a {@link VertexValueCache} of a fixed heap budget as they are
 * written and read, so a round's next layer finds most of them on the heap: a layer's rows are read
 * once per block that has the vertex among its sources, about as often as the vertex has
 * out-neighbours. The cache is derived from the state (written through, never checkpointed), and an
 * entry of an older round is read again from the state.
 *
 * <p>Inference blocks of layer {@code j+1} read their source rows here ({@link #part}): a row
 * written by another round than the request's, or never written (a vertex without attributes at the
 * round's start), goes out as zeros without a label and is counted ({@link #missingRows}).
 *
 * <p>Where rows have a root part, a destination's sampled in-neighbours that this subtask owns are
 * aggregated here ({@link #sumOwned}): their rest parts are summed, scaled as the model's {@link
 * Architecture} aggregates them (SAGE: divided by the destination's degree) and added to the
 * destination's root part, and they leave the block. The layer is linear in its rows up to that
 * point ({@code root(v) + mean_u neigh(u)}), so the trainer adds the other owners' rows to the same
 * result, and rows of a block's owned neighbours are never copied, sent or aggregated by the
 * trainer.
 */
public final class LayerOutputStore {

    private static final VarHandle FLOATS =
            MethodHandles.byteArrayViewVarHandle(float[].class, ByteOrder.LITTLE_ENDIAN);

    /**
     * Looks up a vertex's label (its attribute record's), {@link MiniBatch#NO_LABEL} for an
     * unlabelled one, or {@link MiniBatch#ABSENT} for a vertex without attributes (deleted).
     */
    @FunctionalInterface
    public interface Labels {
        int labelOf(long vertex) throws Exception;
    }

    private final KeyedStateStore store;
    private final VertexPartitioner partitioner;
    private final CurrentKey setCurrentKey;
    private final List<ValueState<byte[]>> layers = new ArrayList<>();
    private final List<ValueState<byte[]>> roots = new ArrayList<>();
    private final IntUnaryOperator rootWidth;
    private final Architecture architecture;
    private final long cacheBytes;
    private final List<VertexValueCache> caches = new ArrayList<>();
    private final List<VertexValueCache> rootCaches = new ArrayList<>();
    private byte[][] gathered = new byte[64][];
    private long[] ownedNeighbours = new long[64];
    private long missingRows;
    private long cacheHits;
    private long rowsWritten;
    private long summedRows;

    /** Told of every destination sum {@link #sumOwned} makes of a whole neighbourhood; or null. */
    private OwnedSums ownedSums;

    /**
     * Takes a destination's sum that {@link #sumOwned} made over all its sampled in-neighbours: the
     * unscaled sum of their rows' rest parts of layer {@code layer} of the round of {@code step},
     * and the neighbours, {@code neighbours[from, from + count)}.
     */
    public interface OwnedSums {
        void summed(
                int layer,
                long step,
                long vertex,
                float[] sum,
                long[] neighbours,
                int from,
                int count)
                throws Exception;
    }

    /** {@code listener} takes the sums of whole neighbourhoods that rounds make here. */
    public void followOwnedSums(OwnedSums listener) {
        this.ownedSums = listener;
    }

    /** A store for rows of the {@link ModelType#DEFAULT} architecture. */
    public LayerOutputStore(
            KeyedStateStore store,
            VertexPartitioner partitioner,
            CurrentKey setCurrentKey,
            long cacheBytes,
            IntUnaryOperator rootWidth) {
        this(
                store,
                partitioner,
                setCurrentKey,
                cacheBytes,
                rootWidth,
                ModelType.DEFAULT.architecture());
    }

    /**
     * @param cacheBytes heap for the rows of each layer written or read last (0: none)
     * @param rootWidth per hidden layer (1-based), the leading floats of its rows that only
     *     destinations read (0: none), kept apart from the rest and cached in what room the rest
     *     leave
     * @param architecture the model's, which says how owned neighbours' sums join a destination's
     *     aggregate ({@link #sumOwned})
     */
    public LayerOutputStore(
            KeyedStateStore store,
            VertexPartitioner partitioner,
            CurrentKey setCurrentKey,
            long cacheBytes,
            IntUnaryOperator rootWidth,
            Architecture architecture) {
        this.store = store;
        this.rootWidth = rootWidth;
        this.architecture = architecture;
        this.cacheBytes = cacheBytes;
        this.partitioner = partitioner;
        this.setCurrentKey = setCurrentKey;
    }

    /** The state of model layer {@code layer} (1-based), registered on first use. */
    private ValueState<byte[]> layer(int layer) {
        if (layer < 1) {
            throw new IllegalArgumentException(
                    "layer outputs of layer " + layer + " (layers are 1-based)");
        }
        while (layers.size() < layer) {
            layers.add(
                    store.getState(
                            new ValueStateDescriptor<>(
                                    "layer-output-" + (layers.size() + 1),
                                    PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO)));
            roots.add(
                    store.getState(
                            new ValueStateDescriptor<>(
                                    "layer-output-" + (roots.size() + 1) + "-root",
                                    PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO)));
            caches.add(new VertexValueCache(cacheBytes));
            rootCaches.add(new VertexValueCache(cacheBytes));
        }
        return layers.get(layer - 1);
    }

    /**
     * Stores every row of {@code outputs} under its vertex, with the vertex's label: its root part
     * (the layer's {@code rootWidth} leading floats) and the rest apart.
     */
    public void write(LayerOutputs outputs, Labels labels) throws Exception {
        ValueState<byte[]> state = layer(outputs.layer);
        ValueState<byte[]> rootState = roots.get(outputs.layer - 1);
        int root = Math.min(rootWidth.applyAsInt(outputs.layer), outputs.dim);
        int n = outputs.vertices.length;
        long[] written = new long[n];
        byte[][] records = new byte[n][];
        byte[][] rootRecords = new byte[n][];
        int w = 0;
        for (int i = 0; i < n; i++) {
            long v = outputs.vertices[i];
            int label = labels.labelOf(v);
            if (label == MiniBatch.ABSENT) {
                continue; // deleted while the round was in flight: no row to keep
            }
            setCurrentKey.set(partitioner.keyOf(v));
            int offset = i * outputs.dim;
            written[w] = v;
            records[w] =
                    LayerOutputRecord.encode(
                            outputs.step, label, outputs.values, offset + root, outputs.dim - root);
            state.update(records[w]);
            if (root > 0) {
                rootRecords[w] =
                        LayerOutputRecord.encode(outputs.step, label, outputs.values, offset, root);
                rootState.update(rootRecords[w]);
            }
            w++;
        }
        caches.get(outputs.layer - 1).putAll(written, records, w);
        if (root > 0) {
            rootCaches.get(outputs.layer - 1).putAll(written, rootRecords, w);
            fitRoots(outputs.layer);
        }
        rowsWritten += n;
    }

    /**
     * The feature part answering {@code request} (whose {@link SampleRequest#layerInput} is set):
     * the stored outputs of its feature vertices, written by the round of the request's step; the
     * root part only for the rows below {@link SampleRequest#layerRootRows} (zeros for the others).
     */
    public MiniBatchPart part(SampleRequest request) throws Exception {
        return part(request, null);
    }

    /**
     * As {@link #part(SampleRequest)}, adding {@code summed[j]} (where not null) to the root part
     * of feature row {@code j} (see {@link #sumOwned}).
     */
    public MiniBatchPart part(SampleRequest request, float[][] summed) throws Exception {
        layer(request.layerInput);
        ValueState<byte[]> rootState = roots.get(request.layerInput - 1);
        long[] vertices = request.featureVertices;
        int dim = request.layerDim;
        int root = Math.min(rootWidth.applyAsInt(request.layerInput), dim);
        int rowBytes = dim * Float.BYTES;
        byte[] bytes = new byte[vertices.length * rowBytes];
        int[] labels = new int[vertices.length];
        VertexValueCache rootCache = rootCaches.get(request.layerInput - 1);
        byte[][] records = new byte[vertices.length][];
        storedAll(request.layerInput, vertices, vertices.length, request.samplingKey, records);
        for (int j = 0; j < vertices.length; j++) {
            byte[] record = records[j];
            if (!current(record, request.samplingKey, dim - root)) {
                labels[j] = MiniBatch.ABSENT;
                missingRows++;
                continue;
            }
            labels[j] = LayerOutputRecord.label(record);
            LayerOutputRecord.copyValueBytes(record, bytes, j * rowBytes + root * Float.BYTES);
            if (root > 0 && request.featureRows[j] < request.layerRootRows) {
                byte[] rootRecord = rootCache.take(vertices[j]);
                if (current(rootRecord, request.samplingKey, root)) {
                    cacheHits++;
                } else {
                    setCurrentKey.set(partitioner.keyOf(vertices[j]));
                    rootRecord = rootState.value();
                }
                if (current(rootRecord, request.samplingKey, root)) {
                    LayerOutputRecord.copyValueBytes(rootRecord, bytes, j * rowBytes);
                } else {
                    missingRows++;
                }
                if (summed != null && summed[j] != null) {
                    for (int c = 0; c < root; c++) {
                        int at = j * rowBytes + c * Float.BYTES;
                        FLOATS.set(bytes, at, (float) FLOATS.get(bytes, at) + summed[j][c]);
                    }
                }
            }
        }
        MiniBatchPart part =
                MiniBatchPart.features(
                        request.batchId,
                        request.seq,
                        request.trainer,
                        request.attempt,
                        request.featurePart,
                        request.featureRows.clone(),
                        labels,
                        bytes);
        part.rowDim = dim;
        return part;
    }

    /**
     * The stored rows of layer {@code layer} (1-based) of round {@code step} for {@code vertices},
     * {@code dim} floats each, into {@code out} (row {@code i} at {@code i * dim}): the root part
     * only for the first {@code rootRows} vertices (zeros for the others, which the layer does not
     * read); zeros and counted as missing where a vertex has no row of that round. For incremental
     * predictions, which read the rows a round stored. Returns which vertices have their row (the
     * root part included where read) of that round.
     */
    public boolean[] rows(int layer, long step, long[] vertices, int rootRows, int dim, float[] out)
            throws Exception {
        return rows(layer, step, vertices, rootRows, dim, out, null);
    }

    /**
     * As {@link #rows(int, long, long[], int, int, float[])}, with the label each row was written
     * with into {@code labels} (where it returns true). A row of the round exists only for a vertex
     * with a record: {@link #forget} clears a deleted vertex's rows, and {@link #write} skips a
     * vertex without one.
     */
    public boolean[] rows(
            int layer, long step, long[] vertices, int rootRows, int dim, float[] out, int[] labels)
            throws Exception {
        layer(layer);
        ValueState<byte[]> rootState = roots.get(layer - 1);
        int root = Math.min(rootWidth.applyAsInt(layer), dim);
        byte[][] records = new byte[vertices.length][];
        boolean[] stored = new boolean[vertices.length];
        storedAll(layer, vertices, vertices.length, step, records);
        for (int i = 0; i < vertices.length; i++) {
            if (!current(records[i], step, dim - root)) {
                missingRows++;
                continue;
            }
            copyFloats(records[i], out, i * dim + root, dim - root);
            stored[i] = true;
            if (labels != null) {
                labels[i] = LayerOutputRecord.label(records[i]);
            }
            if (root > 0 && i < rootRows) {
                // Kept in the cache: incremental predictions read a vertex's root part again
                // whenever they recompute it, where a round reads it once.
                VertexValueCache rootCache = rootCaches.get(layer - 1);
                byte[] rootRecord = rootCache.get(vertices[i]);
                if (!current(rootRecord, step, root)) {
                    setCurrentKey.set(partitioner.keyOf(vertices[i]));
                    rootRecord = rootState.value();
                    if (rootRecord != null) {
                        rootCache.put(vertices[i], rootRecord);
                        fitRoots(layer);
                    }
                }
                if (current(rootRecord, step, root)) {
                    copyFloats(rootRecord, out, i * dim, root);
                } else {
                    missingRows++;
                    stored[i] = false;
                }
            }
        }
        return stored;
    }

    private static void copyFloats(byte[] record, float[] out, int at, int n) {
        for (int c = 0, b = LayerOutputRecord.HEADER_BYTES; c < n; c++, b += Float.BYTES) {
            out[at + c] = (float) FLOATS.get(record, b);
        }
    }

    /**
     * For a request of a layer whose rows have a root part: sums, for each sampled vertex that is
     * also among the request's destination rows, the rest parts of the sampled in-neighbours that
     * {@code owned} accepts, scaled as the architecture's aggregate does ({@link
     * Architecture#scaleOwnedSum}: SAGE divides by the vertex's degree, all its sampled
     * in-neighbours), and leaves only the others in {@code response} ({@link
     * SampleResponse#summedCounts} counts the summed ones). Returns the sums per feature row of the
     * request (null where none), for {@link #part(SampleRequest, float[][])}; null when the request
     * has no such rows. An owned neighbour without a row of the round adds nothing and is counted
     * as missing, as a row served as zeros.
     */
    public float[][] sumOwned(SampleRequest request, SampleResponse response, LongPredicate owned)
            throws Exception {
        int layer = request.layerInput;
        int root = layer > 0 ? Math.min(rootWidth.applyAsInt(layer), request.layerDim) : 0;
        int rest = request.layerDim - root;
        if (root == 0
                || rest != root // the rest parts are not the root part's terms
                || request.layerRootRows == 0
                || response.sampleVertices.length == 0) {
            return null;
        }
        LongIntHashMap destinationRow = new LongIntHashMap();
        for (int j = 0; j < request.featureVertices.length; j++) {
            if (request.featureRows[j] < request.layerRootRows) {
                destinationRow.put(request.featureVertices[j], j + 1);
            }
        }
        if (destinationRow.isEmpty()) {
            return null;
        }
        layer(layer);
        float[][] sums = new float[request.featureVertices.length][];
        long[] sampled = response.sampleVertices;
        int[] counts = response.neighbourCounts;
        long[] neighbours = response.neighbours;
        int[] summedCounts = new int[sampled.length];
        int[] kept = new int[sampled.length];
        long[] keptNeighbours = new long[neighbours.length];
        int keptTotal = 0;
        for (int i = 0, at = 0; i < sampled.length; at += counts[i], i++) {
            int row = destinationRow.getOrDefault(sampled[i], 0) - 1;
            if (row < 0 || counts[i] == 0) {
                System.arraycopy(neighbours, at, keptNeighbours, keptTotal, counts[i]);
                keptTotal += counts[i];
                kept[i] = counts[i];
                continue;
            }
            // First every owned neighbour's row, then their sum: the lookups do not depend on each
            // other, so their cache misses overlap instead of each waiting for the one before.
            if (gathered.length < counts[i]) {
                gathered = new byte[Math.max(counts[i], 2 * gathered.length)][];
                ownedNeighbours = new long[gathered.length];
            }
            for (int k = at; k < at + counts[i]; k++) {
                long u = neighbours[k];
                if (owned.test(u)) {
                    ownedNeighbours[summedCounts[i]++] = u;
                } else {
                    keptNeighbours[keptTotal++] = u;
                    kept[i]++;
                }
            }
            storedAll(layer, ownedNeighbours, summedCounts[i], request.samplingKey, gathered);
            int found = 0;
            for (int k = 0; k < summedCounts[i]; k++) {
                if (current(gathered[k], request.samplingKey, rest)) {
                    gathered[found++] = gathered[k];
                } else {
                    missingRows++;
                }
            }
            summedRows += summedCounts[i];
            if (summedCounts[i] > 0) {
                sums[row] = sumOf(gathered, found, root);
                if (ownedSums != null && summedCounts[i] == counts[i]) {
                    ownedSums.summed(
                            layer,
                            request.samplingKey,
                            sampled[i],
                            sums[row].clone(),
                            neighbours,
                            at,
                            counts[i]);
                }
                architecture.scaleOwnedSum(sums[row], root, counts[i]);
            }
            Arrays.fill(gathered, 0, summedCounts[i], null);
        }
        response.neighbourCounts = kept;
        response.neighbours = Arrays.copyOf(keptNeighbours, keptTotal);
        response.summedCounts = summedCounts;
        return sums;
    }

    /**
     * The sum of the first {@code root} floats of {@code records[0, n)}. Four rows at a time, whose
     * reads the memory system fetches in parallel; each float still adds the rows one by one in
     * order.
     */
    private static float[] sumOf(byte[][] records, int n, int root) {
        float[] sum = new float[root];
        int h = LayerOutputRecord.HEADER_BYTES;
        int k = 0;
        for (; k + 4 <= n; k += 4) {
            byte[] r0 = records[k];
            byte[] r1 = records[k + 1];
            byte[] r2 = records[k + 2];
            byte[] r3 = records[k + 3];
            for (int c = 0, b = h; c < root; c++, b += Float.BYTES) {
                float v = sum[c];
                v += (float) FLOATS.get(r0, b);
                v += (float) FLOATS.get(r1, b);
                v += (float) FLOATS.get(r2, b);
                v += (float) FLOATS.get(r3, b);
                sum[c] = v;
            }
        }
        for (; k < n; k++) {
            byte[] r = records[k];
            for (int c = 0, b = h; c < root; c++, b += Float.BYTES) {
                sum[c] += (float) FLOATS.get(r, b);
            }
        }
        return sum;
    }

    /** Drops root parts of layer {@code layer} until both of its caches fit the budget. */
    private void fitRoots(int layer) {
        rootCaches.get(layer - 1).trimTo(cacheBytes - caches.get(layer - 1).bytes());
    }

    /**
     * The stored rows of {@code vertices[0..n)} into {@code out[0..n)}: the cache's where it is of
     * round {@code step} (a hit), else read from the state and cached; null where none. The cache
     * lookups come first, all of them, so that their cache misses overlap.
     */
    private void storedAll(int layer, long[] vertices, int n, long step, byte[][] out)
            throws Exception {
        VertexValueCache cache = caches.get(layer - 1);
        cache.getAll(vertices, 0, n, out);
        for (int i = 0; i < n; i++) {
            byte[] record = out[i];
            if (record != null && LayerOutputRecord.step(record) == step) {
                cacheHits++;
                continue;
            }
            setCurrentKey.set(partitioner.keyOf(vertices[i]));
            record = layer(layer).value();
            if (record != null) {
                cache.put(vertices[i], record);
                fitRoots(layer);
            }
            out[i] = record;
        }
    }

    private static boolean current(byte[] record, long step, int dim) {
        return record != null
                && LayerOutputRecord.step(record) == step
                && LayerOutputRecord.dim(record) == dim;
    }

    /**
     * Forgets the rows of {@code vertex} (a deleted vertex) in each of the model's first {@code
     * layers} layers and any other layer written since the start; leaves its key current.
     */
    public void forget(long vertex, int layers) throws Exception {
        setCurrentKey.set(partitioner.keyOf(vertex));
        int n = Math.max(layers, this.layers.size());
        for (int l = 1; l <= n; l++) {
            layer(l).clear();
            roots.get(l - 1).clear();
            caches.get(l - 1).invalidate(vertex);
            rootCaches.get(l - 1).invalidate(vertex);
        }
    }

    /** Rows asked for that had no output of the request's round (served as zeros). */
    public long missingRows() {
        return missingRows;
    }

    /** Rows and root parts asked for that the heap caches served. */
    public long cacheHits() {
        return cacheHits;
    }

    /** Rows of owned neighbours summed into their destinations' root parts ({@link #sumOwned}). */
    public long summedRows() {
        return summedRows;
    }

    /** Rows stored since this subtask started. */
    public long rowsWritten() {
        return rowsWritten;
    }
}

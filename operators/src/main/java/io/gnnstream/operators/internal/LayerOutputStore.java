package io.gnnstream.operators.internal;

import io.gnnstream.operators.messages.LayerOutputs;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.messages.SampleRequest;
import io.gnnstream.state.LayerOutputRecord;
import io.gnnstream.state.VertexKey;
import io.gnnstream.state.VertexPartitioner;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.IntUnaryOperator;
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
 * projection by the root weight, see {@code ModelConfig.roundRootWidth}) is kept as two values: the
 * root part in {@code layer-output-j-root}, read for the destination rows of a request ({@link
 * SampleRequest#layerRootRows}), about once per vertex and round; the rest, which every block with
 * the vertex among its sources reads, in {@code layer-output-j} and the cache.
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
 */
public final class LayerOutputStore {

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
    private final Consumer<VertexKey> setCurrentKey;
    private final List<ValueState<byte[]>> layers = new ArrayList<>();
    private final List<ValueState<byte[]>> roots = new ArrayList<>();
    private final IntUnaryOperator rootWidth;
    private final long cacheBytes;
    private final List<VertexValueCache> caches = new ArrayList<>();
    private long missingRows;
    private long cacheHits;
    private long rowsWritten;

    /**
     * @param cacheBytes heap for the rows of each layer written or read last (0: none)
     * @param rootWidth per hidden layer (1-based), the leading floats of its rows that only
     *     destinations read (0: none), kept apart from the rest and not cached
     */
    public LayerOutputStore(
            KeyedStateStore store,
            VertexPartitioner partitioner,
            Consumer<VertexKey> setCurrentKey,
            long cacheBytes,
            IntUnaryOperator rootWidth) {
        this.store = store;
        this.rootWidth = rootWidth;
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
        VertexValueCache cache = caches.get(outputs.layer - 1);
        int root = Math.min(rootWidth.applyAsInt(outputs.layer), outputs.dim);
        for (int i = 0; i < outputs.vertices.length; i++) {
            long v = outputs.vertices[i];
            int label = labels.labelOf(v);
            if (label == MiniBatch.ABSENT) {
                continue; // deleted while the round was in flight: no row to keep
            }
            setCurrentKey.accept(partitioner.keyOf(v));
            int offset = i * outputs.dim;
            byte[] record =
                    LayerOutputRecord.encode(
                            outputs.step, label, outputs.values, offset + root, outputs.dim - root);
            state.update(record);
            cache.put(v, record);
            if (root > 0) {
                rootState.update(
                        LayerOutputRecord.encode(
                                outputs.step, label, outputs.values, offset, root));
            }
        }
        rowsWritten += outputs.vertices.length;
    }

    /**
     * The feature part answering {@code request} (whose {@link SampleRequest#layerInput} is set):
     * the stored outputs of its feature vertices, written by the round of the request's step; the
     * root part only for the rows below {@link SampleRequest#layerRootRows} (zeros for the others).
     */
    public MiniBatchPart part(SampleRequest request) throws Exception {
        ValueState<byte[]> state = layer(request.layerInput);
        ValueState<byte[]> rootState = roots.get(request.layerInput - 1);
        long[] vertices = request.featureVertices;
        int dim = request.layerDim;
        int root = Math.min(rootWidth.applyAsInt(request.layerInput), dim);
        int rowBytes = dim * Float.BYTES;
        byte[] bytes = new byte[vertices.length * rowBytes];
        int[] labels = new int[vertices.length];
        VertexValueCache cache = caches.get(request.layerInput - 1);
        for (int j = 0; j < vertices.length; j++) {
            boolean keyed = false;
            byte[] record = cache.get(vertices[j]);
            if (record != null && LayerOutputRecord.step(record) == request.samplingKey) {
                cacheHits++;
            } else {
                setCurrentKey.accept(partitioner.keyOf(vertices[j]));
                keyed = true;
                record = state.value();
                if (record != null) {
                    cache.put(vertices[j], record);
                }
            }
            if (!current(record, request.samplingKey, dim - root)) {
                labels[j] = MiniBatch.ABSENT;
                missingRows++;
                continue;
            }
            labels[j] = LayerOutputRecord.label(record);
            LayerOutputRecord.copyValueBytes(record, bytes, j * rowBytes + root * Float.BYTES);
            if (root > 0 && request.featureRows[j] < request.layerRootRows) {
                if (!keyed) {
                    setCurrentKey.accept(partitioner.keyOf(vertices[j]));
                }
                byte[] rootRecord = rootState.value();
                if (current(rootRecord, request.samplingKey, root)) {
                    LayerOutputRecord.copyValueBytes(rootRecord, bytes, j * rowBytes);
                } else {
                    missingRows++;
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
        setCurrentKey.accept(partitioner.keyOf(vertex));
        int n = Math.max(layers, this.layers.size());
        for (int l = 1; l <= n; l++) {
            layer(l).clear();
            roots.get(l - 1).clear();
            caches.get(l - 1).invalidate(vertex);
        }
    }

    /** Rows asked for that had no output of the request's round (served as zeros). */
    public long missingRows() {
        return missingRows;
    }

    /** Rows asked for that the heap cache served. */
    public long cacheHits() {
        return cacheHits;
    }

    /** Rows stored since this subtask started. */
    public long rowsWritten() {
        return rowsWritten;
    }
}

package io.gnnstream.operators.serialization;

import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.state.serialization.BulkArrays;
import io.gnnstream.state.serialization.SerializerTypeInfo;
import java.io.IOException;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Explicit serializer of {@link MiniBatch}: scalar fields (the kind as its {@link
 * MiniBatch.Kind#code()}), then every array in bulk, then (format 4) the layer of a layer-wise
 * inference block, and the fields of later formats at the end (format 9: the nodes' degrees);
 * format 3 records, which have no layer, read as sampled batches.
 */
public final class MiniBatchSerializer extends BulkRecordSerializer<MiniBatch> {

    private static final long serialVersionUID = 1L;

    public static final MiniBatchSerializer INSTANCE = new MiniBatchSerializer();

    public static final TypeInformation<MiniBatch> TYPE_INFO =
            new SerializerTypeInfo<>(MiniBatch.class, INSTANCE);

    /** The first format with {@link MiniBatch#layer}. */
    static final byte WITH_LAYER = 4;

    /**
     * The first format with the batch's loop traffic ({@link MiniBatch#loopRequests} and after).
     */
    static final byte WITH_TRAFFIC = 5;

    /**
     * The first format with the remote share of the traffic ({@link MiniBatch#remoteLoopBytes}) and
     * the graph's replicas and cut edges ({@link MiniBatch#graphReplicas}).
     */
    static final byte WITH_REMOTE_TRAFFIC = 6;

    /** The first format with {@link MiniBatch#roundShare}. */
    static final byte WITH_ROUND_SHARE = 7;

    /** The first format with {@link MiniBatch#summedNeighbours}. */
    static final byte WITH_SUMMED = 8;

    /** The first format with {@link MiniBatch#degrees}. */
    static final byte WITH_DEGREES = 9;

    @Override
    byte formatVersion() {
        return WITH_DEGREES;
    }

    @Override
    public MiniBatch createInstance() {
        return new MiniBatch();
    }

    @Override
    void writeFields(MiniBatch b, DataOutputView out) throws IOException {
        out.writeLong(b.batchId);
        out.writeLong(b.seq);
        out.writeInt(b.trainer);
        out.writeInt(b.kind.code());
        out.writeLong(b.step);
        out.writeInt(b.roundIndex);
        out.writeInt(b.roundSize);
        out.writeBoolean(b.finalRound);
        out.writeInt(b.numLayers);
        out.writeInt(b.featureDim);
        out.writeLong(b.graphVertices);
        out.writeLong(b.graphEdgesIngested);
        BulkArrays.writeInts(b.nodeCounts, out);
        BulkArrays.writeLongs(b.nodeIds, out);
        BulkArrays.writeInts(b.indptr, out);
        BulkArrays.writeInts(b.indptrOffsets, out);
        BulkArrays.writeInts(b.indices, out);
        BulkArrays.writeInts(b.indicesOffsets, out);
        // The trainer reuses feature arrays, so one may be longer than the batch's rows.
        BulkArrays.writeFloats(
                b.features,
                b.features == null ? -1 : Math.min(b.features.length, b.numNodes() * b.featureDim),
                out);
        BulkArrays.writeInts(b.labels, out);
        out.writeInt(b.layer);
        out.writeInt(b.loopRequests);
        out.writeLong(b.loopRequestVertices);
        out.writeLong(b.loopBytes);
        out.writeLong(b.featureBytes);
        out.writeLong(b.remoteLoopBytes);
        out.writeLong(b.remoteFeatureBytes);
        out.writeLong(b.graphReplicas);
        out.writeLong(b.graphCutEdgesIngested);
        out.writeInt(b.remoteLoopRequests);
        out.writeInt(b.roundShare);
        out.writeBoolean(b.summedNeighbours != null);
        if (b.summedNeighbours != null) {
            BulkArrays.writeInts(b.summedNeighbours, out);
        }
        out.writeBoolean(b.degrees != null);
        if (b.degrees != null) {
            BulkArrays.writeInts(b.degrees, out);
        }
    }

    @Override
    MiniBatch readFields(DataInputView in) throws IOException {
        return readFields(in, WITH_DEGREES);
    }

    @Override
    MiniBatch readFields(DataInputView in, byte version) throws IOException {
        MiniBatch b = new MiniBatch();
        b.batchId = in.readLong();
        b.seq = in.readLong();
        b.trainer = in.readInt();
        b.kind = kind(in.readInt());
        b.step = in.readLong();
        b.roundIndex = in.readInt();
        b.roundSize = in.readInt();
        b.finalRound = in.readBoolean();
        b.numLayers = in.readInt();
        b.featureDim = in.readInt();
        b.graphVertices = in.readLong();
        b.graphEdgesIngested = in.readLong();
        b.nodeCounts = BulkArrays.readInts(in);
        b.nodeIds = BulkArrays.readLongs(in);
        b.indptr = BulkArrays.readInts(in);
        b.indptrOffsets = BulkArrays.readInts(in);
        b.indices = BulkArrays.readInts(in);
        b.indicesOffsets = BulkArrays.readInts(in);
        b.features = BulkArrays.readFloats(in);
        b.labels = BulkArrays.readInts(in);
        b.layer = version >= WITH_LAYER ? in.readInt() : 0;
        if (version >= WITH_TRAFFIC) {
            b.loopRequests = in.readInt();
            b.loopRequestVertices = in.readLong();
            b.loopBytes = in.readLong();
            b.featureBytes = in.readLong();
        }
        if (version >= WITH_REMOTE_TRAFFIC) {
            b.remoteLoopBytes = in.readLong();
            b.remoteFeatureBytes = in.readLong();
            b.graphReplicas = in.readLong();
            b.graphCutEdgesIngested = in.readLong();
            b.remoteLoopRequests = in.readInt();
        }
        if (version >= WITH_ROUND_SHARE) {
            b.roundShare = in.readInt();
        }
        if (version >= WITH_SUMMED && in.readBoolean()) {
            b.summedNeighbours = BulkArrays.readInts(in);
        }
        if (version >= WITH_DEGREES && in.readBoolean()) {
            b.degrees = BulkArrays.readInts(in);
        }
        return b;
    }

    private static MiniBatch.Kind kind(int code) throws IOException {
        try {
            return MiniBatch.Kind.ofCode(code);
        } catch (IllegalArgumentException e) {
            throw new IOException("corrupt MiniBatch record: " + e.getMessage(), e);
        }
    }

    @Override
    public TypeSerializerSnapshot<MiniBatch> snapshotConfiguration() {
        return new MiniBatchSerializerSnapshot();
    }

    /** Versioned snapshot; the record format carries its own version byte as well. */
    public static final class MiniBatchSerializerSnapshot
            extends SimpleTypeSerializerSnapshot<MiniBatch> {
        public MiniBatchSerializerSnapshot() {
            super(() -> INSTANCE);
        }
    }
}

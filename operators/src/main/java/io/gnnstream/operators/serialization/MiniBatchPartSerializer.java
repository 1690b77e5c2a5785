package io.gnnstream.operators.serialization;

import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.state.VertexRecord;
import io.gnnstream.state.serialization.BulkArrays;
import io.gnnstream.state.serialization.SerializerTypeInfo;
import java.io.IOException;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Explicit serializer of {@link MiniBatchPart}: the part's identity, the head if any, its rows,
 * then (since format 4) its cache slots, (since format 5) its vertices and the head's served rows,
 * and (since format 6) its sender, (since format 7) its row width; format 8 carries a head of
 * format 8; format 9 adds the rows' degrees and carries a head of format 9. Reads formats 3 to 8 as
 * well, so checkpointed parts of those formats restore. A head inside a part is written without a
 * version byte of its own, in the {@link MiniBatchSerializer} format of the same number as the
 * part's.
 */
public final class MiniBatchPartSerializer extends BulkRecordSerializer<MiniBatchPart> {

    private static final long serialVersionUID = 1L;

    public static final MiniBatchPartSerializer INSTANCE = new MiniBatchPartSerializer();

    private static final byte WITH_CACHE_SLOTS = 4;
    private static final byte WITH_VERTICES = 5;
    private static final byte WITH_SENDER = 6;
    private static final byte WITH_ROW_DIM = 7;
    private static final byte WITH_SUMMED_HEAD = 8;
    private static final byte WITH_DEGREES = 9;

    public static final TypeInformation<MiniBatchPart> TYPE_INFO =
            new SerializerTypeInfo<>(MiniBatchPart.class, INSTANCE);

    @Override
    public MiniBatchPart createInstance() {
        return new MiniBatchPart();
    }

    @Override
    void writeFields(MiniBatchPart p, DataOutputView out) throws IOException {
        out.writeLong(p.batchId);
        out.writeLong(p.seq);
        out.writeInt(p.trainer);
        out.writeInt(p.attempt);
        out.writeInt(p.part);
        out.writeInt(p.numParts);
        out.writeBoolean(p.head != null);
        if (p.head != null) {
            MiniBatchSerializer.INSTANCE.writeFields(p.head, out);
        }
        BulkArrays.writeInts(p.rows, out);
        BulkArrays.writeInts(p.labels, out);
        if (p.featureRecords != null) {
            writeFeaturesOfRecords(p.featureRecords, out);
        } else {
            BulkArrays.writeBytes(p.features, out);
        }
        out.writeLong(p.cacheEpoch);
        BulkArrays.writeInts(p.fillSlots, out);
        BulkArrays.writeInts(p.cachedRows, out);
        BulkArrays.writeInts(p.cachedSlots, out);
        out.writeBoolean(p.vertices != null);
        if (p.vertices != null) {
            BulkArrays.writeLongs(p.vertices, out);
            BulkArrays.writeLongs(p.cachedVertices, out);
        }
        BulkArrays.writeInts(p.servedRows, out);
        out.writeInt(p.sender);
        out.writeInt(p.rowDim);
        out.writeBoolean(p.degrees != null);
        if (p.degrees != null) {
            BulkArrays.writeInts(p.degrees, out);
        }
    }

    /**
     * The records' features in the layout of {@link BulkArrays#writeBytes}: length, then the rows.
     */
    private static void writeFeaturesOfRecords(byte[][] records, DataOutputView out)
            throws IOException {
        int rowBytes = records.length == 0 ? 0 : VertexRecord.featureDim(records[0]) * Float.BYTES;
        out.writeInt(records.length * rowBytes);
        for (byte[] record : records) {
            if (VertexRecord.featureDim(record) * Float.BYTES != rowBytes) {
                throw new IllegalStateException(
                        "feature records of different dimensions in one part: "
                                + VertexRecord.featureDim(record)
                                + " and "
                                + rowBytes / Float.BYTES);
            }
            VertexRecord.writeFeatureBytes(record, out);
        }
    }

    @Override
    byte formatVersion() {
        return WITH_DEGREES;
    }

    @Override
    MiniBatchPart readFields(DataInputView in) throws IOException {
        return readFields(in, WITH_DEGREES);
    }

    @Override
    MiniBatchPart readFields(DataInputView in, byte version) throws IOException {
        MiniBatchPart p = new MiniBatchPart();
        p.batchId = in.readLong();
        p.seq = in.readLong();
        p.trainer = in.readInt();
        p.attempt = in.readInt();
        p.part = in.readInt();
        p.numParts = in.readInt();
        if (in.readBoolean()) {
            p.head = MiniBatchSerializer.INSTANCE.readFields(in, version);
        }
        p.rows = BulkArrays.readInts(in);
        p.labels = BulkArrays.readInts(in);
        p.features = BulkArrays.readBytes(in);
        if (version >= WITH_CACHE_SLOTS) {
            p.cacheEpoch = in.readLong();
            p.fillSlots = BulkArrays.readInts(in);
            p.cachedRows = BulkArrays.readInts(in);
            p.cachedSlots = BulkArrays.readInts(in);
        }
        if (version >= WITH_VERTICES) {
            if (in.readBoolean()) {
                p.vertices = BulkArrays.readLongs(in);
                p.cachedVertices = BulkArrays.readLongs(in);
            }
            p.servedRows = BulkArrays.readInts(in);
        }
        if (version >= WITH_SENDER) {
            p.sender = in.readInt();
        }
        if (version >= WITH_ROW_DIM) {
            p.rowDim = in.readInt();
        }
        if (version >= WITH_DEGREES && in.readBoolean()) {
            p.degrees = BulkArrays.readInts(in);
        }
        return p;
    }

    @Override
    public TypeSerializerSnapshot<MiniBatchPart> snapshotConfiguration() {
        return new MiniBatchPartSerializerSnapshot();
    }

    /** Versioned snapshot; the record format carries its own version byte as well. */
    public static final class MiniBatchPartSerializerSnapshot
            extends SimpleTypeSerializerSnapshot<MiniBatchPart> {
        public MiniBatchPartSerializerSnapshot() {
            super(() -> INSTANCE);
        }
    }
}

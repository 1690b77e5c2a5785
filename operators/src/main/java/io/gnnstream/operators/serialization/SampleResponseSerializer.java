package io.gnnstream.operators.serialization;

import io.gnnstream.operators.messages.SampleResponse;
import io.gnnstream.state.serialization.BulkArrays;
import io.gnnstream.state.serialization.SerializerTypeInfo;
import java.io.IOException;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Explicit serializer of {@link SampleResponse}: scalar fields, then every array in bulk; format 4
 * adds the served-neighbour bits, format 5 the summed-neighbour counts; older formats are read with
 * none.
 */
public final class SampleResponseSerializer extends BulkRecordSerializer<SampleResponse> {

    private static final long serialVersionUID = 1L;

    public static final SampleResponseSerializer INSTANCE = new SampleResponseSerializer();

    public static final TypeInformation<SampleResponse> TYPE_INFO =
            new SerializerTypeInfo<>(SampleResponse.class, INSTANCE);

    @Override
    public SampleResponse createInstance() {
        return new SampleResponse();
    }

    private static final byte WITH_SERVED = 4;
    private static final byte WITH_SUMMED = 5;

    @Override
    byte formatVersion() {
        return WITH_SUMMED;
    }

    @Override
    void writeFields(SampleResponse r, DataOutputView out) throws IOException {
        out.writeLong(r.batchId);
        out.writeInt(r.hop);
        out.writeInt(r.route);
        out.writeInt(r.part);
        BulkArrays.writeLongs(r.sampleVertices, out);
        BulkArrays.writeInts(r.neighbourCounts, out);
        BulkArrays.writeLongs(r.neighbours, out);
        BulkArrays.writeLongs(r.servedBits, out);
        BulkArrays.writeInts(r.summedCounts, out);
    }

    @Override
    SampleResponse readFields(DataInputView in) throws IOException {
        return readFields(in, WITH_SUMMED);
    }

    @Override
    SampleResponse readFields(DataInputView in, byte version) throws IOException {
        SampleResponse r = new SampleResponse();
        r.batchId = in.readLong();
        r.hop = in.readInt();
        r.route = in.readInt();
        r.part = in.readInt();
        r.sampleVertices = BulkArrays.readLongs(in);
        r.neighbourCounts = BulkArrays.readInts(in);
        r.neighbours = BulkArrays.readLongs(in);
        if (version >= WITH_SERVED) {
            r.servedBits = BulkArrays.readLongs(in);
        }
        if (version >= WITH_SUMMED) {
            r.summedCounts = BulkArrays.readInts(in);
        }
        return r;
    }

    @Override
    public TypeSerializerSnapshot<SampleResponse> snapshotConfiguration() {
        return new SampleResponseSerializerSnapshot();
    }

    /** Versioned snapshot; the record format carries its own version byte as well. */
    public static final class SampleResponseSerializerSnapshot
            extends SimpleTypeSerializerSnapshot<SampleResponse> {
        public SampleResponseSerializerSnapshot() {
            super(() -> INSTANCE);
        }
    }
}

package io.gnnstream.operators.serialization;

import io.gnnstream.operators.messages.GraphStoreInput;
import io.gnnstream.operators.messages.GraphUpdate;
import io.gnnstream.operators.messages.SampleRequest;
import io.gnnstream.state.records.EdgeUpdate;
import io.gnnstream.state.records.NodeUpdate;
import io.gnnstream.state.records.Split;
import io.gnnstream.state.serialization.BulkArrays;
import io.gnnstream.state.serialization.SerializerTypeInfo;
import java.io.IOException;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Explicit serializer of {@link GraphStoreInput}: a tag byte for the kind (edge, node, request
 * bundle; a single request, tag 2, is still read), then that kind's fields, arrays in bulk. Every
 * edge of the input stream and every sample request crosses the network as this record; the
 * reflective POJO serializer of the nested union showed in the GraphStore's profile.
 */
public final class GraphStoreInputSerializer extends BulkRecordSerializer<GraphStoreInput> {

    private static final long serialVersionUID = 1L;

    public static final GraphStoreInputSerializer INSTANCE = new GraphStoreInputSerializer();

    public static final TypeInformation<GraphStoreInput> TYPE_INFO =
            new SerializerTypeInfo<>(GraphStoreInput.class, INSTANCE);

    private static final byte EDGE = 0;
    private static final byte NODE = 1;
    private static final byte REQUEST = 2;
    private static final byte REQUESTS = 3;
    private static final Split[] SPLITS = Split.values();

    @Override
    public GraphStoreInput createInstance() {
        return new GraphStoreInput();
    }

    @Override
    void writeFields(GraphStoreInput input, DataOutputView out) throws IOException {
        if (input.requests != null) {
            out.writeByte(REQUESTS);
            out.writeInt(input.requests.length);
            for (SampleRequest r : input.requests) {
                writeRequest(r, out);
            }
        } else if (input.update.edge != null) {
            EdgeUpdate e = input.update.edge;
            out.writeByte(EDGE);
            out.writeLong(e.src);
            out.writeLong(e.dst);
            out.writeBoolean(e.remove);
            out.writeLong(e.timestamp);
        } else {
            NodeUpdate n = input.update.node;
            out.writeByte(NODE);
            out.writeLong(n.id);
            BulkArrays.writeFloats(n.features, out);
            out.writeInt(n.label);
            out.writeByte(n.split.ordinal());
        }
    }

    private static void writeRequest(SampleRequest r, DataOutputView out) throws IOException {
        out.writeLong(r.batchId);
        out.writeLong(r.seq);
        out.writeInt(r.trainer);
        out.writeInt(r.attempt);
        out.writeInt(r.hop);
        out.writeInt(r.partition);
        out.writeInt(r.part);
        out.writeInt(r.fanout);
        BulkArrays.writeLongs(r.sampleVertices, out);
        out.writeInt(r.featurePart);
        BulkArrays.writeLongs(r.featureVertices, out);
        BulkArrays.writeInts(r.featureRows, out);
    }

    @Override
    GraphStoreInput readFields(DataInputView in) throws IOException {
        byte kind = in.readByte();
        switch (kind) {
            case REQUEST:
                return GraphStoreInput.of(readRequest(in));
            case REQUESTS:
                SampleRequest[] requests = new SampleRequest[in.readInt()];
                for (int i = 0; i < requests.length; i++) {
                    requests[i] = readRequest(in);
                }
                return GraphStoreInput.of(requests);
            case EDGE:
                return GraphStoreInput.of(GraphUpdate.of(
                        new EdgeUpdate(in.readLong(), in.readLong(), in.readBoolean(), in.readLong())));
            case NODE:
                return GraphStoreInput.of(GraphUpdate.of(
                        new NodeUpdate(in.readLong(), BulkArrays.readFloats(in), in.readInt(), SPLITS[in.readByte()])));
            default:
                throw new IOException("unknown GraphStoreInput kind " + kind);
        }
    }

    private static SampleRequest readRequest(DataInputView in) throws IOException {
        SampleRequest r = new SampleRequest();
        r.batchId = in.readLong();
        r.seq = in.readLong();
        r.trainer = in.readInt();
        r.attempt = in.readInt();
        r.hop = in.readInt();
        r.partition = in.readInt();
        r.part = in.readInt();
        r.fanout = in.readInt();
        r.sampleVertices = BulkArrays.readLongs(in);
        r.featurePart = in.readInt();
        r.featureVertices = BulkArrays.readLongs(in);
        r.featureRows = BulkArrays.readInts(in);
        return r;
    }

    @Override
    public TypeSerializerSnapshot<GraphStoreInput> snapshotConfiguration() {
        return new GraphStoreInputSerializerSnapshot();
    }

    /** Versioned snapshot; the record format carries its own version byte as well. */
    public static final class GraphStoreInputSerializerSnapshot extends SimpleTypeSerializerSnapshot<GraphStoreInput> {
        public GraphStoreInputSerializerSnapshot() {
            super(() -> INSTANCE);
        }
    }
}

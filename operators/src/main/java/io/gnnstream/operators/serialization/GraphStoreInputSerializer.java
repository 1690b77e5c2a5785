package io.gnnstream.operators.serialization;

import io.gnnstream.operators.messages.EdgeBundle;
import io.gnnstream.operators.messages.GraphStoreInput;
import io.gnnstream.operators.messages.GraphUpdate;
import io.gnnstream.operators.messages.LayerOutputs;
import io.gnnstream.operators.messages.ReplicaMessage;
import io.gnnstream.operators.messages.SampleRequest;
import io.gnnstream.operators.messages.VertexDeletion;
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
 * Explicit serializer of {@link GraphStoreInput}: a {@link Tag} byte for the kind (edge, node,
 * request bundle, replica message, edge bundle, layer outputs, deletion; a single request, tag 2,
 * is still read), then that kind's fields, arrays in bulk. Every edge of the input stream and every
 * sample request crosses the network as this record, so it avoids Flink's reflective serializers,
 * which are slow on this path.
 */
public final class GraphStoreInputSerializer extends BulkRecordSerializer<GraphStoreInput> {

    private static final long serialVersionUID = 1L;

    public static final GraphStoreInputSerializer INSTANCE = new GraphStoreInputSerializer();

    public static final TypeInformation<GraphStoreInput> TYPE_INFO =
            new SerializerTypeInfo<>(GraphStoreInput.class, INSTANCE);

    /** What follows the tag byte; the byte is the tag's {@link #code}, fixed per tag. */
    private enum Tag {
        EDGE(0),
        NODE(1),
        /** A single request, as checkpointed in-flight data may hold it; read, never written. */
        REQUEST(2),
        REQUESTS(3),
        REPLICA(4),
        EDGES(5),
        LAYER_OUTPUTS(6),
        /** A site's copy of a vertex deletion; a new kind, so no older format holds one. */
        DELETION(7),
        /**
         * Layer outputs of features' sums ({@link LayerOutputs#FEATURE_SUMS}) with their
         * incarnation; a new kind, so no older format holds one.
         */
        FEATURE_SUMS(8),
        /**
         * Layer outputs of any kind stamped by their sender: its incarnation and last checkpoint
         * ({@link LayerOutputs#checkpoint}); a new kind, so no older format holds one.
         */
        STAMPED_OUTPUTS(9);

        private static final Tag[] BY_CODE = new Tag[values().length];

        static {
            for (Tag t : values()) {
                BY_CODE[t.code] = t;
            }
        }

        final byte code;

        Tag(int code) {
            this.code = (byte) code;
        }

        static Tag ofCode(byte code) throws IOException {
            if (code < 0 || code >= BY_CODE.length) {
                throw new IOException(
                        "unknown GraphStoreInput kind "
                                + code
                                + ", expected 0 to "
                                + (BY_CODE.length - 1));
            }
            return BY_CODE[code];
        }
    }

    /**
     * Format 4: requests carry their sampling key; format 3 requests are read with their batch id
     * as the key.
     */
    static final byte WITH_SAMPLING_KEY = 4;

    /** Format 5: requests carry their neighbour part; older ones are read without. */
    static final byte WITH_NEIGHBOUR_PART = 5;

    /** Format 6: requests carry their layer input and its width; older ones ask for features. */
    static final byte WITH_LAYER_INPUT = 6;

    /** Format 7: requests carry the rows that are destinations of a layer input's block. */
    static final byte WITH_LAYER_ROOT_ROWS = 7;

    /**
     * Format 8: requests carry whether they take evaluation neighbourhoods; older ones are read as
     * sampling uniformly, as the builds that wrote them did.
     */
    static final byte WITH_EVAL_NEIGHBOURHOOD = 8;

    @Override
    byte formatVersion() {
        return WITH_EVAL_NEIGHBOURHOOD;
    }

    /** An empty request bundle: this serializer never reuses instances. */
    @Override
    public GraphStoreInput createInstance() {
        return new GraphStoreInput.Requests(new SampleRequest[0]);
    }

    @Override
    void writeFields(GraphStoreInput input, DataOutputView out) throws IOException {
        if (input instanceof GraphStoreInput.Requests bundle) {
            out.writeByte(Tag.REQUESTS.code);
            out.writeInt(bundle.requests().length);
            for (SampleRequest r : bundle.requests()) {
                writeRequest(r, out);
            }
        } else if (input instanceof GraphStoreInput.Replica replica) {
            ReplicaMessage m = replica.message();
            out.writeByte(Tag.REPLICA.code);
            out.writeByte(m.kind.ordinal());
            out.writeLong(m.vertex);
            out.writeInt(m.holder);
            BulkArrays.writeBytes(m.record, out);
        } else if (input instanceof GraphStoreInput.Deletion deletion) {
            out.writeByte(Tag.DELETION.code);
            out.writeLong(deletion.deletion().vertex);
            out.writeInt(deletion.deletion().route);
        } else if (input instanceof GraphStoreInput.Outputs outputs) {
            LayerOutputs o = outputs.outputs();
            if (o.incarnation != 0 && (o.checkpoint != 0 || !o.isFeatureSums())) {
                out.writeByte(Tag.STAMPED_OUTPUTS.code);
                out.writeLong(o.incarnation);
                out.writeLong(o.checkpoint);
            } else if (o.isFeatureSums()) {
                out.writeByte(Tag.FEATURE_SUMS.code);
                out.writeLong(o.incarnation);
            } else {
                out.writeByte(Tag.LAYER_OUTPUTS.code);
            }
            out.writeLong(o.step);
            out.writeInt(o.layer);
            out.writeInt(o.roundIndex);
            out.writeInt(o.part);
            out.writeInt(o.parts);
            out.writeInt(o.route);
            out.writeInt(o.dim);
            BulkArrays.writeLongs(o.vertices, out);
            BulkArrays.writeFloats(o.values, out);
        } else if (input instanceof GraphStoreInput.Edges edges) {
            out.writeByte(Tag.EDGES.code);
            out.writeInt(edges.bundle().route);
            BulkArrays.writeLongs(edges.bundle().sources, out);
            BulkArrays.writeLongs(edges.bundle().ops, out);
        } else {
            GraphUpdate update = ((GraphStoreInput.Update) input).update();
            if (update.edge != null) {
                EdgeUpdate e = update.edge;
                out.writeByte(Tag.EDGE.code);
                out.writeLong(e.src);
                out.writeLong(e.dst);
                out.writeBoolean(e.remove);
                out.writeLong(e.timestamp);
            } else {
                NodeUpdate n = update.node;
                out.writeByte(Tag.NODE.code);
                out.writeLong(n.id);
                BulkArrays.writeFloats(n.features, out);
                out.writeInt(n.label);
                out.writeByte(n.split.code());
            }
        }
    }

    private static void writeRequest(SampleRequest r, DataOutputView out) throws IOException {
        out.writeLong(r.batchId);
        out.writeLong(r.samplingKey);
        out.writeLong(r.seq);
        out.writeInt(r.trainer);
        out.writeInt(r.attempt);
        out.writeInt(r.hop);
        out.writeInt(r.route);
        out.writeInt(r.part);
        out.writeInt(r.fanout);
        BulkArrays.writeLongs(r.sampleVertices, out);
        out.writeInt(r.featurePart);
        BulkArrays.writeLongs(r.featureVertices, out);
        BulkArrays.writeInts(r.featureRows, out);
        out.writeInt(r.neighbourPart);
        out.writeInt(r.layerInput);
        out.writeInt(r.layerDim);
        out.writeInt(r.layerRootRows);
        out.writeBoolean(r.evalNeighbourhood);
    }

    @Override
    GraphStoreInput readFields(DataInputView in) throws IOException {
        return readFields(in, WITH_EVAL_NEIGHBOURHOOD);
    }

    @Override
    GraphStoreInput readFields(DataInputView in, byte version) throws IOException {
        return switch (Tag.ofCode(in.readByte())) {
            case REQUEST -> GraphStoreInput.of(readRequest(in, version));
            case REQUESTS -> {
                SampleRequest[] requests = new SampleRequest[in.readInt()];
                for (int i = 0; i < requests.length; i++) {
                    requests[i] = readRequest(in, version);
                }
                yield GraphStoreInput.of(requests);
            }
            case REPLICA -> GraphStoreInput.of(readReplica(in));
            case EDGES -> GraphStoreInput.of(readEdges(in));
            case LAYER_OUTPUTS -> GraphStoreInput.of(readOutputs(in));
            case FEATURE_SUMS -> {
                long incarnation = in.readLong();
                LayerOutputs o = readOutputs(in);
                if (!o.isFeatureSums()) {
                    throw new IOException(
                            "corrupt GraphStoreInput record: features' sums of layer " + o.layer);
                }
                o.incarnation = incarnation;
                yield GraphStoreInput.of(o);
            }
            case STAMPED_OUTPUTS -> {
                long incarnation = in.readLong();
                long checkpoint = in.readLong();
                LayerOutputs o = readOutputs(in);
                o.incarnation = incarnation;
                o.checkpoint = checkpoint;
                yield GraphStoreInput.of(o);
            }
            case DELETION -> GraphStoreInput.of(new VertexDeletion(in.readLong(), in.readInt()));
            case EDGE ->
                    GraphStoreInput.of(
                            GraphUpdate.of(
                                    new EdgeUpdate(
                                            in.readLong(),
                                            in.readLong(),
                                            in.readBoolean(),
                                            in.readLong())));
            case NODE ->
                    GraphStoreInput.of(
                            GraphUpdate.of(
                                    new NodeUpdate(
                                            in.readLong(),
                                            BulkArrays.readFloats(in),
                                            in.readInt(),
                                            split(in.readByte()))));
        };
    }

    private static ReplicaMessage readReplica(DataInputView in) throws IOException {
        ReplicaMessage m = new ReplicaMessage();
        try {
            m.kind = ReplicaMessage.Kind.ofOrdinal(in.readByte());
        } catch (IllegalArgumentException e) {
            throw new IOException("corrupt GraphStoreInput record: " + e.getMessage(), e);
        }
        m.vertex = in.readLong();
        m.holder = in.readInt();
        m.record = BulkArrays.readBytes(in);
        return m;
    }

    private static EdgeBundle readEdges(DataInputView in) throws IOException {
        int route = in.readInt();
        long[] sources = BulkArrays.readLongs(in);
        long[] ops = BulkArrays.readLongs(in);
        if (sources == null || ops == null || sources.length != ops.length) {
            throw new IOException(
                    "corrupt GraphStoreInput record: an edge bundle's sources and operations differ"
                            + " in length");
        }
        return new EdgeBundle(route, sources, ops);
    }

    private static LayerOutputs readOutputs(DataInputView in) throws IOException {
        LayerOutputs o = new LayerOutputs();
        o.step = in.readLong();
        o.layer = in.readInt();
        o.roundIndex = in.readInt();
        o.part = in.readInt();
        o.parts = in.readInt();
        o.route = in.readInt();
        o.dim = in.readInt();
        o.vertices = BulkArrays.readLongs(in);
        o.values = BulkArrays.readFloats(in);
        if (o.vertices == null
                || o.values == null
                || (!o.isPin() && (long) o.vertices.length * o.dim != o.values.length)) {
            throw new IOException(
                    "corrupt GraphStoreInput record: layer outputs of "
                            + o.dim
                            + " per row do not fill "
                            + "their values");
        }
        return o;
    }

    private static Split split(byte code) throws IOException {
        try {
            return Split.ofCode(code);
        } catch (IllegalArgumentException e) {
            throw new IOException("corrupt GraphStoreInput record: " + e.getMessage(), e);
        }
    }

    private static SampleRequest readRequest(DataInputView in, byte version) throws IOException {
        SampleRequest r = new SampleRequest();
        r.batchId = in.readLong();
        r.samplingKey = version >= WITH_SAMPLING_KEY ? in.readLong() : r.batchId;
        r.seq = in.readLong();
        r.trainer = in.readInt();
        r.attempt = in.readInt();
        r.hop = in.readInt();
        r.route = in.readInt();
        r.part = in.readInt();
        r.fanout = in.readInt();
        r.sampleVertices = BulkArrays.readLongs(in);
        r.featurePart = in.readInt();
        r.featureVertices = BulkArrays.readLongs(in);
        r.featureRows = BulkArrays.readInts(in);
        r.neighbourPart = version >= WITH_NEIGHBOUR_PART ? in.readInt() : SampleRequest.NO_FEATURES;
        if (version >= WITH_LAYER_INPUT) {
            r.layerInput = in.readInt();
            r.layerDim = in.readInt();
        }
        if (version >= WITH_LAYER_ROOT_ROWS) {
            r.layerRootRows = in.readInt();
        }
        if (version >= WITH_EVAL_NEIGHBOURHOOD) {
            r.evalNeighbourhood = in.readBoolean();
        }
        return r;
    }

    @Override
    public TypeSerializerSnapshot<GraphStoreInput> snapshotConfiguration() {
        return new GraphStoreInputSerializerSnapshot();
    }

    /** Versioned snapshot; the record format carries its own version byte as well. */
    public static final class GraphStoreInputSerializerSnapshot
            extends SimpleTypeSerializerSnapshot<GraphStoreInput> {
        public GraphStoreInputSerializerSnapshot() {
            super(() -> INSTANCE);
        }
    }
}

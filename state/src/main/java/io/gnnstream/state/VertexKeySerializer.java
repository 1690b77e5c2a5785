package io.gnnstream.state;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Fixed-length (12 bytes) serializer of {@link VertexKey}: partition first, so RocksDB stores a
 * partition's vertices next to each other and partition-wide scans stay sequential.
 */
public final class VertexKeySerializer extends TypeSerializerSingleton<VertexKey> {

    private static final long serialVersionUID = 1L;

    public static final VertexKeySerializer INSTANCE = new VertexKeySerializer();

    @Override
    public boolean isImmutableType() {
        return true;
    }

    @Override
    public VertexKey createInstance() {
        return VertexKey.anchor(0);
    }

    @Override
    public VertexKey copy(VertexKey from) {
        return from;
    }

    @Override
    public VertexKey copy(VertexKey from, VertexKey reuse) {
        return from;
    }

    @Override
    public int getLength() {
        return 12;
    }

    @Override
    public void serialize(VertexKey record, DataOutputView target) throws IOException {
        target.writeInt(record.partition());
        target.writeLong(record.vertex());
    }

    @Override
    public VertexKey deserialize(DataInputView source) throws IOException {
        int partition = source.readInt();
        return new VertexKey(partition, source.readLong());
    }

    @Override
    public VertexKey deserialize(VertexKey reuse, DataInputView source) throws IOException {
        return deserialize(source);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        target.write(source, 12);
    }

    @Override
    public TypeSerializerSnapshot<VertexKey> snapshotConfiguration() {
        return new VertexKeySerializerSnapshot();
    }

    /** Versioned snapshot; the layout has a single version. */
    public static final class VertexKeySerializerSnapshot
            extends SimpleTypeSerializerSnapshot<VertexKey> {
        public VertexKeySerializerSnapshot() {
            super(() -> INSTANCE);
        }
    }
}

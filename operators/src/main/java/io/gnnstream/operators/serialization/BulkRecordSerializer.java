package io.gnnstream.operators.serialization;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Base of the serializers of the loop's large records. Each writes a format version byte first, so
 * a later layout can still read records (and checkpointed state) of this one. Copies go through a
 * serialization round trip: records are rarely copied (only between chained operators), and this
 * keeps the field list in one place.
 */
abstract class BulkRecordSerializer<T> extends TypeSerializerSingleton<T> {

    private static final long serialVersionUID = 1L;

    static final byte FORMAT_VERSION = 3;

    abstract void writeFields(T record, DataOutputView out) throws IOException;

    abstract T readFields(DataInputView in) throws IOException;

    /**
     * The version this serializer writes: {@link #FORMAT_VERSION}, or higher for a later layout.
     */
    byte formatVersion() {
        return FORMAT_VERSION;
    }

    /**
     * Reads a record of {@code version} (from {@link #FORMAT_VERSION} to {@link #formatVersion()}).
     */
    T readFields(DataInputView in, byte version) throws IOException {
        return readFields(in);
    }

    @Override
    public boolean isImmutableType() {
        return false;
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(T record, DataOutputView target) throws IOException {
        target.writeByte(formatVersion());
        writeFields(record, target);
    }

    @Override
    public T deserialize(DataInputView source) throws IOException {
        byte version = source.readByte();
        if (version < FORMAT_VERSION || version > formatVersion()) {
            throw new IOException(
                    getClass().getSimpleName() + " cannot read format version " + version);
        }
        return readFields(source, version);
    }

    @Override
    public T deserialize(T reuse, DataInputView source) throws IOException {
        return deserialize(source);
    }

    @Override
    public T copy(T from) {
        try {
            DataOutputSerializer out = new DataOutputSerializer(1024);
            serialize(from, out);
            return deserialize(new DataInputDeserializer(out.getSharedBuffer(), 0, out.length()));
        } catch (IOException e) {
            throw new IllegalStateException("cannot copy " + from, e);
        }
    }

    @Override
    public T copy(T from, T reuse) {
        return copy(from);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        serialize(deserialize(source), target);
    }
}

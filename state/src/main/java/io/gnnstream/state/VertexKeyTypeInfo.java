package io.gnnstream.state;

import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** Type information of {@link VertexKey}, so Flink never falls back to Kryo for graph keys. */
public final class VertexKeyTypeInfo extends TypeInformation<VertexKey> {

    private static final long serialVersionUID = 1L;

    public static final VertexKeyTypeInfo INSTANCE = new VertexKeyTypeInfo();

    @Override
    public boolean isBasicType() {
        return false;
    }

    @Override
    public boolean isTupleType() {
        return false;
    }

    @Override
    public int getArity() {
        return 1;
    }

    @Override
    public int getTotalFields() {
        return 1;
    }

    @Override
    public Class<VertexKey> getTypeClass() {
        return VertexKey.class;
    }

    @Override
    public boolean isKeyType() {
        return true;
    }

    @Override
    public TypeSerializer<VertexKey> createSerializer(SerializerConfig config) {
        return VertexKeySerializer.INSTANCE;
    }

    @Override
    @Deprecated
    public TypeSerializer<VertexKey> createSerializer(ExecutionConfig config) {
        return VertexKeySerializer.INSTANCE;
    }

    @Override
    public String toString() {
        return "VertexKey";
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof VertexKeyTypeInfo;
    }

    @Override
    public int hashCode() {
        return VertexKeyTypeInfo.class.hashCode();
    }

    @Override
    public boolean canEqual(Object obj) {
        return obj instanceof VertexKeyTypeInfo;
    }
}

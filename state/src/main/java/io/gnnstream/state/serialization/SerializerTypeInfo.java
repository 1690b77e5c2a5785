package io.gnnstream.state.serialization;

import java.util.Objects;
import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** Type information that always uses one explicit serializer (never Kryo, never reflection). */
public final class SerializerTypeInfo<T> extends TypeInformation<T> {

    private static final long serialVersionUID = 1L;

    private final Class<T> type;
    private final TypeSerializer<T> serializer;
    private final boolean keyType;

    public SerializerTypeInfo(Class<T> type, TypeSerializer<T> serializer) {
        this(type, serializer, false);
    }

    /**
     * @param keyType whether values may be used as keys (they need a value-based hashCode and
     *     equals)
     */
    public SerializerTypeInfo(Class<T> type, TypeSerializer<T> serializer, boolean keyType) {
        this.type = type;
        this.serializer = serializer;
        this.keyType = keyType;
    }

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
    public Class<T> getTypeClass() {
        return type;
    }

    @Override
    public boolean isKeyType() {
        return keyType;
    }

    @Override
    public TypeSerializer<T> createSerializer(SerializerConfig config) {
        return serializer.duplicate();
    }

    @Override
    @Deprecated
    public TypeSerializer<T> createSerializer(ExecutionConfig config) {
        return serializer.duplicate();
    }

    @Override
    public String toString() {
        return type.getSimpleName() + "(" + serializer.getClass().getSimpleName() + ")";
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof SerializerTypeInfo && ((SerializerTypeInfo<?>) obj).type == type;
    }

    @Override
    public int hashCode() {
        return Objects.hash(type);
    }

    @Override
    public boolean canEqual(Object obj) {
        return obj instanceof SerializerTypeInfo;
    }
}

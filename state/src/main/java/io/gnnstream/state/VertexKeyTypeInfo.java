package io.gnnstream.state;

import io.gnnstream.state.serialization.SerializerTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;

/** Type information of {@link VertexKey}, so Flink never falls back to Kryo for graph keys. */
public final class VertexKeyTypeInfo {

    public static final TypeInformation<VertexKey> INSTANCE =
            new SerializerTypeInfo<>(VertexKey.class, VertexKeySerializer.INSTANCE, true);

    private VertexKeyTypeInfo() {}
}

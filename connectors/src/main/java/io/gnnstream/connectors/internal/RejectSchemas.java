package io.gnnstream.connectors.internal;

import io.gnnstream.connectors.Reject;
import java.nio.charset.StandardCharsets;
import org.apache.flink.api.common.serialization.SerializationSchema;

/** Key and value encodings of dead-letter records: key = source topic, value = reject JSON. */
public final class RejectSchemas {

    private RejectSchemas() {}

    /**
     * The source topic as UTF-8, so a dead-letter topic shared by several inputs can be filtered.
     */
    public static final class SourceTopicKey implements SerializationSchema<Reject> {
        private static final long serialVersionUID = 1L;

        @Override
        public byte[] serialize(Reject reject) {
            return reject.topic == null ? null : reject.topic.getBytes(StandardCharsets.UTF_8);
        }
    }

    /** {@link Reject#toJson()} as UTF-8. */
    public static final class JsonValue implements SerializationSchema<Reject> {
        private static final long serialVersionUID = 1L;

        @Override
        public byte[] serialize(Reject reject) {
            return reject.toJson().getBytes(StandardCharsets.UTF_8);
        }
    }
}

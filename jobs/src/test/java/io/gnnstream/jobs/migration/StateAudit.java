package io.gnnstream.jobs.migration;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.CompositeTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.java.typeutils.runtime.PojoSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * Checks the serializer snapshots of state: none is Kryo's or Java serialization's, each
 * round-trips through {@link TypeSerializerSnapshot#writeVersionedSnapshot} and {@link
 * TypeSerializerSnapshot#readVersionedSnapshot} and restores a serializer, and each is compatible
 * with the serializer this build would use: a POJO's with the serializer of its class today
 * (generic types disabled, as in the job), any other with the serializer it restores. Nested
 * snapshots of composite serializers are checked the same way.
 */
public final class StateAudit {

    private StateAudit() {}

    /** The job's serializer settings: no generic types, so no Kryo. */
    public static SerializerConfig jobSerializerConfig() {
        ExecutionConfig config = new ExecutionConfig();
        config.disableGenericTypes();
        return config.getSerializerConfig();
    }

    /**
     * What is wrong with the serializer snapshots of every state in {@code savepoint}; empty when
     * nothing is. With {@code asIs}, a POJO that needs a migration (fields added or removed) counts
     * as a problem too.
     */
    public static List<String> problems(SavepointContents savepoint, boolean asIs)
            throws IOException {
        List<String> problems = new ArrayList<>();
        for (SavepointContents.State state : savepoint.states()) {
            for (Map.Entry<String, TypeSerializerSnapshot<?>> e : state.serializers().entrySet()) {
                check(state + " " + e.getKey(), e.getValue(), asIs, problems);
            }
        }
        return problems;
    }

    /** Adds what is wrong with {@code snapshot} (and its nested snapshots) to {@code problems}. */
    public static void check(
            String where, TypeSerializerSnapshot<?> snapshot, boolean asIs, List<String> problems) {
        String type = snapshot.getClass().getName();
        if (type.contains("Kryo") || type.contains("JavaSerializer")) {
            problems.add(where + ": " + type + " is not a versioned, evolvable format");
            return;
        }
        try {
            TypeSerializerSnapshot<?> copy = roundTrip(snapshot);
            if (copy.getClass() != snapshot.getClass()) {
                problems.add(where + ": " + type + " reads back as " + copy.getClass().getName());
            }
            copy.restoreSerializer();
            TypeSerializerSchemaCompatibility<?> compatibility = compatibility(snapshot);
            if (compatibility.isIncompatible() || asIs && !compatibility.isCompatibleAsIs()) {
                problems.add(
                        where
                                + ": "
                                + type
                                + " is "
                                + compatibility
                                + " with this build's serializer");
            }
        } catch (Exception | LinkageError e) {
            problems.add(where + ": " + type + " cannot be read or restored: " + e);
            return;
        }
        if (snapshot instanceof CompositeTypeSerializerSnapshot<?, ?> composite) {
            TypeSerializerSnapshot<?>[] nested = composite.getNestedSerializerSnapshots();
            for (int i = 0; i < nested.length; i++) {
                check(where + " nested[" + i + "]", nested[i], asIs, problems);
            }
        }
    }

    /**
     * The snapshot written and read back as a checkpoint holds it (class name, version, contents).
     */
    public static <T> TypeSerializerSnapshot<T> roundTrip(TypeSerializerSnapshot<T> snapshot)
            throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        TypeSerializerSnapshot.writeVersionedSnapshot(out, snapshot);
        return TypeSerializerSnapshot.readVersionedSnapshot(
                new DataInputDeserializer(out.getCopyOfBuffer()),
                StateAudit.class.getClassLoader());
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static TypeSerializerSchemaCompatibility<?> compatibility(
            TypeSerializerSnapshot snapshot) {
        TypeSerializer current;
        if (snapshot instanceof PojoSerializerSnapshot) {
            Class<?> type = snapshot.restoreSerializer().createInstance().getClass();
            current = TypeInformation.of(type).createSerializer(jobSerializerConfig());
        } else {
            current = snapshot.restoreSerializer();
        }
        return current.snapshotConfiguration().resolveSchemaCompatibility(snapshot);
    }
}

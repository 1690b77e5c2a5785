package io.gnnstream.jobs.migration;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.memory.DataInputViewStreamWrapper;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.state.KeyGroupsStateHandle;
import org.apache.flink.runtime.state.KeyedBackendSerializationProxy;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.OperatorBackendSerializationProxy;
import org.apache.flink.runtime.state.OperatorStateHandle;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot;

/**
 * Reads what a canonical savepoint directory holds without a cluster: its metadata, the name and
 * serializer snapshots of every state of every operator subtask (operator, broadcast and keyed
 * state, as the state backends wrote them at the head of their state streams), and the values of
 * operator list states. Only the canonical format is read: keyed state must come as key-group
 * streams, not as native RocksDB files.
 */
public final class SavepointContents {

    /** Where a state lives. */
    public enum Kind {
        OPERATOR,
        BROADCAST,
        KEYED
    }

    /**
     * One state of one operator subtask: its name, kind and serializer snapshots by role ({@code
     * KEY_SERIALIZER} for keyed state, {@code NAMESPACE_SERIALIZER}, {@code VALUE_SERIALIZER}).
     */
    public record State(
            String operator,
            int subtask,
            Kind kind,
            String name,
            Map<String, TypeSerializerSnapshot<?>> serializers) {

        @Override
        public String toString() {
            return operator + "[" + subtask + "] " + kind + " '" + name + "'";
        }
    }

    private final Path dir;
    private final CheckpointMetadata metadata;
    private final ClassLoader classLoader = SavepointContents.class.getClassLoader();

    private SavepointContents(Path dir, CheckpointMetadata metadata) {
        this.dir = dir;
        this.metadata = metadata;
    }

    /**
     * Reads the {@code _metadata} of the savepoint in {@code dir}; state files are resolved against
     * {@code dir}.
     */
    public static SavepointContents read(Path dir) throws IOException {
        Path absolute = dir.toAbsolutePath();
        try (InputStream in = Files.newInputStream(absolute.resolve("_metadata"))) {
            CheckpointMetadata metadata =
                    Checkpoints.loadCheckpointMetadata(
                            new DataInputStream(in),
                            SavepointContents.class.getClassLoader(),
                            absolute.toUri().toString());
            return new SavepointContents(absolute, metadata);
        }
    }

    /**
     * The local directory of a savepoint pointer as Flink returns it (a {@code file:} URI or a
     * path).
     */
    public static Path localPath(String pointer) {
        return pointer.startsWith("file:")
                ? Path.of(java.net.URI.create(pointer))
                : Path.of(pointer);
    }

    public Path dir() {
        return dir;
    }

    public CheckpointMetadata metadata() {
        return metadata;
    }

    /** Every state of every operator subtask, in operator id and subtask order. */
    public List<State> states() throws IOException {
        List<State> states = new ArrayList<>();
        for (OperatorState operator : operators()) {
            String id = operator.getOperatorID().toHexString();
            for (Map.Entry<Integer, OperatorSubtaskState> subtask :
                    new TreeMap<>(operator.getSubtaskStates()).entrySet()) {
                OperatorSubtaskState s = subtask.getValue();
                for (OperatorStateHandle handle : s.getManagedOperatorState()) {
                    OperatorBackendSerializationProxy proxy = operatorProxy(handle);
                    for (StateMetaInfoSnapshot info : proxy.getOperatorStateMetaInfoSnapshots()) {
                        states.add(
                                new State(
                                        id,
                                        subtask.getKey(),
                                        Kind.OPERATOR,
                                        info.getName(),
                                        info.getSerializerSnapshotsImmutable()));
                    }
                    for (StateMetaInfoSnapshot info : proxy.getBroadcastStateMetaInfoSnapshots()) {
                        states.add(
                                new State(
                                        id,
                                        subtask.getKey(),
                                        Kind.BROADCAST,
                                        info.getName(),
                                        info.getSerializerSnapshotsImmutable()));
                    }
                }
                for (KeyedStateHandle handle : s.getManagedKeyedState()) {
                    if (!(handle instanceof KeyGroupsStateHandle keyGroups)) {
                        throw new IOException(
                                "keyed state of operator "
                                        + id
                                        + " is not in the canonical format: "
                                        + handle.getClass().getSimpleName());
                    }
                    KeyedBackendSerializationProxy<?> proxy =
                            new KeyedBackendSerializationProxy<>(classLoader);
                    try (FSDataInputStream in = keyGroups.openInputStream()) {
                        proxy.read(new DataInputViewStreamWrapper(in));
                    }
                    for (StateMetaInfoSnapshot info : proxy.getStateMetaInfoSnapshots()) {
                        Map<String, TypeSerializerSnapshot<?>> serializers =
                                new TreeMap<>(info.getSerializerSnapshotsImmutable());
                        serializers.put(
                                StateMetaInfoSnapshot.CommonSerializerKeys.KEY_SERIALIZER
                                        .toString(),
                                proxy.getKeySerializerSnapshot());
                        states.add(
                                new State(
                                        id,
                                        subtask.getKey(),
                                        Kind.KEYED,
                                        info.getName(),
                                        serializers));
                    }
                }
            }
        }
        return states;
    }

    /**
     * The values of the operator list state {@code name}, of every operator that has one, subtask
     * by subtask, read with the serializer restored from the state's own snapshot.
     */
    public List<Object> operatorStateValues(String name) throws IOException {
        List<Object> values = new ArrayList<>();
        for (OperatorState operator : operators()) {
            for (OperatorSubtaskState s : new TreeMap<>(operator.getSubtaskStates()).values()) {
                for (OperatorStateHandle handle : s.getManagedOperatorState()) {
                    OperatorStateHandle.StateMetaInfo offsets =
                            handle.getStateNameToPartitionOffsets().get(name);
                    if (offsets == null) {
                        continue;
                    }
                    TypeSerializer<?> serializer = null;
                    for (StateMetaInfoSnapshot info :
                            operatorProxy(handle).getOperatorStateMetaInfoSnapshots()) {
                        if (info.getName().equals(name)) {
                            serializer =
                                    info.getTypeSerializerSnapshot(
                                                    StateMetaInfoSnapshot.CommonSerializerKeys
                                                            .VALUE_SERIALIZER)
                                            .restoreSerializer();
                        }
                    }
                    if (serializer == null) {
                        throw new IOException(
                                "no serializer snapshot for operator state '" + name + "'");
                    }
                    try (FSDataInputStream in = handle.openInputStream()) {
                        DataInputViewStreamWrapper view = new DataInputViewStreamWrapper(in);
                        for (long offset : offsets.getOffsets()) {
                            in.seek(offset);
                            values.add(serializer.deserialize(view));
                        }
                    }
                }
            }
        }
        return values;
    }

    private List<OperatorState> operators() {
        List<OperatorState> operators = new ArrayList<>(metadata.getOperatorStates());
        operators.sort(
                (a, b) ->
                        a.getOperatorID().toHexString().compareTo(b.getOperatorID().toHexString()));
        return operators;
    }

    private OperatorBackendSerializationProxy operatorProxy(OperatorStateHandle handle)
            throws IOException {
        OperatorBackendSerializationProxy proxy =
                new OperatorBackendSerializationProxy(classLoader);
        try (FSDataInputStream in = handle.openInputStream()) {
            proxy.read(new DataInputViewStreamWrapper(in));
        }
        return proxy;
    }
}

package io.gnnstream.jobs.migration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.gnnstream.operators.GradientReducer;
import io.gnnstream.operators.MetricsMerger;
import io.gnnstream.operators.SchedulerState;
import io.gnnstream.operators.TrainerProgress;
import io.gnnstream.operators.messages.BatchSpec;
import io.gnnstream.operators.model.ModelState;
import io.gnnstream.operators.serialization.GraphStoreInputSerializer;
import io.gnnstream.operators.serialization.MiniBatchPartSerializer;
import io.gnnstream.operators.serialization.MiniBatchSerializer;
import io.gnnstream.operators.serialization.SampleResponseSerializer;
import io.gnnstream.state.VertexKeySerializer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.CompositeType;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.java.typeutils.GenericTypeInfo;
import org.apache.flink.api.java.typeutils.ListTypeInfo;
import org.apache.flink.api.java.typeutils.MapTypeInfo;
import org.apache.flink.api.java.typeutils.ObjectArrayTypeInfo;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The state compatibility audit (docs/design.md, "State compatibility"): every state of every
 * operator has a serializer with a versioned snapshot that a later build can read and evolve.
 *
 * <ul>
 *   <li>The POJO state types are Flink POJOs all the way down (no field falls back to {@link
 *       GenericTypeInfo}, i.e. Kryo), so {@code PojoSerializerSnapshot} covers them and lets fields
 *       be added and removed.
 *   <li>The explicit serializers have {@link SimpleTypeSerializerSnapshot}s (their records carry a
 *       format version byte of their own).
 *   <li>Every state in every committed savepoint (operator, keyed and timer state, with key and
 *       namespace serializers) has a snapshot of neither Kryo nor Java serialization that this
 *       build reads and resolves as compatible.
 * </ul>
 */
class StateSerializersTest {

    /**
     * The public types of the operators' POJO states ({@code TypeInformation.of} in their state
     * descriptors); the trainer's pending step and inference tables, classes of the operators
     * module's own, are checked as POJOs there ({@code MessageTypesTest}), and as snapshots in the
     * committed savepoints here.
     */
    static final List<Class<?>> POJO_STATE_TYPES =
            List.of(
                    SchedulerState.class,
                    TrainerProgress.class,
                    ModelState.class,
                    BatchSpec.class,
                    GradientReducer.Entry.class,
                    MetricsMerger.State.class,
                    io.gnnstream.operators.TrainerReplica.class);

    /** The explicit serializers of state and of the keys of keyed state. */
    static List<TypeSerializer<?>> explicitSerializers() {
        return List.of(
                MiniBatchSerializer.INSTANCE,
                MiniBatchPartSerializer.INSTANCE,
                SampleResponseSerializer.INSTANCE,
                GraphStoreInputSerializer.INSTANCE,
                VertexKeySerializer.INSTANCE);
    }

    /** States each committed savepoint must hold: one or more of every operator with state. */
    static final Set<String> EXPECTED_STATES =
            Set.of(
                    "scheduler",
                    "buffered-batches",
                    "partial-batches",
                    "pending-step",
                    "inference-tables",
                    "reducer-contributions",
                    "reducer-sums",
                    "metrics-merger",
                    "batch-spec",
                    "batch-attempt",
                    "vertex-attributes",
                    "partition-stats",
                    "adj-tail",
                    "adj-blocks",
                    "SourceReaderState");

    /** The states of incremental predictions, in a savepoint written with them. */
    static final Set<String> INCREMENTAL_STATES =
            Set.of(
                    "incremental-predictions",
                    "incremental-sum-0",
                    "incremental-sum-1",
                    "out-edge-index",
                    "latest-round-step");

    static Stream<String> committedSavepoints() throws IOException {
        return MigrationScenario.committedLabels().stream();
    }

    @Test
    void pojoStateTypesHaveNoGenericFieldsAndVersionedSnapshots() throws Exception {
        for (Class<?> type : POJO_STATE_TYPES) {
            TypeInformation<?> info = TypeInformation.of(type);
            assertInstanceOf(PojoTypeInfo.class, info, type + " is not a Flink POJO");
            List<String> generic = new ArrayList<>();
            genericParts(type.getSimpleName(), info, generic);
            assertTrue(generic.isEmpty(), "falls back to Kryo: " + generic);
            TypeSerializer<?> serializer = info.createSerializer(StateAudit.jobSerializerConfig());
            checkSnapshot(type.getSimpleName(), serializer);
        }
    }

    @Test
    void explicitSerializersHaveVersionedSimpleSnapshots() throws Exception {
        for (TypeSerializer<?> serializer : explicitSerializers()) {
            String name = serializer.getClass().getSimpleName();
            assertInstanceOf(
                    SimpleTypeSerializerSnapshot.class, serializer.snapshotConfiguration(), name);
            checkSnapshot(name, serializer);
            assertSame(serializer, serializer.snapshotConfiguration().restoreSerializer(), name);
        }
    }

    @ParameterizedTest(name = "savepoint-v{0}")
    @MethodSource("committedSavepoints")
    void everyStateOfACommittedSavepointHasAVersionedCompatibleSerializer(String label)
            throws Exception {
        Path dir = MigrationScenario.committed(label).resolve(MigrationScenario.SAVEPOINT);
        SavepointContents savepoint = SavepointContents.read(dir);
        List<SavepointContents.State> states = savepoint.states();
        for (SavepointContents.State s : states) {
            System.out.println(
                    s
                            + " "
                            + s.serializers().entrySet().stream()
                                    .map(
                                            e ->
                                                    e.getKey()
                                                            + "="
                                                            + e.getValue()
                                                                    .getClass()
                                                                    .getSimpleName())
                                    .collect(Collectors.joining(", ")));
        }
        Set<String> names =
                states.stream()
                        .map(SavepointContents.State::name)
                        .collect(Collectors.toCollection(TreeSet::new));
        assertTrue(
                names.containsAll(EXPECTED_STATES), "savepoint-v" + label + " holds only " + names);
        assertTrue(
                names.contains("replicas") || names.containsAll(Set.of("model", "progress")),
                "the ranks' replicas, or the model and progress of a savepoint before them: "
                        + names);
        if (MigrationScenario.readProperties(MigrationScenario.committed(label))
                .getProperty("option.gnnstream.prediction-updates", "ROUNDS")
                .equals("INCREMENTAL")) {
            assertTrue(
                    names.containsAll(INCREMENTAL_STATES),
                    "savepoint-v" + label + " of incremental predictions holds only " + names);
            // The predictions stage: operator lists up to 0.3, keyed by vertex from 0.4.
            assertTrue(
                    names.contains("prediction-incremental")
                            || names.containsAll(
                                    Set.of("prediction-incremental-at", "prediction-rounds")),
                    "savepoint-v" + label + " has no predictions stage state: " + names);
            // The site's out-edges: a map entry per edge up to 0.2, blocks per bucket from 0.3.
            assertTrue(
                    names.contains("site-out-edges") || names.contains("site-out-edge-blocks"),
                    "savepoint-v" + label + " has no site out-edges: " + names);
        }
        if (!List.of("0.1", "0.2", "0.3", "0.4").contains(label)) {
            // From 0.5: the layer outputs' lineage and the newest round's rows per layer.
            assertTrue(
                    names.containsAll(Set.of("layer-output-lineage", "layer-rows-newest-round")),
                    "savepoint-v" + label + " has no layer outputs' lineage: " + names);
        }
        List<String> problems = StateAudit.problems(savepoint, false);
        assertTrue(problems.isEmpty(), String.join("\n", problems));
    }

    /** The audit itself: a Kryo snapshot and a POJO with a generic field are caught. */
    @Test
    void auditRejectsKryoAndGenericFields() {
        TypeSerializer<?> kryo =
                new GenericTypeInfo<>(Object.class)
                        .createSerializer(
                                new org.apache.flink.api.common.ExecutionConfig()
                                        .getSerializerConfig());
        List<String> problems = new ArrayList<>();
        StateAudit.check("kryo", kryo.snapshotConfiguration(), false, problems);
        assertEquals(1, problems.size(), problems.toString());

        List<String> generic = new ArrayList<>();
        genericParts("WithGenericField", TypeInformation.of(WithGenericField.class), generic);
        assertFalse(generic.isEmpty());
    }

    /** A POJO whose field is a generic type. */
    public static class WithGenericField {
        public Object value;

        public WithGenericField() {}
    }

    private static void genericParts(String path, TypeInformation<?> info, List<String> found) {
        if (info instanceof GenericTypeInfo) {
            found.add(path + ": " + info);
        } else if (info instanceof CompositeType<?> composite) {
            for (int i = 0; i < composite.getArity(); i++) {
                String field =
                        info instanceof PojoTypeInfo<?> pojo
                                ? pojo.getPojoFieldAt(i).getField().getName()
                                : "" + i;
                genericParts(path + "." + field, composite.getTypeAt(i), found);
            }
        } else if (info instanceof ObjectArrayTypeInfo<?, ?> array) {
            genericParts(path + "[]", array.getComponentInfo(), found);
        } else if (info instanceof ListTypeInfo<?> list) {
            genericParts(path + "<>", list.getElementTypeInfo(), found);
        } else if (info instanceof MapTypeInfo<?, ?> map) {
            genericParts(path + "<key>", map.getKeyTypeInfo(), found);
            genericParts(path + "<value>", map.getValueTypeInfo(), found);
        }
    }

    private static void checkSnapshot(String name, TypeSerializer<?> serializer)
            throws IOException {
        TypeSerializerSnapshot<?> snapshot = serializer.snapshotConfiguration();
        List<String> problems = new ArrayList<>();
        StateAudit.check(name, snapshot, true, problems);
        if (!problems.isEmpty()) {
            fail(String.join("\n", problems));
        }
        assertEquals(snapshot.getClass(), StateAudit.roundTrip(snapshot).getClass(), name);
    }
}

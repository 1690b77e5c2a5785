package io.gnnstream.operators;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.operators.internal.InferenceTableState;
import io.gnnstream.operators.internal.PendingStep;
import io.gnnstream.operators.internal.StepStarts;
import io.gnnstream.operators.messages.BatchSpec;
import io.gnnstream.operators.messages.Credit;
import io.gnnstream.operators.messages.GraphEvent;
import io.gnnstream.operators.messages.GraphStoreInput;
import io.gnnstream.operators.messages.GraphUpdate;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.messages.SampleRequest;
import io.gnnstream.operators.messages.SampleResponse;
import io.gnnstream.operators.model.ModelState;
import io.gnnstream.operators.serialization.GraphStoreInputSerializer;
import io.gnnstream.operators.serialization.MiniBatchPartSerializer;
import io.gnnstream.operators.serialization.MiniBatchSerializer;
import io.gnnstream.operators.serialization.SampleResponseSerializer;
import io.gnnstream.state.VertexRecord;
import io.gnnstream.state.records.EdgeUpdate;
import io.gnnstream.state.records.NodeUpdate;
import io.gnnstream.state.records.Split;
import io.gnnstream.state.serialization.BulkArrays;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/**
 * Every record and state type crosses Flink as a POJO (never Kryo, which the jobs disable),
 * survives a serialization round trip (re-serializing the copy gives the same bytes), and has a
 * serializer snapshot that reads back as compatible.
 */
class MessageTypesTest {

    @Test
    void allRecordAndStateTypesRoundTripAsPojos() throws Exception {
        for (Object value : samples()) {
            roundTrip(value);
        }
    }

    @Test
    void bulkSerializersRoundTripAndSnapshot() throws Exception {
        for (Object value : samples()) {
            if (value instanceof MiniBatch) {
                checkExplicit(MiniBatchSerializer.INSTANCE, (MiniBatch) value);
            } else if (value instanceof MiniBatchPart) {
                checkExplicit(MiniBatchPartSerializer.INSTANCE, (MiniBatchPart) value);
            } else if (value instanceof SampleResponse) {
                checkExplicit(SampleResponseSerializer.INSTANCE, (SampleResponse) value);
            } else if (value instanceof GraphStoreInput) {
                checkExplicit(GraphStoreInputSerializer.INSTANCE, (GraphStoreInput) value);
            }
        }
    }

    /** A batch in a reused feature matrix longer than its rows is written with its rows only. */
    @Test
    void batchInALongerMatrixIsWrittenWithItsRowsOnly() throws Exception {
        MiniBatch b =
                samples().stream()
                        .filter(MiniBatch.class::isInstance)
                        .map(MiniBatch.class::cast)
                        .findFirst()
                        .orElseThrow();
        MiniBatch padded =
                b.withFeatures(Arrays.copyOf(b.features, b.features.length + 6), b.labels);
        byte[] bytes = serialize(MiniBatchSerializer.INSTANCE, padded);
        assertArrayEquals(serialize(MiniBatchSerializer.INSTANCE, b), bytes);
        assertArrayEquals(
                b.features,
                MiniBatchSerializer.INSTANCE.deserialize(new DataInputDeserializer(bytes))
                        .features);
    }

    /**
     * A part sent with its rows' vertex records arrives as the same part with the features as
     * bytes.
     */
    @Test
    void featurePartsOfRecordsArriveWithTheirFeatureBytes() throws Exception {
        byte[][] records = {
            VertexRecord.encode(new NodeUpdate(1, new float[] {1.5f, -2f}, 3, Split.TRAIN)),
            VertexRecord.encode(
                    new NodeUpdate(2, new float[] {0f, 8f}, NodeUpdate.NO_LABEL, Split.NONE))
        };
        MiniBatchPart sent =
                MiniBatchPart.featuresOfRecords(
                        5, 6, 0, 1, 2, new int[] {7, 9}, new int[] {3, -1}, records);
        MiniBatchPart received =
                MiniBatchPartSerializer.INSTANCE.deserialize(
                        new DataInputDeserializer(
                                serialize(MiniBatchPartSerializer.INSTANCE, sent)));
        assertArrayEquals(new int[] {7, 9}, received.rows);
        assertArrayEquals(new int[] {3, -1}, received.labels);
        ByteBuffer expected = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
        expected.asFloatBuffer().put(new float[] {1.5f, -2f, 0f, 8f});
        assertArrayEquals(expected.array(), received.features);
        assertNull(received.featureRecords);

        records[1] = VertexRecord.encode(new NodeUpdate(2, new float[] {0f}, 1, Split.NONE));
        assertThrows(
                IllegalStateException.class,
                () -> serialize(MiniBatchPartSerializer.INSTANCE, sent),
                "rows of different widths cannot share a part");
    }

    /**
     * A single request (tag 2, before bundles), as unaligned checkpoints may hold it, reads as a
     * bundle of one.
     */
    @Test
    void readsASingleRequestAsABundle() throws Exception {
        DataOutputSerializer out = new DataOutputSerializer(64);
        out.writeByte(3);
        out.writeByte(2);
        out.writeLong(1);
        out.writeLong(2);
        for (int field : new int[] {0, 0, 1, 6, 0, 25}) {
            out.writeInt(field);
        }
        BulkArrays.writeLongs(new long[] {4, 5}, out);
        out.writeInt(SampleRequest.NO_FEATURES);
        BulkArrays.writeLongs(new long[0], out);
        BulkArrays.writeInts(new int[0], out);
        SampleRequest[] in =
                assertInstanceOf(
                                GraphStoreInput.Requests.class,
                                GraphStoreInputSerializer.INSTANCE.deserialize(
                                        new DataInputDeserializer(out.getCopyOfBuffer())))
                        .requests();
        assertEquals(1, in.length);
        assertEquals(6, in[0].route);
        assertEquals(1, in[0].samplingKey, "a format 3 request samples with its batch id");
        assertArrayEquals(new long[] {4, 5}, in[0].sampleVertices);
    }

    /** Parts checkpointed in format 3, before cache slots, restore as parts without them. */
    @Test
    void readsFeaturePartsOfTheFormatBeforeCacheSlots() throws Exception {
        DataOutputSerializer out = new DataOutputSerializer(64);
        out.writeByte(3);
        out.writeLong(5);
        out.writeLong(6);
        out.writeInt(0);
        out.writeInt(1);
        out.writeInt(2);
        out.writeInt(0);
        out.writeBoolean(false);
        BulkArrays.writeInts(new int[] {7}, out);
        BulkArrays.writeInts(new int[] {3}, out);
        BulkArrays.writeBytes(new byte[] {0, 0, -128, 63}, out);
        MiniBatchPart p =
                MiniBatchPartSerializer.INSTANCE.deserialize(
                        new DataInputDeserializer(out.getCopyOfBuffer()));
        assertEquals(6, p.seq);
        assertArrayEquals(new int[] {7}, p.rows);
        assertArrayEquals(new byte[] {0, 0, -128, 63}, p.features);
        assertEquals(MiniBatchPart.NO_CACHE, p.cacheEpoch);
        assertEquals(0, p.cachedRows.length);
    }

    /**
     * Kinds and splits travel as fixed codes (0, 1, ... in declaration order, as checkpointed
     * records hold them); a record with an unknown code fails with a message naming it.
     */
    @Test
    void kindsAndSplitsTravelAsCodesAndUnknownCodesAreRejected() throws Exception {
        assertArrayEquals(
                new int[] {0, 1, 2, 3},
                Arrays.stream(MiniBatch.Kind.values()).mapToInt(MiniBatch.Kind::code).toArray());
        MiniBatch b =
                samples().stream()
                        .filter(MiniBatch.class::isInstance)
                        .map(MiniBatch.class::cast)
                        .findFirst()
                        .orElseThrow();
        byte[] batch = serialize(MiniBatchSerializer.INSTANCE, b);
        int kindAt =
                1
                        + Long.BYTES
                        + Long.BYTES
                        + Integer.BYTES; // format version, batchId, seq, trainer
        assertEquals(MiniBatch.Kind.EVAL_VAL.code(), ByteBuffer.wrap(batch).getInt(kindAt));
        ByteBuffer.wrap(batch).putInt(kindAt, 7);
        IOException e =
                assertThrows(
                        IOException.class,
                        () ->
                                MiniBatchSerializer.INSTANCE.deserialize(
                                        new DataInputDeserializer(batch)));
        assertTrue(e.getMessage().contains("unknown MiniBatch kind code 7"), e.getMessage());

        DataOutputSerializer out = new DataOutputSerializer(16);
        out.writeByte(3);
        out.writeByte(10);
        e =
                assertThrows(
                        IOException.class,
                        () ->
                                GraphStoreInputSerializer.INSTANCE.deserialize(
                                        new DataInputDeserializer(out.getCopyOfBuffer())));
        assertTrue(e.getMessage().contains("unknown GraphStoreInput kind 10"), e.getMessage());

        byte[] node =
                serialize(
                        GraphStoreInputSerializer.INSTANCE,
                        GraphStoreInput.of(
                                GraphUpdate.of(
                                        new NodeUpdate(6, new float[] {0.5f}, 1, Split.VAL))));
        assertEquals(Split.VAL.code(), node[node.length - 1]);
        node[node.length - 1] = 9;
        e =
                assertThrows(
                        IOException.class,
                        () ->
                                GraphStoreInputSerializer.INSTANCE.deserialize(
                                        new DataInputDeserializer(node)));
        assertTrue(e.getMessage().contains("unknown split code 9"), e.getMessage());
    }

    private static <T> void checkExplicit(TypeSerializer<T> serializer, T value) throws Exception {
        byte[] first = serialize(serializer, value);
        T copy = serializer.deserialize(new DataInputDeserializer(first));
        assertArrayEquals(
                first, serialize(serializer, copy), value.getClass() + " does not round-trip");
        assertArrayEquals(first, serialize(serializer, serializer.copy(value)));
        DataOutputSerializer snapshotBytes = new DataOutputSerializer(64);
        TypeSerializerSnapshot.writeVersionedSnapshot(
                snapshotBytes, serializer.snapshotConfiguration());
        TypeSerializerSnapshot<T> restored =
                TypeSerializerSnapshot.readVersionedSnapshot(
                        new DataInputDeserializer(snapshotBytes.getCopyOfBuffer()),
                        MessageTypesTest.class.getClassLoader());
        assertTrue(
                serializer
                        .snapshotConfiguration()
                        .resolveSchemaCompatibility(restored)
                        .isCompatibleAsIs());
        assertArrayEquals(first, serialize(restored.restoreSerializer(), copy));
    }

    @SuppressWarnings("unchecked")
    private static <T> void roundTrip(T value) throws Exception {
        TypeInformation<T> info = (TypeInformation<T>) TypeInformation.of(value.getClass());
        assertInstanceOf(PojoTypeInfo.class, info, value.getClass() + " is not a POJO type");
        ExecutionConfig config = new ExecutionConfig();
        config.disableGenericTypes();
        TypeSerializer<T> serializer = info.createSerializer(config.getSerializerConfig());
        byte[] first = serialize(serializer, value);
        T copy = serializer.deserialize(new DataInputDeserializer(first));
        assertArrayEquals(
                first, serialize(serializer, copy), value.getClass() + " does not round-trip");
        assertArrayEquals(
                first,
                serialize(serializer, serializer.copy(value)),
                value.getClass() + " copy differs");
        DataOutputSerializer snapshotBytes = new DataOutputSerializer(256);
        TypeSerializerSnapshot.writeVersionedSnapshot(
                snapshotBytes, serializer.snapshotConfiguration());
        TypeSerializerSnapshot<T> restored =
                TypeSerializerSnapshot.readVersionedSnapshot(
                        new DataInputDeserializer(snapshotBytes.getCopyOfBuffer()),
                        MessageTypesTest.class.getClassLoader());
        assertTrue(
                serializer
                        .snapshotConfiguration()
                        .resolveSchemaCompatibility(restored)
                        .isCompatibleAsIs(),
                value.getClass() + " snapshot is not compatible as is");
    }

    private static <T> byte[] serialize(TypeSerializer<T> serializer, T value) throws Exception {
        DataOutputSerializer out = new DataOutputSerializer(256);
        serializer.serialize(value, out);
        return out.getCopyOfBuffer();
    }

    private static MiniBatch headOf(MiniBatch b) {
        MiniBatch head = MiniBatchSerializer.INSTANCE.copy(b);
        head.features = null;
        head.labels = null;
        return head;
    }

    private static List<Object> samples() {
        MiniBatch b = new MiniBatch();
        b.batchId = 3;
        b.seq = 4;
        b.kind = MiniBatch.Kind.EVAL_VAL;
        b.numLayers = 1;
        b.nodeCounts = new int[] {1, 2};
        b.nodeIds = new long[] {5, 6};
        b.indptr = new int[] {0, 1};
        b.indptrOffsets = new int[] {0};
        b.indices = new int[] {1};
        b.indicesOffsets = new int[] {0};
        b.featureDim = 2;
        b.features = new float[] {1, 2, 3, 4};
        b.labels = new int[] {1};
        b.loopBytes = 300;
        b.remoteLoopBytes = 100;
        b.remoteFeatureBytes = 50;
        b.graphReplicas = 7;
        b.graphCutEdgesIngested = 11;
        MiniBatch withDegrees = MiniBatchSerializer.INSTANCE.copy(b);
        withDegrees.degrees = new int[] {3, 1};

        BatchSpec spec = new BatchSpec();
        spec.batchId = 1;
        spec.seeds = new long[] {1, 2, 3};
        spec.finalRound = true;

        SampleResponse response = new SampleResponse();
        response.batchId = 1;
        response.sampleVertices = new long[] {1};
        response.neighbourCounts = new int[] {2};
        response.neighbours = new long[] {7, 8};

        ModelState model = new ModelState();
        model.step = 9;
        model.params = new float[][] {{1, 2}, {3}};
        model.adamM = new float[][] {{0, 0}, {0}};
        model.adamV = new float[][] {{0, 0}, {0}};

        SchedulerState scheduler = new SchedulerState();
        scheduler.trainSeeds = new long[] {1, 2};
        scheduler.partitionVertices = new long[4];
        scheduler.unacked = new BatchSpec[] {spec};
        scheduler.generation = 2;
        scheduler.layout = 1;
        scheduler.stepStarts = new StepStarts.StepStart[] {new StepStarts.StepStart(5, 2, 64)};
        scheduler.earlierEpochOrders =
                new StepStarts.EpochOrder[] {new StepStarts.EpochOrder(1, new long[] {3, 1})};
        TrainerProgress progress = new TrainerProgress();
        progress.layout = 1;
        progress.layoutStep = 8;
        progress.appliedStep = 9;

        PendingStep pending = new PendingStep();
        pending.step = 9;
        pending.seq = 4;
        pending.seeds = 64;
        pending.grad = new float[] {0.5f, -1f};
        pending.loss = 1.25;
        pending.roundShare = 2;
        pending.finalRound = true;

        InferenceTableState table = new InferenceTableState();
        table.step = 150;
        table.layer = 1;
        table.dim = 2;
        table.ids = new long[] {3, 5};
        table.values = new float[] {1, 2, 3, 4};

        return List.of(
                GraphStoreInput.of(GraphUpdate.of(EdgeUpdate.add(1, 2))),
                GraphStoreInput.of(SampleRequest.sampleOnly(1, 7, 1, 0, 0, -1, new long[] {1})),
                GraphStoreInput.of(
                        SampleRequest.sampleOnly(1, 7, 2, 3, 1, 25, new long[] {4, 5})
                                .withFeatures(8, 1, 2, 3, new long[] {6, 7}, new int[] {9, 10}),
                        SampleRequest.sampleOnly(1, 7, 2, 5, 0, 25, new long[] {11})),
                GraphStoreInput.of(GraphUpdate.of(new EdgeUpdate(4, 5, true, 123L))),
                GraphStoreInput.of(
                        GraphUpdate.of(new NodeUpdate(6, new float[] {0.5f}, 1, Split.VAL))),
                GraphUpdate.of(new NodeUpdate(3, new float[] {1f, 0f}, 2, Split.TRAIN)),
                GraphEvent.seed(3, 17, Split.TEST),
                GraphEvent.stats(2, 10, 20, 30),
                GraphEvent.stats(2, 10, 20, 30, 4, 5),
                spec,
                response,
                b,
                MiniBatchPart.head(headOf(b), 1, 2),
                MiniBatchPart.features(
                        3,
                        4,
                        0,
                        1,
                        1,
                        new int[] {1},
                        new int[] {-1},
                        new byte[] {0, 0, 64, 64, 0, 0, -128, 64}),
                sentBy(
                        MiniBatchPart.features(
                                3, 4, 1, 1, 1, new int[] {1}, new int[] {-1}, new byte[4]),
                        2),
                MiniBatchPart.featuresOfRecords(
                        3,
                        4,
                        0,
                        1,
                        2,
                        new int[] {2},
                        new int[] {1},
                        new byte[][] {
                            VertexRecord.encode(
                                    new NodeUpdate(9, new float[] {2f, 4f}, 1, Split.TEST))
                        }),
                MiniBatchPart.features(3, 4, 0, 1, 1, new int[] {1}, new int[] {0}, new byte[8])
                        .withCacheSlots(77L, new int[] {12}, new int[] {0, 2}, new int[] {3, 4}),
                withDegrees,
                withRowDegrees(
                        MiniBatchPart.features(
                                        3, 4, 0, 1, 1, new int[] {1}, new int[] {0}, new byte[8])
                                .withCacheSlots(
                                        77L, new int[] {12}, new int[] {0, 2}, new int[] {3, 4}),
                        2,
                        5,
                        1),
                new Credit(0, 41),
                model,
                scheduler,
                progress,
                pending,
                table,
                new TrainerReplica(1, 2, model, progress));
    }

    private static MiniBatchPart withRowDegrees(MiniBatchPart part, int... degrees) {
        part.degrees = degrees;
        return part;
    }

    /**
     * Records of format 8, before degrees, read without them: a batch and a feature part written
     * now, less the degrees' flag at their end and with the version byte 8.
     */
    @Test
    void readsBatchesAndPartsOfTheFormatBeforeDegrees() throws Exception {
        List<Object> all = samples();
        MiniBatch b =
                (MiniBatch) all.stream().filter(MiniBatch.class::isInstance).findFirst().get();
        byte[] batch = serialize(MiniBatchSerializer.INSTANCE, b);
        assertEquals(9, batch[0]);
        assertEquals(0, batch[batch.length - 1], "no degrees");
        byte[] v8 = Arrays.copyOf(batch, batch.length - 1);
        v8[0] = 8;
        MiniBatch read = MiniBatchSerializer.INSTANCE.deserialize(new DataInputDeserializer(v8));
        assertNull(read.degrees);
        assertArrayEquals(b.nodeIds, read.nodeIds);
        assertEquals(b.graphCutEdgesIngested, read.graphCutEdgesIngested);

        MiniBatchPart part =
                MiniBatchPart.features(3, 4, 0, 1, 1, new int[] {1}, new int[] {0}, new byte[8])
                        .withCacheSlots(77L, new int[] {12}, new int[] {0, 2}, new int[] {3, 4});
        byte[] bytes = serialize(MiniBatchPartSerializer.INSTANCE, part);
        byte[] v8part = Arrays.copyOf(bytes, bytes.length - 1);
        v8part[0] = 8;
        MiniBatchPart readPart =
                MiniBatchPartSerializer.INSTANCE.deserialize(new DataInputDeserializer(v8part));
        assertNull(readPart.degrees);
        assertArrayEquals(new int[] {0, 2}, readPart.cachedRows);
        assertEquals(77L, readPart.cacheEpoch);

        part.degrees = new int[] {2, 5, 1};
        MiniBatchPart withDegrees =
                MiniBatchPartSerializer.INSTANCE.deserialize(
                        new DataInputDeserializer(
                                serialize(MiniBatchPartSerializer.INSTANCE, part)));
        assertArrayEquals(new int[] {2, 5, 1}, withDegrees.degrees);
    }

    private static MiniBatchPart sentBy(MiniBatchPart part, int sender) {
        part.sender = sender;
        return part;
    }

    /**
     * A part of format 5 (before the sender) holding a head: the head is read in the batch format
     * of the same number, and the part's sender is unknown.
     */
    @Test
    void readsAHeadInsideAFormatFivePart() throws Exception {
        MiniBatch b =
                samples().stream()
                        .filter(MiniBatch.class::isInstance)
                        .map(MiniBatch.class::cast)
                        .findFirst()
                        .orElseThrow();
        byte[] part = serialize(MiniBatchPartSerializer.INSTANCE, MiniBatchPart.head(b, 1, 2));
        byte[] batch = serialize(MiniBatchSerializer.INSTANCE, b);
        // A part: version, identity (33 bytes), the head's fields (a batch record without its
        // version byte), the part's other fields. Formats 6, 7, 8 and 9 of the batch added four
        // longs and an int, an int, a flag and a flag (both false here) at its end; formats 6, 7
        // and 9 of the part the sender, the row width and a flag (false) at its end.
        int identity = 1 + 33;
        int headFields = batch.length - 1;
        DataOutputSerializer v5 = new DataOutputSerializer(part.length);
        v5.writeByte(5);
        v5.write(part, 1, identity - 1);
        v5.write(part, identity, headFields - 4 * Long.BYTES - 2 * Integer.BYTES - 2);
        v5.write(
                part,
                identity + headFields,
                part.length - 2 * Integer.BYTES - 1 - identity - headFields);
        MiniBatchPart read =
                MiniBatchPartSerializer.INSTANCE.deserialize(
                        new DataInputDeserializer(v5.getCopyOfBuffer()));
        assertEquals(-1, read.sender, "unknown sender");
        assertEquals(b.loopBytes, read.head.loopBytes);
        assertEquals(0, read.head.remoteLoopBytes);
        assertEquals(0, read.head.graphReplicas);
        assertArrayEquals(b.nodeIds, read.head.nodeIds);
        assertEquals(2, read.numParts);
    }
}

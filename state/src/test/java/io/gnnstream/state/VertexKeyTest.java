package io.gnnstream.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.junit.jupiter.api.Test;

class VertexKeyTest {

    @Test
    void partitionMapsToItsOwnKeyGroupForEveryPowerOfTwoMaxParallelism() {
        for (int maxParallelism : new int[] {1, 2, 8, 128, 1024, 32768}) {
            for (int p = 0; p < 4096; p += 7) {
                VertexKey key = new VertexKey(p, 123_456_789L + p);
                assertEquals(
                        p % maxParallelism,
                        KeyGroupRangeAssignment.assignToKeyGroup(key, maxParallelism),
                        "partition " + p + ", max parallelism " + maxParallelism);
                assertEquals(
                        KeyGroupRangeAssignment.assignToKeyGroup(
                                VertexKey.anchor(p), maxParallelism),
                        KeyGroupRangeAssignment.assignToKeyGroup(key, maxParallelism));
            }
        }
    }

    @Test
    void equalityUsesPartitionAndVertex() {
        assertEquals(new VertexKey(3, 9), new VertexKey(3, 9));
        assertNotEquals(new VertexKey(3, 9), new VertexKey(3, 10));
        assertNotEquals(new VertexKey(3, 9), new VertexKey(4, 9));
        assertTrue(VertexKey.anchor(5).isAnchor());
        assertThrows(IllegalArgumentException.class, () -> new VertexKey(-1, 0));
        assertThrows(
                IllegalArgumentException.class,
                () -> new VertexKey(KeyGroupAnchors.MAX_PARTITIONS, 0));
    }

    @Test
    void serializerRoundTripsAndHasFixedLength() throws Exception {
        TypeSerializer<VertexKey> serializer =
                VertexKeyTypeInfo.INSTANCE.createSerializer(
                        new org.apache.flink.api.common.serialization.SerializerConfigImpl());
        DataOutputSerializer out = new DataOutputSerializer(64);
        VertexKey[] keys = {
            new VertexKey(0, 0), VertexKey.anchor(127), new VertexKey(32767, Long.MAX_VALUE)
        };
        for (VertexKey k : keys) {
            serializer.serialize(k, out);
        }
        assertEquals(12 * keys.length, out.length());
        DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
        for (VertexKey k : keys) {
            assertEquals(k, serializer.deserialize(in));
        }
    }

    @Test
    void serializerSnapshotRestoresACompatibleSerializer() throws Exception {
        TypeSerializerSnapshot<VertexKey> snapshot =
                VertexKeySerializer.INSTANCE.snapshotConfiguration();
        DataOutputSerializer out = new DataOutputSerializer(64);
        TypeSerializerSnapshot.writeVersionedSnapshot(out, snapshot);
        TypeSerializerSnapshot<VertexKey> restored =
                TypeSerializerSnapshot.readVersionedSnapshot(
                        new DataInputDeserializer(out.getCopyOfBuffer()),
                        getClass().getClassLoader());
        TypeSerializerSchemaCompatibility<VertexKey> compatibility =
                VertexKeySerializer.INSTANCE
                        .snapshotConfiguration()
                        .resolveSchemaCompatibility(restored);
        assertTrue(compatibility.isCompatibleAsIs());
        assertEquals(VertexKeySerializer.INSTANCE, restored.restoreSerializer());
    }

    @Test
    void hashPartitionerSpreadsConsecutiveIds() {
        HashPartitioner partitioner = new HashPartitioner(16);
        int[] counts = new int[16];
        for (long v = 0; v < 16_000; v++) {
            counts[partitioner.partition(v)]++;
        }
        for (int c : counts) {
            assertTrue(c > 800 && c < 1200, "unbalanced partition count " + c);
        }
        assertThrows(IllegalArgumentException.class, () -> new HashPartitioner(0));
    }
}

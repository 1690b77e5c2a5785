package io.gnnstream.state;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.state.records.NodeUpdate;
import io.gnnstream.state.records.Split;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

class VertexRecordTest {

    @Test
    void roundTripsLabelSplitAndFeatures() {
        float[] features = {0.5f, -1.25f, Float.MIN_VALUE, 3e7f};
        byte[] record = VertexRecord.encode(new NodeUpdate(9, features, 6, Split.TEST));
        assertEquals(6, VertexRecord.label(record));
        assertEquals(Split.TEST, VertexRecord.split(record));
        assertEquals(4, VertexRecord.featureDim(record));
        byte[] out = new byte[6 * Float.BYTES];
        VertexRecord.copyFeatureBytes(record, out, 2 * Float.BYTES);
        float[] decoded = new float[6];
        ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(decoded);
        assertArrayEquals(new float[] {0, 0, 0.5f, -1.25f, Float.MIN_VALUE, 3e7f}, decoded);
        assertEquals(
                NodeUpdate.NO_LABEL,
                VertexRecord.label(
                        VertexRecord.encode(
                                new NodeUpdate(1, new float[0], NodeUpdate.NO_LABEL, Split.NONE))));
    }

    @Test
    void rejectsOtherLayouts() {
        assertThrows(
                IllegalStateException.class,
                () -> VertexRecord.label(new byte[] {2, 0, 0, 0, 0, 0}));
        assertThrows(IllegalStateException.class, () -> VertexRecord.label(new byte[2]));
    }

    /**
     * The split byte is the split's code, 0 to 3 in declaration order; other values are rejected.
     */
    @Test
    void storesTheSplitAsItsCode() {
        for (Split split : Split.values()) {
            byte[] record = VertexRecord.encode(new NodeUpdate(1, new float[0], 0, split));
            assertEquals(split.ordinal(), record[1]);
            assertEquals(split, Split.ofCode(record[1]));
        }
        byte[] record = VertexRecord.encode(new NodeUpdate(1, new float[0], 0, Split.TRAIN));
        record[1] = 9;
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> VertexRecord.split(record));
        assertTrue(e.getMessage().contains("unknown split code 9"), e.getMessage());
    }
}

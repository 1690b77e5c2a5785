package io.gnnstream.state;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.gnnstream.state.serialization.BulkArrays;
import java.util.SplittableRandom;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

class BulkArraysTest {

    @Test
    void roundTripsArraysAcrossChunkBoundaries() throws Exception {
        SplittableRandom random = new SplittableRandom(3);
        for (int length : new int[] {0, 1, 7, 16_384, 16_385, 100_003}) {
            float[] f = new float[length];
            int[] i = new int[length];
            long[] l = new long[length];
            for (int k = 0; k < length; k++) {
                f[k] = (float) random.nextGaussian();
                i[k] = random.nextInt();
                l[k] = random.nextLong();
            }
            DataOutputSerializer out = new DataOutputSerializer(64);
            BulkArrays.writeFloats(f, out);
            BulkArrays.writeInts(i, out);
            BulkArrays.writeLongs(l, out);
            BulkArrays.writeFloats(null, out);
            DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
            assertArrayEquals(f, BulkArrays.readFloats(in));
            assertArrayEquals(i, BulkArrays.readInts(in));
            assertArrayEquals(l, BulkArrays.readLongs(in));
            assertNull(BulkArrays.readFloats(in));
        }
    }
}

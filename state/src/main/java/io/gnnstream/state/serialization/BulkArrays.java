package io.gnnstream.state.serialization;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Primitive arrays written as length + little-endian bytes in bulk. Flink's array serializers move
 * one element per call through the data view, which the profile showed as the sampling loop's main
 * cost for batches of megabytes of features; bulk copies through a byte buffer are several times
 * faster. A null array is written as length -1.
 */
public final class BulkArrays {

    private static final int CHUNK = 1 << 16;

    private BulkArrays() {}

    public static void writeFloats(float[] values, DataOutputView out) throws IOException {
        if (values == null) {
            out.writeInt(-1);
            return;
        }
        out.writeInt(values.length);
        ByteBuffer chunk = ByteBuffer.allocate(CHUNK).order(ByteOrder.LITTLE_ENDIAN);
        for (int from = 0; from < values.length; from += CHUNK / 4) {
            int n = Math.min(CHUNK / 4, values.length - from);
            chunk.clear();
            chunk.asFloatBuffer().put(values, from, n);
            out.write(chunk.array(), 0, n * 4);
        }
    }

    public static float[] readFloats(DataInputView in) throws IOException {
        int length = in.readInt();
        if (length < 0) {
            return null;
        }
        float[] values = new float[length];
        byte[] chunk = new byte[Math.min(CHUNK, length * 4)];
        ByteBuffer view = ByteBuffer.wrap(chunk).order(ByteOrder.LITTLE_ENDIAN);
        for (int from = 0; from < length; from += CHUNK / 4) {
            int n = Math.min(CHUNK / 4, length - from);
            in.readFully(chunk, 0, n * 4);
            view.clear();
            view.asFloatBuffer().get(values, from, n);
        }
        return values;
    }

    public static void writeInts(int[] values, DataOutputView out) throws IOException {
        if (values == null) {
            out.writeInt(-1);
            return;
        }
        out.writeInt(values.length);
        ByteBuffer chunk = ByteBuffer.allocate(CHUNK).order(ByteOrder.LITTLE_ENDIAN);
        for (int from = 0; from < values.length; from += CHUNK / 4) {
            int n = Math.min(CHUNK / 4, values.length - from);
            chunk.clear();
            chunk.asIntBuffer().put(values, from, n);
            out.write(chunk.array(), 0, n * 4);
        }
    }

    public static int[] readInts(DataInputView in) throws IOException {
        int length = in.readInt();
        if (length < 0) {
            return null;
        }
        int[] values = new int[length];
        byte[] chunk = new byte[Math.min(CHUNK, length * 4)];
        ByteBuffer view = ByteBuffer.wrap(chunk).order(ByteOrder.LITTLE_ENDIAN);
        for (int from = 0; from < length; from += CHUNK / 4) {
            int n = Math.min(CHUNK / 4, length - from);
            in.readFully(chunk, 0, n * 4);
            view.clear();
            view.asIntBuffer().get(values, from, n);
        }
        return values;
    }

    public static void writeLongs(long[] values, DataOutputView out) throws IOException {
        if (values == null) {
            out.writeInt(-1);
            return;
        }
        out.writeInt(values.length);
        ByteBuffer chunk = ByteBuffer.allocate(CHUNK).order(ByteOrder.LITTLE_ENDIAN);
        for (int from = 0; from < values.length; from += CHUNK / 8) {
            int n = Math.min(CHUNK / 8, values.length - from);
            chunk.clear();
            chunk.asLongBuffer().put(values, from, n);
            out.write(chunk.array(), 0, n * 8);
        }
    }

    public static long[] readLongs(DataInputView in) throws IOException {
        int length = in.readInt();
        if (length < 0) {
            return null;
        }
        long[] values = new long[length];
        byte[] chunk = new byte[Math.min(CHUNK, length * 8)];
        ByteBuffer view = ByteBuffer.wrap(chunk).order(ByteOrder.LITTLE_ENDIAN);
        for (int from = 0; from < length; from += CHUNK / 8) {
            int n = Math.min(CHUNK / 8, length - from);
            in.readFully(chunk, 0, n * 8);
            view.clear();
            view.asLongBuffer().get(values, from, n);
        }
        return values;
    }
}

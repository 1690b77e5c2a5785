package io.gnnstream.state.serialization;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Primitive arrays written as length + little-endian bytes in bulk. Flink's array serializers move
 * one element per call through the data view, a main cost for batches of megabytes of features;
 * bulk copies through a byte buffer are several times faster. A null array is written as length -1.
 * Each thread copies through one buffer of its own, so that a batch's arrays allocate nothing
 * besides the arrays read.
 */
public final class BulkArrays {

    private static final int CHUNK = 1 << 16;

    private static final ThreadLocal<ByteBuffer> CHUNKS =
            ThreadLocal.withInitial(
                    () -> ByteBuffer.allocate(CHUNK).order(ByteOrder.LITTLE_ENDIAN));

    private BulkArrays() {}

    public static void writeFloats(float[] values, DataOutputView out) throws IOException {
        writeFloats(values, values == null ? -1 : values.length, out);
    }

    /**
     * Writes the first {@code length} elements of {@code values}, read back as an array of that
     * length.
     */
    public static void writeFloats(float[] values, int length, DataOutputView out)
            throws IOException {
        if (length > (values == null ? -1 : values.length)) {
            throw new IllegalArgumentException(
                    "writing "
                            + length
                            + " floats of "
                            + (values == null ? "none" : values.length));
        }
        if (writeLength(values == null ? -1 : length, out)) {
            write(
                    length,
                    Float.BYTES,
                    (chunk, from, n) -> chunk.asFloatBuffer().put(values, from, n),
                    out);
        }
    }

    public static float[] readFloats(DataInputView in) throws IOException {
        int length = in.readInt();
        if (length < 0) {
            return null;
        }
        float[] values = new float[length];
        read(
                length,
                Float.BYTES,
                (chunk, from, n) -> chunk.asFloatBuffer().get(values, from, n),
                in);
        return values;
    }

    public static void writeInts(int[] values, DataOutputView out) throws IOException {
        if (writeLength(values == null ? -1 : values.length, out)) {
            write(
                    values.length,
                    Integer.BYTES,
                    (chunk, from, n) -> chunk.asIntBuffer().put(values, from, n),
                    out);
        }
    }

    public static int[] readInts(DataInputView in) throws IOException {
        int length = in.readInt();
        if (length < 0) {
            return null;
        }
        int[] values = new int[length];
        read(
                length,
                Integer.BYTES,
                (chunk, from, n) -> chunk.asIntBuffer().get(values, from, n),
                in);
        return values;
    }

    public static void writeLongs(long[] values, DataOutputView out) throws IOException {
        if (writeLength(values == null ? -1 : values.length, out)) {
            write(
                    values.length,
                    Long.BYTES,
                    (chunk, from, n) -> chunk.asLongBuffer().put(values, from, n),
                    out);
        }
    }

    public static long[] readLongs(DataInputView in) throws IOException {
        int length = in.readInt();
        if (length < 0) {
            return null;
        }
        long[] values = new long[length];
        read(length, Long.BYTES, (chunk, from, n) -> chunk.asLongBuffer().get(values, from, n), in);
        return values;
    }

    public static void writeBytes(byte[] values, DataOutputView out) throws IOException {
        if (writeLength(values == null ? -1 : values.length, out)) {
            out.write(values);
        }
    }

    public static byte[] readBytes(DataInputView in) throws IOException {
        int length = in.readInt();
        if (length < 0) {
            return null;
        }
        byte[] values = new byte[length];
        in.readFully(values);
        return values;
    }

    /** Copies elements {@code [from, from + n)} between an array and a chunk's typed view. */
    private interface ChunkCopy {
        void copy(ByteBuffer chunk, int from, int n);
    }

    private static boolean writeLength(int length, DataOutputView out) throws IOException {
        out.writeInt(length);
        return length >= 0;
    }

    private static void write(int length, int width, ChunkCopy fill, DataOutputView out)
            throws IOException {
        ByteBuffer chunk = CHUNKS.get();
        int perChunk = chunk.capacity() / width;
        for (int from = 0; from < length; from += perChunk) {
            int n = Math.min(perChunk, length - from);
            chunk.clear();
            fill.copy(chunk, from, n);
            out.write(chunk.array(), 0, n * width);
        }
    }

    private static void read(int length, int width, ChunkCopy drain, DataInputView in)
            throws IOException {
        ByteBuffer chunk = CHUNKS.get();
        int perChunk = chunk.capacity() / width;
        for (int from = 0; from < length; from += perChunk) {
            int n = Math.min(perChunk, length - from);
            in.readFully(chunk.array(), 0, n * width);
            chunk.clear();
            drain.copy(chunk, from, n);
        }
    }
}

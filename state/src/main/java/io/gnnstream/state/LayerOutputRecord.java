package io.gnnstream.state;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The value of the GraphStore's layer-output store for one vertex and model layer: the vertex's
 * output of that layer in the inference round of a model step, tagged with the step, with the
 * vertex's label as it was when the output was written (the last layer's pass scores destinations
 * by it). Layout: a version byte, the step (8 bytes), the label (4 bytes), then the outputs as
 * little-endian float32, so they leave for the trainer as the stored bytes. A later round's output
 * overwrites it.
 */
public final class LayerOutputRecord {

    /** Layout version written in the first byte. */
    public static final byte VERSION = 1;

    /** Bytes before the outputs. */
    public static final int HEADER_BYTES = 1 + Long.BYTES + Integer.BYTES;

    private LayerOutputRecord() {}

    /**
     * Encodes {@code dim} outputs of {@code values} from {@code offset}, of {@code step}, with
     * {@code label}.
     */
    public static byte[] encode(long step, int label, float[] values, int offset, int dim) {
        ByteBuffer b =
                ByteBuffer.allocate(HEADER_BYTES + dim * Float.BYTES)
                        .order(ByteOrder.LITTLE_ENDIAN);
        b.put(VERSION).putLong(step).putInt(label);
        b.asFloatBuffer().put(values, offset, dim);
        return b.array();
    }

    /** The model step of the round that wrote {@code record}. */
    public static long step(byte[] record) {
        check(record);
        return ByteBuffer.wrap(record).order(ByteOrder.LITTLE_ENDIAN).getLong(1);
    }

    public static int label(byte[] record) {
        check(record);
        return ByteBuffer.wrap(record).order(ByteOrder.LITTLE_ENDIAN).getInt(1 + Long.BYTES);
    }

    /** Number of outputs. */
    public static int dim(byte[] record) {
        check(record);
        return (record.length - HEADER_BYTES) / Float.BYTES;
    }

    /** Copies the outputs' bytes (little-endian float32) into {@code out} at {@code offset}. */
    public static void copyValueBytes(byte[] record, byte[] out, int offset) {
        System.arraycopy(record, HEADER_BYTES, out, offset, record.length - HEADER_BYTES);
    }

    /** The outputs decoded. */
    public static float[] values(byte[] record) {
        float[] v = new float[dim(record)];
        ByteBuffer.wrap(record, HEADER_BYTES, record.length - HEADER_BYTES)
                .order(ByteOrder.LITTLE_ENDIAN)
                .asFloatBuffer()
                .get(v);
        return v;
    }

    private static void check(byte[] record) {
        if (record.length < HEADER_BYTES
                || record[0] != VERSION
                || (record.length - HEADER_BYTES) % Float.BYTES != 0) {
            throw new IllegalArgumentException(
                    "not a layer output record of version "
                            + VERSION
                            + " ("
                            + record.length
                            + " bytes, version "
                            + (record.length > 0 ? record[0] : -1)
                            + ")");
        }
    }
}

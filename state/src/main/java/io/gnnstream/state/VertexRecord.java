package io.gnnstream.state;

import io.gnnstream.state.records.NodeUpdate;
import io.gnnstream.state.records.Split;
import java.io.DataOutput;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Byte layout of a vertex's attributes in keyed state: {@code version:byte, split:byte, label:int,
 * features:float[F]} little-endian. One opaque value per vertex means one RocksDB read per feature
 * fetch and a bulk copy instead of Flink's float-by-float array deserialization, which would
 * dominate the sampling loop's CPU time. The split is stored as its {@link Split#code()}. Features
 * leave the record as bytes in the same layout, so the GraphStore's feature fetch is one array copy
 * per vertex without decoding.
 */
public final class VertexRecord {

    /** Layout version, checked on read so a future layout can be told apart. */
    public static final byte VERSION = 1;

    private static final int HEADER = 6;
    private static final VarHandle INT_LE =
            MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private VertexRecord() {}

    /** Bytes of the record of a vertex with {@code featureDim} features. */
    public static int sizeOf(int featureDim) {
        return HEADER + 4 * featureDim;
    }

    public static byte[] encode(NodeUpdate node) {
        ByteBuffer b =
                ByteBuffer.allocate(sizeOf(node.features.length)).order(ByteOrder.LITTLE_ENDIAN);
        b.put(VERSION).put(node.split.code()).putInt(node.label);
        b.asFloatBuffer().put(node.features);
        return b.array();
    }

    public static int label(byte[] record) {
        check(record);
        return (int) INT_LE.get(record, 2);
    }

    /**
     * The split stored in {@code record}.
     *
     * @throws IllegalArgumentException if the record's split byte is no {@link Split#code()}
     */
    public static Split split(byte[] record) {
        check(record);
        return Split.ofCode(record[1]);
    }

    /** The features of {@code record}. */
    public static float[] features(byte[] record) {
        float[] out = new float[featureDim(record)];
        ByteBuffer.wrap(record, HEADER, out.length * Float.BYTES)
                .order(ByteOrder.LITTLE_ENDIAN)
                .asFloatBuffer()
                .get(out);
        return out;
    }

    public static int featureDim(byte[] record) {
        return (record.length - HEADER) / 4;
    }

    /**
     * Copies the features, as little-endian float32 bytes, into {@code dst} starting at byte {@code
     * offset}.
     */
    public static void copyFeatureBytes(byte[] record, byte[] dst, int offset) {
        check(record);
        System.arraycopy(record, HEADER, dst, offset, featureDim(record) * Float.BYTES);
    }

    /** Writes the features, as little-endian float32 bytes, to {@code out}. */
    public static void writeFeatureBytes(byte[] record, DataOutput out) throws IOException {
        check(record);
        out.write(record, HEADER, featureDim(record) * Float.BYTES);
    }

    private static void check(byte[] record) {
        if (record.length < HEADER || record[0] != VERSION) {
            throw new IllegalStateException("not a vertex record of layout version " + VERSION);
        }
    }
}

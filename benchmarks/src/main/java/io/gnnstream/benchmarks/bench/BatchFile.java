package io.gnnstream.benchmarks.bench;

import io.gnnstream.operators.messages.MiniBatch;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * A training {@link MiniBatch} as one file, the format {@code docs/benchmarks/torch_sage.py} reads
 * (little-endian): int32 {@code L, F, C}; int32 {@code nodeCounts[L+1]}; per hop {@code h = 1..L}:
 * int32 {@code nnz}, int32 {@code indptr[nodeCounts[h-1] + 1]} (from 0), int32 {@code
 * indices[nnz]}; int32 {@code labels[nodeCounts[0]]}; float32 {@code features[nodeCounts[L] * F]}.
 * Carries the blocks, features and labels only, no ids or bookkeeping. java.base only, so the GPU
 * check's bundle carries it.
 */
public final class BatchFile {

    private static final int CHUNK = 1 << 20;

    /** A batch read back, with the class count the file names. */
    public record Contents(MiniBatch batch, int classes) {}

    private BatchFile() {}

    /** Writes {@code batch} (a training batch of {@code classes} classes) to {@code file}. */
    public static void write(MiniBatch batch, int classes, Path file) throws IOException {
        int layers = batch.numLayers;
        int f = batch.featureDim;
        try (FileChannel ch =
                FileChannel.open(
                        file,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.TRUNCATE_EXISTING,
                        StandardOpenOption.WRITE)) {
            Writer out = new Writer(ch);
            out.ints(new int[] {layers, f, classes}, 0, 3);
            out.ints(batch.nodeCounts, 0, layers + 1);
            for (int h = 1; h <= layers; h++) {
                int nDst = batch.nodeCounts[h - 1];
                int p0 = batch.indptrOffsets[h - 1];
                int first = batch.indptr[p0];
                int nnz = batch.indptr[p0 + nDst] - first;
                out.ints(new int[] {nnz}, 0, 1);
                int[] indptr = new int[nDst + 1];
                for (int i = 0; i <= nDst; i++) {
                    indptr[i] = batch.indptr[p0 + i] - first;
                }
                out.ints(indptr, 0, indptr.length);
                out.ints(batch.indices, batch.indicesOffsets[h - 1] + first, nnz);
            }
            out.ints(batch.labels, 0, batch.nodeCounts[0]);
            out.floats(batch.features, batch.nodeCounts[layers] * f);
            out.flush();
        }
    }

    /**
     * The batch in {@code file}: a {@link MiniBatch.Kind#TRAIN} batch whose node ids are its row
     * numbers.
     *
     * @throws IOException if the file is unreadable, truncated, longer than its header says, or
     *     inconsistent (counts, CSR offsets, indices or labels out of range)
     */
    public static Contents read(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            Reader in = new Reader(ch, file);
            int[] head = in.ints(3);
            int layers = head[0];
            int f = head[1];
            int classes = head[2];
            if (layers < 1 || layers > 64 || f < 1 || classes < 2) {
                throw new IOException(
                        file
                                + ": not a batch file (L="
                                + layers
                                + ", F="
                                + f
                                + ", C="
                                + classes
                                + ")");
            }
            int[] counts = in.ints(layers + 1);
            for (int h = 0; h <= layers; h++) {
                if (counts[h] < 1 || (h > 0 && counts[h] < counts[h - 1])) {
                    throw new IOException(
                            file
                                    + ": node counts must be >= 1 and non-decreasing, got "
                                    + Arrays.toString(counts));
                }
            }
            if ((long) counts[layers] * f > Integer.MAX_VALUE - 8) {
                throw new IOException(file + ": " + counts[layers] + " x " + f + " features");
            }
            int[][] indptr = new int[layers][];
            int[][] indices = new int[layers][];
            for (int h = 1; h <= layers; h++) {
                int nnz = in.ints(1)[0];
                indptr[h - 1] = in.ints(counts[h - 1] + 1);
                int[] p = indptr[h - 1];
                if (nnz < 0 || p[0] != 0 || p[p.length - 1] != nnz) {
                    throw new IOException(
                            file + ": hop " + h + ": indptr must run from 0 to nnz " + nnz);
                }
                for (int i = 1; i < p.length; i++) {
                    if (p[i] < p[i - 1]) {
                        throw new IOException(file + ": hop " + h + ": indptr decreases at " + i);
                    }
                }
                indices[h - 1] = in.ints(nnz);
                for (int s : indices[h - 1]) {
                    if (s < 0 || s >= counts[h]) {
                        throw new IOException(
                                file
                                        + ": hop "
                                        + h
                                        + ": source "
                                        + s
                                        + " outside [0, "
                                        + counts[h]
                                        + ")");
                    }
                }
            }
            int[] labels = in.ints(counts[0]);
            for (int label : labels) {
                if (label != MiniBatch.NO_LABEL && (label < 0 || label >= classes)) {
                    throw new IOException(
                            file + ": label " + label + " outside [0, " + classes + ")");
                }
            }
            float[] features = in.floats(counts[layers] * f);
            in.expectEnd();
            MiniBatch b = new MiniBatch();
            b.kind = MiniBatch.Kind.TRAIN;
            b.numLayers = layers;
            b.nodeCounts = counts;
            b.setBlocks(indptr, indices);
            b.nodeIds = new long[counts[layers]];
            for (int i = 0; i < b.nodeIds.length; i++) {
                b.nodeIds[i] = i;
            }
            b.featureDim = f;
            b.features = features;
            b.labels = labels;
            return new Contents(b, classes);
        }
    }

    /** Little-endian writes through one buffer. */
    private static final class Writer {
        private final FileChannel ch;
        private final ByteBuffer buf = ByteBuffer.allocate(CHUNK).order(ByteOrder.LITTLE_ENDIAN);

        Writer(FileChannel ch) {
            this.ch = ch;
        }

        void ints(int[] values, int offset, int count) throws IOException {
            for (int i = 0; i < count; i++) {
                if (buf.remaining() < 4) {
                    flush();
                }
                buf.putInt(values[offset + i]);
            }
        }

        void floats(float[] values, int count) throws IOException {
            for (int i = 0; i < count; ) {
                if (buf.remaining() < 4) {
                    flush();
                }
                int n = Math.min(count - i, buf.remaining() / 4);
                buf.asFloatBuffer().put(values, i, n);
                buf.position(buf.position() + 4 * n);
                i += n;
            }
        }

        void flush() throws IOException {
            buf.flip();
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            buf.clear();
        }
    }

    /** Little-endian reads through one buffer, failing on a short file. */
    private static final class Reader {
        private final FileChannel ch;
        private final Path file;
        private final ByteBuffer buf = ByteBuffer.allocate(CHUNK).order(ByteOrder.LITTLE_ENDIAN);

        Reader(FileChannel ch, Path file) {
            this.ch = ch;
            this.file = file;
            buf.limit(0);
        }

        int[] ints(int count) throws IOException {
            int[] out = new int[count];
            for (int i = 0; i < count; ) {
                fill();
                int n = Math.min(count - i, buf.remaining() / 4);
                buf.asIntBuffer().get(out, i, n);
                buf.position(buf.position() + 4 * n);
                i += n;
            }
            return out;
        }

        float[] floats(int count) throws IOException {
            float[] out = new float[count];
            for (int i = 0; i < count; ) {
                fill();
                int n = Math.min(count - i, buf.remaining() / 4);
                buf.asFloatBuffer().get(out, i, n);
                buf.position(buf.position() + 4 * n);
                i += n;
            }
            return out;
        }

        /** Makes at least 4 bytes available. */
        private void fill() throws IOException {
            if (buf.remaining() >= 4) {
                return;
            }
            buf.compact();
            while (buf.position() < 4) {
                if (ch.read(buf) < 0) {
                    throw new EOFException(file + " is truncated");
                }
            }
            buf.flip();
        }

        void expectEnd() throws IOException {
            if (buf.hasRemaining() || ch.position() != ch.size()) {
                throw new IOException(file + " is longer than its header says");
            }
        }
    }
}

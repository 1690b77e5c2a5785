package io.gnnstream.operators.store;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.BitSet;

/**
 * What a GraphStore subtask's {@link IncrementalPredictions} keep in a snapshot (operator union
 * state {@code incremental-predictions}, one entry per subtask): the pinned model's round, the
 * generation of its rows and parameters, whether processing waits for a newer round's pin, whether
 * changes are marked, the newest round whose reads or rows the subtask took, the marked vertices
 * per model layer with their earliest change time, the vertices that came since a round's first
 * read with their time, by that round ({@code arrivalRounds}; {@link RoundArrivals#NEXT_ROUND} for
 * the next one), and the pin records of a round received so far (they are not read again after a
 * restore), and the hubs' fan-outs on their way ({@link FanOuts#encode}, null for none). {@link
 * #encode} writes a version byte first; {@link #decode} reads every version written so far (version
 * 1 has neither the newest round, taken to be the pinned one, nor arrivals; versions 1 and 2 have
 * no fan-outs).
 */
public record IncrementalState(
        long pinnedStep,
        long generation,
        float[] pinnedParams,
        boolean paused,
        boolean marking,
        long newestRound,
        long[][] pending,
        long[][] changedAt,
        long[] arrivalRounds,
        long[][] arrived,
        long[][] arrivedAt,
        PinAssembly assembly,
        byte[] fanOuts) {

    static final byte VERSION = 3;

    public byte[] encode() {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeByte(VERSION);
            out.writeLong(pinnedStep);
            out.writeLong(generation);
            writeFloats(out, pinnedParams);
            out.writeBoolean(paused);
            out.writeBoolean(marking);
            out.writeLong(newestRound);
            out.writeInt(pending.length);
            for (int j = 0; j < pending.length; j++) {
                out.writeInt(pending[j].length);
                for (int i = 0; i < pending[j].length; i++) {
                    out.writeLong(pending[j][i]);
                    out.writeLong(changedAt[j][i]);
                }
            }
            out.writeInt(arrivalRounds.length);
            for (int r = 0; r < arrivalRounds.length; r++) {
                out.writeLong(arrivalRounds[r]);
                out.writeInt(arrived[r].length);
                for (int i = 0; i < arrived[r].length; i++) {
                    out.writeLong(arrived[r][i]);
                    out.writeLong(arrivedAt[r][i]);
                }
            }
            out.writeLong(assembly.step());
            out.writeInt(assembly.trainers());
            writeFloats(out, assembly.parameters());
            writeBits(out, assembly.chunks());
            writeBits(out, assembly.ranks());
            out.writeInt(fanOuts == null ? -1 : fanOuts.length);
            if (fanOuts != null) {
                out.write(fanOuts);
            }
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static IncrementalState decode(byte[] encoded) {
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(encoded));
            byte version = in.readByte();
            if (version < 1 || version > VERSION) {
                throw new IllegalStateException(
                        "incremental-prediction state of version "
                                + version
                                + "; this build reads up to "
                                + VERSION);
            }
            long pinnedStep = in.readLong();
            long generation = in.readLong();
            float[] params = readFloats(in);
            boolean paused = in.readBoolean();
            boolean marking = in.readBoolean();
            long newestRound = version >= 2 ? in.readLong() : pinnedStep;
            int layers = in.readInt();
            long[][] pending = new long[layers][];
            long[][] changedAt = new long[layers][];
            for (int j = 0; j < layers; j++) {
                int n = in.readInt();
                pending[j] = new long[n];
                changedAt[j] = new long[n];
                for (int i = 0; i < n; i++) {
                    pending[j][i] = in.readLong();
                    changedAt[j][i] = in.readLong();
                }
            }
            int rounds = version >= 2 ? in.readInt() : 0;
            long[] arrivalRounds = new long[rounds];
            long[][] arrived = new long[rounds][];
            long[][] arrivedAt = new long[rounds][];
            for (int r = 0; r < rounds; r++) {
                arrivalRounds[r] = in.readLong();
                int n = in.readInt();
                arrived[r] = new long[n];
                arrivedAt[r] = new long[n];
                for (int i = 0; i < n; i++) {
                    arrived[r][i] = in.readLong();
                    arrivedAt[r][i] = in.readLong();
                }
            }
            long step = in.readLong();
            int trainers = in.readInt();
            float[] partial = readFloats(in);
            BitSet chunks = readBits(in);
            BitSet ranks = readBits(in);
            byte[] fanOuts = null;
            if (version >= 3) {
                int n = in.readInt();
                if (n >= 0) {
                    fanOuts = in.readNBytes(n);
                }
            }
            return new IncrementalState(
                    pinnedStep,
                    generation,
                    params,
                    paused,
                    marking,
                    newestRound,
                    pending,
                    changedAt,
                    arrivalRounds,
                    arrived,
                    arrivedAt,
                    new PinAssembly(step, trainers, partial, chunks, ranks),
                    fanOuts);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void writeFloats(DataOutputStream out, float[] values) throws IOException {
        out.writeInt(values == null ? -1 : values.length);
        if (values != null) {
            for (float v : values) {
                out.writeFloat(v);
            }
        }
    }

    private static float[] readFloats(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0) {
            return null;
        }
        float[] values = new float[n];
        for (int i = 0; i < n; i++) {
            values[i] = in.readFloat();
        }
        return values;
    }

    private static void writeBits(DataOutputStream out, BitSet bits) throws IOException {
        long[] words = bits.toLongArray();
        out.writeInt(words.length);
        for (long w : words) {
            out.writeLong(w);
        }
    }

    private static BitSet readBits(DataInputStream in) throws IOException {
        long[] words = new long[in.readInt()];
        for (int i = 0; i < words.length; i++) {
            words[i] = in.readLong();
        }
        return BitSet.valueOf(words);
    }
}

package io.gnnstream.operators.store;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

/**
 * The changes of a hub's features or rows still on their way to the sums of its readers, so that a
 * hub's fan-out is applied in pieces between other work (docs/design.md, "Incremental
 * predictions"). A fan-out holds the layer, the source, the difference to add, the readers it goes
 * to (the source's out-neighbours when it began, ascending), how far it got, the readers it no
 * longer goes to (an edge between them changed meanwhile) and the earliest change time.
 *
 * <p>Until a fan-out reaches a reader, that reader's sum holds the source's part without the
 * difference: {@link #pending} tells what to take off the source's current part wherever a sum
 * takes that part meanwhile (an edge change's difference, a sum computed again), so every sum stays
 * what the fan-out's arrival completes. An edge change between the source and a reader it has not
 * reached takes the reader out of it ({@link #edgeChanged}), since the change took the source's
 * part as it then was. Differences commute, so several fan-outs of one source may run at once.
 */
final class FanOuts {

    static final byte VERSION = 1;

    /** One source's difference on its way to its readers. */
    static final class FanOut {
        final int layer;
        final long source;
        final long tag;
        final float[] delta;
        final long[] readers;
        final BitSet skipped;
        final long changedAt;
        int next;

        FanOut(
                int layer,
                long source,
                long tag,
                float[] delta,
                long[] readers,
                BitSet skipped,
                long changedAt,
                int next) {
            this.layer = layer;
            this.source = source;
            this.tag = tag;
            this.delta = delta;
            this.readers = readers;
            this.skipped = skipped;
            this.changedAt = changedAt;
            this.next = next;
        }

        /** Whether the difference is still to reach {@code reader}. */
        boolean pendingFor(long reader) {
            int at = Arrays.binarySearch(readers, next, readers.length, reader);
            return at >= 0 && !skipped.get(at);
        }

        boolean done() {
            return next >= readers.length;
        }
    }

    private final ArrayDeque<FanOut> queue = new ArrayDeque<>();

    boolean isEmpty() {
        return queue.isEmpty();
    }

    int size() {
        return queue.size();
    }

    /** Starts a fan-out; {@code readers} must be ascending. */
    void add(int layer, long source, long tag, float[] delta, long[] readers, long changedAt) {
        queue.add(new FanOut(layer, source, tag, delta, readers, new BitSet(), changedAt, 0));
    }

    /**
     * What is still to reach {@code reader}'s layer-{@code layer} sum (of tag {@code tag}) of
     * {@code source}'s part: the sum of the differences of its fan-outs that have not reached it,
     * added into {@code into} at {@code offset} with the sign {@code sign}; false when there is
     * none.
     */
    boolean pending(
            int layer, long tag, long source, long reader, float[] into, int offset, float sign) {
        boolean any = false;
        for (FanOut f : queue) {
            if (f.layer == layer && f.source == source && f.tag == tag && f.pendingFor(reader)) {
                for (int c = 0; c < f.delta.length; c++) {
                    into[offset + c] += sign * f.delta[c];
                }
                any = true;
            }
        }
        return any;
    }

    /** Whether a difference of a layer-{@code layer} fan-out is still to reach {@code reader}. */
    boolean pendingFor(int layer, long reader) {
        for (FanOut f : queue) {
            if (f.layer == layer && f.pendingFor(reader)) {
                return true;
            }
        }
        return false;
    }

    /** An edge {@code source -> reader} was added or removed: no fan-out of it goes there. */
    void edgeChanged(long source, long reader) {
        for (FanOut f : queue) {
            if (f.source == source) {
                int at = Arrays.binarySearch(f.readers, f.next, f.readers.length, reader);
                if (at >= 0) {
                    f.skipped.set(at);
                }
            }
        }
    }

    /** Drops the fan-outs of {@code source} (deleted: its readers lost it as an in-neighbour). */
    void dropSource(long source) {
        queue.removeIf(f -> f.source == source);
    }

    /** Drops the fan-outs of layers above 0 (their sums' tag is past: a new pin or generation). */
    void dropRows() {
        queue.removeIf(f -> f.layer > 0);
    }

    /** Visits a reader a fan-out reaches. */
    interface Visit {
        void reach(FanOut f, long reader) throws Exception;
    }

    /** Takes up to {@code max} readers, oldest fan-out first; returns how many it took. */
    int take(int max, Visit visit) throws Exception {
        int taken = 0;
        while (taken < max && !queue.isEmpty()) {
            FanOut f = queue.peek();
            while (taken < max && !f.done()) {
                int at = f.next++;
                if (!f.skipped.get(at)) {
                    visit.reach(f, f.readers[at]);
                }
                taken++;
            }
            if (f.done()) {
                queue.poll();
            }
        }
        return taken;
    }

    byte[] encode() {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeByte(VERSION);
            out.writeInt(queue.size());
            for (FanOut f : queue) {
                out.writeInt(f.layer);
                out.writeLong(f.source);
                out.writeLong(f.tag);
                out.writeLong(f.changedAt);
                out.writeInt(f.next);
                out.writeInt(f.delta.length);
                for (float v : f.delta) {
                    out.writeFloat(v);
                }
                out.writeInt(f.readers.length);
                for (long r : f.readers) {
                    out.writeLong(r);
                }
                long[] skipped = f.skipped.toLongArray();
                out.writeInt(skipped.length);
                for (long w : skipped) {
                    out.writeLong(w);
                }
            }
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Adds the fan-outs of {@code encoded} (from {@link #encode}). */
    void restore(byte[] encoded) {
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(encoded));
            byte version = in.readByte();
            if (version != VERSION) {
                throw new IllegalStateException(
                        "fan-outs of version " + version + "; this build reads " + VERSION);
            }
            int n = in.readInt();
            List<FanOut> restored = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                int layer = in.readInt();
                long source = in.readLong();
                long tag = in.readLong();
                long changedAt = in.readLong();
                int next = in.readInt();
                float[] delta = new float[in.readInt()];
                for (int c = 0; c < delta.length; c++) {
                    delta[c] = in.readFloat();
                }
                long[] readers = new long[in.readInt()];
                for (int k = 0; k < readers.length; k++) {
                    readers[k] = in.readLong();
                }
                long[] skipped = new long[in.readInt()];
                for (int k = 0; k < skipped.length; k++) {
                    skipped[k] = in.readLong();
                }
                restored.add(
                        new FanOut(
                                layer,
                                source,
                                tag,
                                delta,
                                readers,
                                BitSet.valueOf(skipped),
                                changedAt,
                                next));
            }
            queue.addAll(restored);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

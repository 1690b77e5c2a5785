package io.gnnstream.operators.schedule;

import com.carrotsearch.hppc.IntIntHashMap;
import com.carrotsearch.hppc.LongHashSet;
import com.carrotsearch.hppc.cursors.LongCursor;
import java.util.Arrays;

/**
 * The scheduler's record of an evaluation round's layer-output writes (docs/design.md,
 * "Evaluation"): each block of a hidden layer's pass is stored by the GraphStore in one record per
 * GraphStore subtask owning some of its destinations, and each record is acknowledged with its part
 * number and the block's number of parts. A block is written once every part has been acknowledged;
 * a repeated acknowledgement (a block computed again after a restore) counts once.
 */
public final class RoundWrites {

    private final LongHashSet acks = new LongHashSet();
    private final IntIntHashMap partsAcked = new IntIntHashMap();
    private final IntIntHashMap partsOf = new IntIntHashMap();

    /** Restores the acknowledgements of {@link #encoded}; null for none. */
    public static RoundWrites of(long[] encoded) {
        RoundWrites w = new RoundWrites();
        if (encoded != null) {
            for (long e : encoded) {
                w.ack((int) (e >>> 32), (int) (e >>> 16) & 0xFFFF, (int) e & 0xFFFF);
            }
        }
        return w;
    }

    /**
     * Part {@code part} of {@code parts} of block {@code roundIndex} was stored; false when it was
     * already known.
     */
    public boolean ack(int roundIndex, int part, int parts) {
        if (part < 0 || parts < 1 || part >= parts || parts > 0xFFFF) {
            throw new IllegalArgumentException(
                    "part " + part + " of " + parts + " of block " + roundIndex);
        }
        if (!acks.add(key(roundIndex, part, parts))) {
            return false;
        }
        partsAcked.addTo(roundIndex, 1);
        partsOf.put(roundIndex, parts);
        return true;
    }

    /** Whether every part of block {@code roundIndex} is stored. */
    public boolean written(int roundIndex) {
        int parts = partsOf.getOrDefault(roundIndex, 0);
        return parts > 0 && partsAcked.get(roundIndex) >= parts;
    }

    /** Whether blocks {@code from..to-1} are all written. */
    public boolean allWritten(int from, int to) {
        for (int i = from; i < to; i++) {
            if (!written(i)) {
                return false;
            }
        }
        return true;
    }

    /** The acknowledgements, for the scheduler's state. */
    public long[] encoded() {
        long[] out = new long[acks.size()];
        int i = 0;
        for (LongCursor c : acks) {
            out[i++] = c.value;
        }
        Arrays.sort(out);
        return out;
    }

    public void clear() {
        acks.clear();
        partsAcked.clear();
        partsOf.clear();
    }

    private static long key(int roundIndex, int part, int parts) {
        return (long) roundIndex << 32 | (long) part << 16 | parts;
    }
}

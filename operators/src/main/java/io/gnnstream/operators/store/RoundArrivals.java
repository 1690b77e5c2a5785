package io.gnnstream.operators.store;

import com.carrotsearch.hppc.LongLongHashMap;
import com.carrotsearch.hppc.cursors.LongLongCursor;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongPredicate;

/**
 * For {@link IncrementalPredictions}: the vertices whose first attributes came while changes are
 * marked (vertex -> time, ms), by the first round whose first read came after them ({@link
 * #NEXT_ROUND} while none has). That round may not cover them, since the scheduler may have frozen
 * its vertices before their announcement reached it, and a vertex computed under the pinned model
 * before the round's first read has no mark left; so at that round's pin, those without its rows
 * are marked. Not thread-safe.
 */
final class RoundArrivals {

    /** The key of the vertices that came after the newest round's first read. */
    static final long NEXT_ROUND = Long.MAX_VALUE;

    private final TreeMap<Long, LongLongHashMap> byRound = new TreeMap<>();

    /** {@code v}'s first attributes came at {@code at} (ms). */
    void arrived(long v, long at) {
        byRound.computeIfAbsent(NEXT_ROUND, k -> new LongLongHashMap()).putIfAbsent(v, at);
    }

    /** The first read of round {@code step}, newer than every round before: it takes the next. */
    void roundBegins(long step) {
        LongLongHashMap next = byRound.remove(NEXT_ROUND);
        if (next == null) {
            return;
        }
        LongLongHashMap into = byRound.get(step);
        if (into == null) {
            byRound.put(step, next);
        } else {
            for (LongLongCursor c : next) {
                into.putIfAbsent(c.key, c.value);
            }
        }
    }

    /**
     * Round {@code step} is pinned: the vertices that came just before its first read (null if
     * none); those of older rounds are forgotten with them.
     */
    LongLongHashMap pinned(long step) {
        LongLongHashMap arrived = byRound.get(step);
        byRound.headMap(step, true).clear();
        return arrived;
    }

    /** The rounds held, ascending ({@link #NEXT_ROUND} last). */
    long[] rounds() {
        return byRound.keySet().stream().mapToLong(Long::longValue).toArray();
    }

    /** The vertices of round {@code round}. */
    long[] vertices(long round) {
        return byRound.get(round).keys().toArray();
    }

    /** The arrival times of {@link #vertices} of round {@code round}, in the same order. */
    long[] times(long round, long[] vertices) {
        LongLongHashMap m = byRound.get(round);
        long[] at = new long[vertices.length];
        for (int i = 0; i < vertices.length; i++) {
            at[i] = m.get(vertices[i]);
        }
        return at;
    }

    /**
     * Takes a snapshot's arrivals of round {@code round}, of the vertices {@code owned} accepts.
     */
    void restore(long round, long[] vertices, long[] at, LongPredicate owned) {
        LongLongHashMap m = byRound.computeIfAbsent(round, k -> new LongLongHashMap());
        for (int i = 0; i < vertices.length; i++) {
            if (owned.test(vertices[i])) {
                m.putIfAbsent(vertices[i], at[i]);
            }
        }
    }

    /** Forgets the rounds up to {@code step} (pinned already). */
    void forgetUpTo(long step) {
        byRound.headMap(step, true).clear();
    }

    /** Vertices held over all rounds. */
    int size() {
        int n = 0;
        for (Map.Entry<Long, LongLongHashMap> e : byRound.entrySet()) {
            n += e.getValue().size();
        }
        return n;
    }
}

package io.gnnstream.tools.formats;

import java.io.IOException;
import java.util.Arrays;

/**
 * The edges of an undirected graph file as the project's directed lines: both directions of every
 * pair, self-loops dropped, distinct, sorted by (source, destination); each edge packed as {@code
 * source << 32 | destination}.
 */
final class UndirectedEdges {

    private long[] pairs = new long[1024];
    private int count;

    /** The pair {@code {a, b}}, in both directions; nothing for a self-loop. */
    void add(long a, long b) {
        if (a == b) {
            return;
        }
        if (count + 2 > pairs.length) {
            pairs = Arrays.copyOf(pairs, pairs.length * 2);
        }
        pairs[count++] = a << 32 | b;
        pairs[count++] = b << 32 | a;
    }

    /** The directed edges added, sorted and distinct. */
    long[] toArray() {
        return Arrays.stream(pairs, 0, count).sorted().distinct().toArray();
    }

    /** Sends {@code edges} (of {@link #toArray}) as {@code src,dst} lines. */
    static void write(long[] edges, LineSink sink) throws IOException {
        for (long e : edges) {
            sink.line((e >>> 32) + "," + (e & 0xffffffffL));
        }
    }
}

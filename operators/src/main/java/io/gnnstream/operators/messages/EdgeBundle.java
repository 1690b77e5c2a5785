package io.gnnstream.operators.messages;

/**
 * Edges in arrival order from the {@code EdgeBundler}: to a GraphStore subtask that owns every
 * destination in it, or to the {@code ReplicaRouter} subtask that owns every source. One record for
 * thousands of edges, where single edges would each pay a record's serialization and hand-over.
 * Keyed by the anchor of {@link #route}, the first partition of that subtask's key-group range.
 */
public class EdgeBundle {

    /** The first partition of the subtask the bundle is for. */
    public int route;

    /** Edge sources. */
    public long[] sources;

    /** Per source, its edge's destination {@code v}, or {@code -v - 1} for a removal. */
    public long[] ops;

    public EdgeBundle() {}

    public EdgeBundle(int route, long[] sources, long[] ops) {
        if (sources.length != ops.length) {
            throw new IllegalArgumentException(
                    sources.length + " sources but " + ops.length + " operations");
        }
        this.route = route;
        this.sources = sources;
        this.ops = ops;
    }

    /** The operation of adding ({@code remove} false) or removing the edge to {@code dst}. */
    public static long op(long dst, boolean remove) {
        return remove ? -dst - 1 : dst;
    }

    /** Whether {@code op} (from {@link #op}) removes its edge. */
    public static boolean isRemoval(long op) {
        return op < 0;
    }

    /** The destination of {@code op} (from {@link #op}). */
    public static long destination(long op) {
        return op < 0 ? -op - 1 : op;
    }

    public int size() {
        return sources.length;
    }
}

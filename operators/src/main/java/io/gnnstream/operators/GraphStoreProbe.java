package io.gnnstream.operators;

/**
 * A test hook on the GraphStore: with a {@link Listener} installed (in the JVM that runs the job's
 * tasks, such as a MiniCluster test), every GraphStore subtask reports the adjacency writes it
 * applies and the neighbours it samples, in the order it does so on its task thread, so a test can
 * check that no removed edge or deleted vertex is sampled after its removal was applied there. None
 * is installed by default, and then the GraphStore reads one volatile field per request and per
 * write.
 */
public final class GraphStoreProbe {

    /** What a GraphStore subtask reports; called on that subtask's task thread. */
    public interface Listener {
        /** {@code sources -> dst} were written to {@code dst}'s in-adjacency. */
        void added(int subtask, long dst, long[] sources);

        /** {@code source -> dst} was removed (whether or not it was there). */
        void removed(int subtask, long dst, long source);

        /** This site applied the deletion of {@code vertex}. */
        void deleted(int subtask, long vertex);

        /** Sampling {@code dst}'s in-neighbours drew {@code neighbours}. */
        void sampled(int subtask, long dst, long[] neighbours);
    }

    private static volatile Listener listener;

    private GraphStoreProbe() {}

    /** Installs {@code l} for every GraphStore in this JVM (null: none). */
    public static void install(Listener l) {
        listener = l;
    }

    static Listener current() {
        return listener;
    }
}

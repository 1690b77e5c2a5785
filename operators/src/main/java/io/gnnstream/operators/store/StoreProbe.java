package io.gnnstream.operators.store;

/**
 * A test's view of a GraphStore: the adjacency writes it applies and the neighbours it samples, in
 * the order it does so, so a test can check that no removed edge or deleted vertex is sampled after
 * its removal was applied there. A {@link GraphStore} without one (null) reports nothing.
 */
public interface StoreProbe {
    /** {@code sources -> dst} were written to {@code dst}'s in-adjacency. */
    void added(int subtask, long dst, long[] sources);

    /** {@code source -> dst} was removed (whether or not it was there). */
    void removed(int subtask, long dst, long source);

    /** This site applied the deletion of {@code vertex}. */
    void deleted(int subtask, long vertex);

    /** Sampling {@code dst}'s in-neighbours drew {@code neighbours}. */
    void sampled(int subtask, long dst, long[] neighbours);
}

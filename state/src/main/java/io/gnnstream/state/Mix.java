package io.gnnstream.state;

/**
 * Deterministic 64-bit mixing used for partitioning, for seeding samplers and for ranking
 * neighbours ({@link EvalNeighbourhood}).
 */
public final class Mix {

    private Mix() {}

    /** SplitMix64 finaliser: a bijection with good avalanche, so nearby ids look unrelated. */
    public static long mix64(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    /** Combines values into one seed, order-sensitive. */
    public static long seed(long... parts) {
        long h = 0x9E3779B97F4A7C15L;
        for (long p : parts) {
            h = mix64(h ^ p) + 0x9E3779B97F4A7C15L;
        }
        return mix64(h);
    }

    /**
     * A fixed hash of the ordered pair {@code (a, b)}: {@link #mix64} of {@code mix64(a) + b *
     * golden ratio}, as SplitMix64 steps. For a fixed {@code a} it is a bijection of {@code b}, so
     * distinct {@code b} never collide.
     */
    public static long pair(long a, long b) {
        return mix64(mix64(a) + b * 0x9E3779B97F4A7C15L);
    }
}

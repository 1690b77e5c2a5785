package io.gnnstream.tools.internal;

/**
 * The SplitMix64 finaliser, used to derive independent per-vertex random values and seeds from one
 * generator seed, so that every vertex can be generated on its own, in any order.
 */
public final class SplitMix {

    private SplitMix() {}

    /** A bijective 64-bit mix with good avalanche (Steele, Lea and Flood, OOPSLA 2014). */
    public static long mix64(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    /** A uniform double in [0, 1) from the mixed value. */
    public static double unit(long z) {
        return (mix64(z) >>> 11) * 0x1.0p-53;
    }
}

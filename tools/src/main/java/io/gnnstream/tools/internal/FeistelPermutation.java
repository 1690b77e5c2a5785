package io.gnnstream.tools.internal;

/**
 * A keyed pseudo-random permutation of {@code [0, n)} with an O(1) inverse: a balanced Feistel
 * network on the smallest even number of bits that covers {@code n}, restricted to {@code [0, n)}
 * by cycle walking (Black and Rogaway, 2002). The domain is at most four times {@code n}, so a call
 * walks fewer than four steps on average. It lets the generator plant classes that look random in
 * the ids while "the k-th vertex of class c" stays computable without any lists.
 */
public final class FeistelPermutation {

    private static final int ROUNDS = 4;

    private final long n;
    private final int halfBits;
    private final long halfMask;
    private final long[] keys = new long[ROUNDS];

    public FeistelPermutation(long n, long seed) {
        if (n < 1) {
            throw new IllegalArgumentException("permutation size must be positive, got " + n);
        }
        int bits = Math.max(2, 64 - Long.numberOfLeadingZeros(n - 1));
        this.n = n;
        this.halfBits = (bits + 1) / 2;
        this.halfMask = (1L << halfBits) - 1;
        for (int i = 0; i < ROUNDS; i++) {
            keys[i] = SplitMix.mix64(seed + 0x9e3779b97f4a7c15L * (i + 1));
        }
    }

    public long size() {
        return n;
    }

    /** The image of {@code x}, for {@code 0 <= x < n}. */
    public long apply(long x) {
        long y = x;
        do {
            y = encrypt(y);
        } while (y >= n);
        return y;
    }

    /** The {@code x} with {@code apply(x) == y}, for {@code 0 <= y < n}. */
    public long inverse(long y) {
        long x = y;
        do {
            x = decrypt(x);
        } while (x >= n);
        return x;
    }

    private long encrypt(long x) {
        long left = x >>> halfBits;
        long right = x & halfMask;
        for (int i = 0; i < ROUNDS; i++) {
            long next = left ^ round(right, i);
            left = right;
            right = next;
        }
        return (left << halfBits) | right;
    }

    private long decrypt(long y) {
        long left = y >>> halfBits;
        long right = y & halfMask;
        for (int i = ROUNDS - 1; i >= 0; i--) {
            long previous = right ^ round(left, i);
            right = left;
            left = previous;
        }
        return (left << halfBits) | right;
    }

    private long round(long half, int i) {
        return SplitMix.mix64(half + keys[i]) & halfMask;
    }
}

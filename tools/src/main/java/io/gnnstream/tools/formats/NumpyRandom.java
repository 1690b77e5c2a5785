package io.gnnstream.tools.formats;

/**
 * numpy's legacy {@code RandomState(seed)}: the MT19937 generator seeded as numpy seeds it and its
 * {@code permutation} of a 1-D array, so that a split drawn here equals one drawn in Python with
 * the same seed.
 */
final class NumpyRandom {

    private static final int N = 624;
    private static final int M = 397;

    private final int[] mt = new int[N];
    private int pos;

    /** {@code numpy.random.RandomState(seed)}; {@code seed} in [0, 2^32). */
    NumpyRandom(long seed) {
        if (seed < 0 || seed > 0xffffffffL) {
            throw new IllegalArgumentException("seed must be between 0 and 2^32 - 1, got " + seed);
        }
        long s = seed;
        for (int i = 0; i < N; i++) {
            mt[i] = (int) s;
            s = (1812433253L * (s ^ (s >>> 30)) + i + 1) & 0xffffffffL;
        }
        pos = N;
    }

    /** The next 32 random bits, as an unsigned value. */
    long nextUint32() {
        if (pos >= N) {
            generate();
        }
        int y = mt[pos++];
        y ^= y >>> 11;
        y ^= (y << 7) & 0x9d2c5680;
        y ^= (y << 15) & 0xefc60000;
        y ^= y >>> 18;
        return y & 0xffffffffL;
    }

    private void generate() {
        for (int i = 0; i < N; i++) {
            int y = (mt[i] & 0x80000000) | (mt[(i + 1) % N] & 0x7fffffff);
            int next = mt[(i + M) % N] ^ (y >>> 1);
            mt[i] = (y & 1) != 0 ? next ^ 0x9908b0df : next;
        }
        pos = 0;
    }

    /** numpy's {@code random_interval(max)}: uniform in [0, max] by masked rejection. */
    long interval(long max) {
        if (max == 0) {
            return 0;
        }
        long mask = max;
        mask |= mask >>> 1;
        mask |= mask >>> 2;
        mask |= mask >>> 4;
        mask |= mask >>> 8;
        mask |= mask >>> 16;
        mask |= mask >>> 32;
        if (max > 0xffffffffL) {
            throw new IllegalArgumentException("interval beyond 32 bits: " + max);
        }
        long value;
        do {
            value = nextUint32() & mask;
        } while (value > max);
        return value;
    }

    /** {@code RandomState.permutation(values)}: a shuffled copy. */
    int[] permutation(int[] values) {
        int[] a = values.clone();
        for (int i = a.length - 1; i >= 1; i--) {
            int j = (int) interval(i);
            int t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
        return a;
    }
}

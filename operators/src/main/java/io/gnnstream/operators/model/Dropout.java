package io.gnnstream.operators.model;

/**
 * Counter-based dropout mask. Whether element {@code e} of a layer's input is kept depends only on
 * (seed, step, layer, e), so replicas and restored models draw identical masks without carrying
 * RNG state, and the backward pass recomputes the mask instead of storing it. Each 64-bit hash
 * yields four 16-bit uniforms, so the drop probability is quantized to 1/65536.
 */
final class Dropout {

    private static final long GOLDEN = 0x9E3779B97F4A7C15L;

    private final long key;
    private final int threshold;
    private final int scaleBits;

    private Dropout(long key, int threshold, float scale) {
        this.key = key;
        this.threshold = threshold;
        this.scaleBits = Float.floatToRawIntBits(scale);
    }

    /** The mask for {@code layer}'s input at {@code step}, or null when {@code p == 0}. */
    static Dropout of(long seed, long step, int layer, double p) {
        if (p == 0.0) {
            return null;
        }
        long key = mix(mix(mix(seed ^ GOLDEN) + step) + layer);
        return new Dropout(key, (int) Math.round(p * 65536.0), (float) (1.0 / (1.0 - p)));
    }

    /** Writes the multiplier (0 or 1/(1-p)) of elements {@code first .. first+len-1} to {@code out}. */
    void fillScales(long first, int len, float[] out) {
        int k = 0;
        long e = first;
        for (; k < len && (e & 3) != 0; k++, e++) {
            out[k] = keep((int) (hash(e) >>> ((e & 3) << 4)));
        }
        for (; k + 4 <= len; k += 4, e += 4) {
            long h = hash(e);
            out[k] = keep((int) h);
            out[k + 1] = keep((int) (h >>> 16));
            out[k + 2] = keep((int) (h >>> 32));
            out[k + 3] = keep((int) (h >>> 48));
        }
        for (; k < len; k++, e++) {
            out[k] = keep((int) (hash(e) >>> ((e & 3) << 4)));
        }
    }

    /** 64 random bits shared by the four elements {@code e & ~3 .. (e & ~3) + 3}. */
    private long hash(long e) {
        return mix(key + (e >>> 2) * GOLDEN);
    }

    /**
     * Scale for a 16-bit uniform in the low bits of {@code bits}. Branch-free on purpose: keep/drop
     * is a coin flip, so a branch would mispredict about half the time.
     */
    private float keep(int bits) {
        int dropMask = ((bits & 0xFFFF) - threshold) >> 31;
        return Float.intBitsToFloat(scaleBits & ~dropMask);
    }

    /** SplitMix64 finalizer: a cheap bijective hash with good avalanche. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}

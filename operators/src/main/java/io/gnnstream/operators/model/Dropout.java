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
    private final float scale;

    private Dropout(long key, int threshold, float scale) {
        this.key = key;
        this.threshold = threshold;
        this.scale = scale;
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
        long h = 0;
        for (int k = 0; k < len; k++) {
            long e = first + k;
            int lane = (int) (e & 3);
            if (k == 0 || lane == 0) {
                h = mix(key + (e >>> 2) * GOLDEN);
            }
            int bits = (int) (h >>> (lane << 4)) & 0xFFFF;
            out[k] = bits >= threshold ? scale : 0f;
        }
    }

    /** SplitMix64 finalizer: a cheap bijective hash with good avalanche. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}

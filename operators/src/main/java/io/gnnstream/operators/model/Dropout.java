package io.gnnstream.operators.model;

/**
 * Counter-based dropout mask. Whether element {@code e} of a layer's input is kept depends only on
 * (seed, step, layer, e), so replicas and restored models draw identical masks without carrying RNG
 * state, the backward pass recomputes the mask instead of storing it, and any thread can compute
 * any part of it.
 *
 * <p>Each element has a 16-bit uniform {@code U} and is dropped iff {@code U < round(p * 65536)},
 * so the drop probability is quantized to 1/65536. The uniforms of the 64 elements of word {@code w
 * = e / 64} are bit-sliced: hash {@code j} of word {@code w} holds bit {@code 15 - j} of all 64
 * uniforms, and the comparison runs from the most significant bit down, stopping as soon as every
 * element is decided or the threshold has no further one bits. For {@code p = 0.5} that is a single
 * 64-bit hash per 64 elements; any {@code p} needs about 8 on average (at most 16).
 */
final class Dropout {

    private static final long GOLDEN = 0x9E3779B97F4A7C15L;

    private final long key;
    private final int threshold;
    private final float scale;

    /** {@code byteScales[8 * b + k]}: the multiplier of bit {@code k} of mask byte {@code b}. */
    private final float[] byteScales = new float[256 * 8];

    private Dropout(long key, int threshold, float scale) {
        this.key = key;
        this.threshold = threshold;
        this.scale = scale;
        for (int b = 0; b < 256; b++) {
            for (int k = 0; k < 8; k++) {
                byteScales[8 * b + k] = ((b >>> k) & 1) != 0 ? scale : 0f;
            }
        }
    }

    /** The mask for {@code layer}'s input at {@code step}, or null when {@code p == 0}. */
    static Dropout of(long seed, long step, int layer, double p) {
        if (p == 0.0) {
            return null;
        }
        long key = mix(mix(mix(seed ^ GOLDEN) + step) + layer);
        return new Dropout(key, (int) Math.round(p * 65536.0), (float) (1.0 / (1.0 - p)));
    }

    /** The key every element's uniform is hashed from. */
    long key() {
        return key;
    }

    /** {@code round(p * 65536)}: an element is dropped iff its 16-bit uniform is below it. */
    int threshold() {
        return threshold;
    }

    /** The multiplier of kept elements, {@code 1 / (1 - p)}. */
    float scale() {
        return scale;
    }

    /** Bit {@code k} is set iff element {@code 64 * word + k} is kept. */
    long keepBits(long word) {
        return keepBits(key, threshold, word);
    }

    /** The keep bits of word {@code word} of the mask with {@code key} and {@code threshold}. */
    static long keepBits(long key, int threshold, long word) {
        if (threshold >= 65536) {
            return 0L;
        }
        long base = key + word * (16 * GOLDEN);
        long undecided = -1L;
        long kept = 0L;
        for (int bit = 15; bit >= 0; bit--) {
            long u = mix(base + (15 - bit) * GOLDEN);
            if (((threshold >>> bit) & 1) != 0) {
                undecided &= u; // U has 0 where the threshold has 1: U < threshold, dropped
            } else {
                kept |= u & undecided; // U has 1 where the threshold has 0: U > threshold, kept
                undecided &= ~u;
            }
            if (undecided == 0L || (threshold & ((1 << bit) - 1)) == 0) {
                break; // the rest of the threshold is zero: the undecided are >= it, kept
            }
        }
        return kept | undecided;
    }

    /**
     * Writes the multiplier (0 or 1/(1-p)) of elements {@code first .. first+len-1} to {@code out}.
     */
    void fillScales(long first, int len, float[] out) {
        fillScales(first, len, out, 0);
    }

    /** As {@link #fillScales(long, int, float[])}, writing from {@code out[offset]}. */
    void fillScales(long first, int len, float[] out, int offset) {
        int k = 0;
        long e = first;
        long word = e >>> 6;
        long bits = keepBits(word);
        for (; k < len && (e & 7) != 0; k++, e++) {
            out[offset + k] = single(bits, e);
        }
        for (; k + 8 <= len; k += 8, e += 8) {
            if ((e >>> 6) != word) {
                word = e >>> 6;
                bits = keepBits(word);
            }
            int b = 8 * ((int) (bits >>> (e & 63)) & 0xFF);
            int o = offset + k;
            out[o] = byteScales[b];
            out[o + 1] = byteScales[b + 1];
            out[o + 2] = byteScales[b + 2];
            out[o + 3] = byteScales[b + 3];
            out[o + 4] = byteScales[b + 4];
            out[o + 5] = byteScales[b + 5];
            out[o + 6] = byteScales[b + 6];
            out[o + 7] = byteScales[b + 7];
        }
        for (; k < len; k++, e++) {
            if ((e >>> 6) != word) {
                word = e >>> 6;
                bits = keepBits(word);
            }
            out[offset + k] = single(bits, e);
        }
    }

    /**
     * Multiplier of element {@code e} from its word's keep bits, branch-free (keep/drop is a coin
     * flip).
     */
    private float single(long bits, long e) {
        int keep = -(int) ((bits >>> (e & 63)) & 1L);
        return Float.intBitsToFloat(Float.floatToRawIntBits(scale) & keep);
    }

    /** SplitMix64 finalizer: a cheap bijective hash with good avalanche. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}

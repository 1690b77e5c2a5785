package io.gnnstream.state;

import org.apache.flink.util.MathUtils;

/**
 * Hash codes that place logical partition {@code p} into Flink key group {@code p mod
 * maxParallelism}.
 *
 * <p>Flink assigns a key to key group {@code murmurHash(key.hashCode()) % maxParallelism}. For each
 * partition we pick the smallest non-negative int whose murmur hash is {@code p} modulo {@link
 * #MAX_PARTITIONS}; because every admissible max parallelism is a power of two dividing {@link
 * #MAX_PARTITIONS}, partition {@code p} then lands in key group {@code p mod maxParallelism} for
 * all of them. A whole partition thus lives in one key group, and with {@code P == maxParallelism}
 * partitions are spread over subtasks exactly like key groups.
 */
public final class KeyGroupAnchors {

    /** Flink's upper bound for max parallelism; also the upper bound for logical partitions. */
    public static final int MAX_PARTITIONS = 1 << 15;

    private static final int[] HASHES = computeHashes();

    private KeyGroupAnchors() {}

    /** The {@code hashCode()} every key of partition {@code partition} must return. */
    public static int hashFor(int partition) {
        return HASHES[partition];
    }

    /** Whether a max parallelism keeps the partition-to-key-group mapping exact. */
    public static boolean isSupportedMaxParallelism(int maxParallelism) {
        return maxParallelism > 0
                && maxParallelism <= MAX_PARTITIONS
                && Integer.bitCount(maxParallelism) == 1;
    }

    private static int[] computeHashes() {
        int[] hashes = new int[MAX_PARTITIONS];
        boolean[] found = new boolean[MAX_PARTITIONS];
        int missing = MAX_PARTITIONS;
        for (int code = 0; missing > 0; code++) {
            int slot = MathUtils.murmurHash(code) & (MAX_PARTITIONS - 1);
            if (!found[slot]) {
                found[slot] = true;
                hashes[slot] = code;
                missing--;
            }
        }
        return hashes;
    }
}

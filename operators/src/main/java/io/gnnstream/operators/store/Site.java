package io.gnnstream.operators.store;

import java.util.Arrays;

/**
 * A GraphStore subtask's place among the sites: its index, the parallelism, the logical partitions
 * it owns and the partition whose key holds its halo replicas (the first of its key-group range).
 * The operator derives it from Flink's key-group assignment.
 */
public final class Site {

    private final int subtask;
    private final int parallelism;
    private final boolean[] owned;
    private final int holder;

    /**
     * Subtask {@code subtask} of {@code parallelism}, owning the partitions {@code p} where {@code
     * owned[p]}, its replicas under partition {@code holder}.
     */
    public Site(int subtask, int parallelism, boolean[] owned, int holder) {
        if (subtask < 0 || subtask >= parallelism || holder < 0 || holder >= owned.length) {
            throw new IllegalArgumentException(
                    "subtask "
                            + subtask
                            + " of "
                            + parallelism
                            + " holding its replicas in partition "
                            + holder
                            + " of "
                            + owned.length);
        }
        this.subtask = subtask;
        this.parallelism = parallelism;
        this.owned = owned.clone();
        this.holder = holder;
    }

    /** The only subtask, owning all {@code partitions}. */
    public static Site whole(int partitions) {
        boolean[] all = new boolean[partitions];
        Arrays.fill(all, true);
        return new Site(0, 1, all, 0);
    }

    public int subtask() {
        return subtask;
    }

    public int parallelism() {
        return parallelism;
    }

    /** The partition whose key holds this site's halo replicas. */
    public int holder() {
        return holder;
    }

    /** Whether this site owns {@code partition}. */
    public boolean owns(int partition) {
        return owned[partition];
    }

    /** Per partition, whether this site owns it (shared, not to be changed). */
    boolean[] owned() {
        return owned;
    }
}

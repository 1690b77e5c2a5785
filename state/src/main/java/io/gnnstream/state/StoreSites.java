package io.gnnstream.state;

import java.io.Serializable;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;

/**
 * The GraphStore's sites at one parallelism: which subtask (site) owns each logical partition, and
 * the partition whose key holds a site's halo replicas (the first of its key-group range; logical
 * partition {@code p} is key group {@code p}). See docs/design.md, "Halo replicas".
 */
public final class StoreSites implements Serializable {

    private static final long serialVersionUID = 1L;

    private final int parallelism;
    private final int[] siteOfPartition;
    private final int[] holderOfSite;

    public StoreSites(int partitions, int parallelism) {
        if (parallelism < 1 || parallelism > partitions) {
            throw new IllegalArgumentException(
                    "need 1 <= parallelism <= " + partitions + ", got " + parallelism);
        }
        this.parallelism = parallelism;
        this.siteOfPartition = new int[partitions];
        for (int p = 0; p < partitions; p++) {
            siteOfPartition[p] =
                    KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup(
                            partitions, parallelism, p);
        }
        this.holderOfSite = new int[parallelism];
        for (int s = 0; s < parallelism; s++) {
            holderOfSite[s] =
                    KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
                                    partitions, parallelism, s)
                            .getStartKeyGroup();
        }
    }

    /** The GraphStore parallelism the sites are of. */
    public int parallelism() {
        return parallelism;
    }

    /** The subtask that owns {@code partition}. */
    public int siteOf(int partition) {
        return siteOfPartition[partition];
    }

    /** The partition whose key holds the halo replicas of the site that owns {@code partition}. */
    public int holderOf(int partition) {
        return holderOfSite[siteOfPartition[partition]];
    }

    /**
     * The first partition of {@code site}'s range: the key of its halo replicas and its requests'
     * route.
     */
    public int holderOfSite(int site) {
        return holderOfSite[site];
    }

    /**
     * Whether restored halo replicas were made for sites other than those at {@code parallelism}:
     * the parallelisms recorded in union state (one per old subtask) name another one, or none is
     * recorded (state from before the record, or replicas not made yet).
     */
    public static boolean madeForAnother(Iterable<Integer> recorded, int parallelism) {
        boolean any = false;
        for (int p : recorded) {
            if (p != parallelism) {
                return true;
            }
            any = true;
        }
        return !any;
    }
}

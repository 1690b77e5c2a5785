package io.gnnstream.operators.store;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * A GraphStore subtask's {@link FeatureCacheDirectory} of each trainer rank's feature cache (its
 * share of the slots), made when the rank is first sent a part; heap only. See docs/design.md,
 * "Trainer feature cache".
 */
final class TrainerCaches {

    private final Map<Integer, FeatureCacheDirectory> byTrainer = new HashMap<>();
    private final Function<Integer, FeatureCacheDirectory> share;

    /** Directories of this {@code site}'s share of trainer caches of {@code slots} slots. */
    TrainerCaches(int slots, Site site) {
        this.share =
                trainer -> FeatureCacheDirectory.shareOf(slots, site.parallelism(), site.subtask());
    }

    /** This subtask's directory of {@code trainer}'s cache; null when the caches are off. */
    FeatureCacheDirectory of(int trainer) {
        return byTrainer.computeIfAbsent(trainer, share);
    }

    /** Drops {@code vertex} from every directory: its features changed or left this site. */
    void forget(long vertex) {
        for (FeatureCacheDirectory cache : byTrainer.values()) {
            cache.invalidate(vertex);
        }
    }
}

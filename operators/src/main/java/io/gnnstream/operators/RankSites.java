package io.gnnstream.operators;

import io.gnnstream.state.StoreSites;
import io.gnnstream.state.VertexPartitioner;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;

/**
 * Local batches: which trainer rank a seed belongs to, and which batch ids the assembler subtask of
 * a rank's own index owns (docs/design.md, "Local batches").
 *
 * <p>A <em>site</em> is the subtasks of one index: GraphStore subtask {@code i}, assembler subtask
 * {@code i} and trainer rank {@code i}, which Flink's slot sharing places in one slot. GraphStore
 * subtask {@code s} belongs to rank {@code s mod T}; a seed belongs to the rank of the subtask that
 * owns its partition (logical partition {@code p} is key group {@code p}). A step's seeds are cut
 * by owner instead of into equal slices, so a rank samples, reads features and trains where its
 * seeds live; the step's seeds, and so the summed gradient, are the same.
 *
 * <p>Needs at least as many GraphStore subtasks as ranks ({@link #applies}); otherwise some ranks
 * own no seeds, and the scheduler cuts equal slices as without local batches.
 */
public final class RankSites implements Serializable {

    private static final long serialVersionUID = 1L;

    private final VertexPartitioner partitioner;
    private final JobScale scale;

    /** Per logical partition: the rank it belongs to. */
    private final int[] rankOfPartition;

    /** The sites of {@code scale}'s GraphStore and ranks; see {@link JobScale#rankSites}. */
    public RankSites(VertexPartitioner partitioner, JobScale scale) {
        this.partitioner = scale.check(partitioner);
        this.scale = scale;
        this.rankOfPartition = new int[scale.partitions()];
        StoreSites sites = scale.storeSites();
        for (int p = 0; p < rankOfPartition.length; p++) {
            rankOfPartition[p] = sites.siteOf(p) % scale.trainers();
        }
    }

    /** The scale the sites are of. */
    public JobScale scale() {
        return scale;
    }

    /** Whether every rank has a GraphStore subtask of its own index. */
    public boolean applies() {
        return scale.trainers() <= scale.parallelism();
    }

    /** The rank that {@code seed} belongs to. */
    public int rankOf(long seed) {
        return rankOfPartition[partitioner.partition(seed)];
    }

    /**
     * Cuts {@code seeds} (a step's, in epoch order; at least one per rank) by owner, keeping their
     * order. A rank that owns none of them takes the last seed of the largest slice (the lowest
     * rank of those), so that every rank has a batch to compute its share of the step's gradient
     * from.
     */
    public long[][] split(long[] seeds) {
        int trainers = scale.trainers();
        if (seeds.length < trainers) {
            throw new IllegalArgumentException(seeds.length + " seeds for " + trainers + " ranks");
        }
        List<List<Long>> slices = new ArrayList<>();
        for (int r = 0; r < trainers; r++) {
            slices.add(new ArrayList<>());
        }
        for (long seed : seeds) {
            slices.get(rankOf(seed)).add(seed);
        }
        for (int r = 0; r < trainers; r++) {
            if (slices.get(r).isEmpty()) {
                int largest = 0;
                for (int q = 1; q < trainers; q++) {
                    if (slices.get(q).size() > slices.get(largest).size()) {
                        largest = q;
                    }
                }
                List<Long> from = slices.get(largest);
                slices.get(r).add(from.remove(from.size() - 1));
            }
        }
        long[][] out = new long[trainers][];
        for (int r = 0; r < trainers; r++) {
            out[r] = slices.get(r).stream().mapToLong(Long::longValue).toArray();
        }
        return out;
    }

    /**
     * The smallest batch id from {@code from} on that the assembler subtask of {@code rank}'s index
     * owns (the assembler is keyed by batch id, with max parallelism the partition count).
     */
    public long batchIdFor(int rank, long from) {
        int subtask = rank % scale.parallelism();
        long id = from;
        while (KeyGroupRangeAssignment.assignKeyToParallelOperator(
                        id, scale.partitions(), scale.parallelism())
                != subtask) {
            id++;
        }
        return id;
    }

    @Override
    public String toString() {
        return "RankSites("
                + scale.parallelism()
                + " GraphStore subtasks, "
                + scale.trainers()
                + " ranks)";
    }
}

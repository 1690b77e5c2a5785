package io.gnnstream.operators;

import io.gnnstream.state.StoreSites;
import io.gnnstream.state.VertexPartitioner;
import java.io.Serializable;

/**
 * How many of each the job runs (docs/design.md, "Dataflow"): {@code partitions} logical partitions
 * P (the max parallelism), the GraphStore and the assembler at {@code parallelism} p, {@code
 * trainers} ranks T and {@code reducers} reducer subtasks R. Read once from the options and handed
 * to the operators and configs that need part of it; a restore may change all but P. Immutable.
 * (Not the ranks' <em>layout</em> of the glossary, {@code RankLayout}.)
 */
public record JobScale(int partitions, int parallelism, int trainers, int reducers)
        implements Serializable {

    public JobScale {
        if (parallelism < 1 || parallelism > partitions) {
            throw new IllegalArgumentException(
                    "need 1 <= parallelism <= partitions (" + partitions + "), got " + parallelism);
        }
        if (trainers < 1 || reducers < 1 || trainers > partitions || reducers > partitions) {
            throw new IllegalArgumentException(
                    "need 1 <= trainers, reducers <= partitions ("
                            + partitions
                            + "), got "
                            + trainers
                            + " and "
                            + reducers);
        }
    }

    /**
     * {@code trainers} ranks and as many reducers, over as many partitions and a single GraphStore
     * subtask: for an operator that only counts ranks.
     */
    public static JobScale ranks(int trainers) {
        return new JobScale(Math.max(trainers, 1), 1, trainers, trainers);
    }

    /**
     * A GraphStore of {@code parallelism} subtasks over {@code partitions}, with one rank and one
     * reducer: for the graph side alone (ingestion benchmarks and tests).
     */
    public static JobScale store(int partitions, int parallelism) {
        return new JobScale(partitions, parallelism, 1, 1);
    }

    /** At another trainer count (a restore at T'), with the same partitions and reducers. */
    public JobScale withTrainers(int count) {
        return new JobScale(partitions, parallelism, count, reducers);
    }

    /** Which GraphStore subtask (site) owns each logical partition at this parallelism. */
    public StoreSites storeSites() {
        return new StoreSites(partitions, parallelism);
    }

    /** Which rank a seed belongs to under local batches (docs/design.md, "Local batches"). */
    public RankSites rankSites(VertexPartitioner partitioner) {
        return new RankSites(partitioner, this);
    }

    /** Throws unless {@code partitioner} assigns vertices to this scale's partitions. */
    public VertexPartitioner check(VertexPartitioner partitioner) {
        if (partitioner.numPartitions() != partitions) {
            throw new IllegalArgumentException(
                    "the vertex assignment has "
                            + partitioner.numPartitions()
                            + " partitions, the scale "
                            + partitions);
        }
        return partitioner;
    }
}

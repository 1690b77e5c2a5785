package io.gnnstream.operators.store;

/**
 * What a GraphStore counted since it started, as plain numbers; the operator shows them as Flink
 * metrics of the same names.
 */
public final class StoreCounters {

    long edgesIngested;
    long cutEdgesIngested;
    long nodesIngested;
    long verticesDeleted;
    long sampleRequests;
    long malformedRequests;
    long staleLayerOutputs;
    long supersededLayerOutputs;

    /** Edge additions and removals taken. */
    public long edgesIngested() {
        return edgesIngested;
    }

    /**
     * Edge additions whose source lives in another partition: over {@link #edgesIngested}, the live
     * assignment's edge cut.
     */
    public long cutEdgesIngested() {
        return cutEdgesIngested;
    }

    /** Node records written. */
    public long nodesIngested() {
        return nodesIngested;
    }

    /** Deletions of vertices this subtask owns. */
    public long verticesDeleted() {
        return verticesDeleted;
    }

    /** Sample requests answered. */
    public long sampleRequests() {
        return sampleRequests;
    }

    /** Sample requests dropped as malformed (feature vertices without their rows). */
    public long malformedRequests() {
        return malformedRequests;
    }

    /** Layer outputs for vertices of other subtasks, written before a rescale and skipped. */
    public long staleLayerOutputs() {
        return staleLayerOutputs;
    }

    /** Row records of an older round than one whose rows of that layer were stored, dropped. */
    public long supersededLayerOutputs() {
        return supersededLayerOutputs;
    }
}

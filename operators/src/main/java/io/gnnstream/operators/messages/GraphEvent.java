package io.gnnstream.operators.messages;

import io.gnnstream.state.records.Split;

/**
 * What the GraphStore tells the SeedScheduler: a vertex entered (or left) a split or was deleted,
 * or the current size of one partition. Sizes are absolute, so a repeated or lost-and-resent event
 * is harmless.
 */
public class GraphEvent {

    /** What an event reports. */
    public enum Kind {
        /** A vertex entered (or left) a split: {@link #vertex}, {@link #split}. */
        SEED,
        /**
         * The current size of one partition: {@link #vertices}, {@link #edges}, {@link
         * #edgesIngested}, {@link #replicas}, {@link #cutEdgesIngested}.
         */
        STATS,
        /**
         * The GraphStore stored {@link LayerOutputs}: part {@link #part} of {@link #parts} of block
         * {@link #roundIndex} of the round of step {@link #step}, model layer {@link #layer}.
         */
        LAYER_WRITTEN,
        /** Vertex {@link #vertex} was deleted: it leaves every split. */
        DELETED
    }

    public Kind kind;
    public int partition;
    public long vertex;
    public Split split;
    public long vertices;
    public long edges;
    public long edgesIngested;

    /** Halo replicas the partition holds. */
    public long replicas;

    /**
     * Added edges into the partition whose source lives in another partition (of {@link
     * #edgesIngested}).
     */
    public long cutEdgesIngested;

    /** {@link Kind#LAYER_WRITTEN}: which block's outputs were stored. */
    public long step;

    public int layer;
    public int roundIndex;
    public int part;
    public int parts;

    public GraphEvent() {}

    public static GraphEvent seed(int partition, long vertex, Split split) {
        GraphEvent e = new GraphEvent();
        e.kind = Kind.SEED;
        e.partition = partition;
        e.vertex = vertex;
        e.split = split;
        return e;
    }

    /** The deletion of {@code vertex}, announced by the subtask owning it. */
    public static GraphEvent deleted(int partition, long vertex) {
        GraphEvent e = new GraphEvent();
        e.kind = Kind.DELETED;
        e.partition = partition;
        e.vertex = vertex;
        e.split = Split.NONE;
        return e;
    }

    /** The acknowledgement of stored {@link LayerOutputs}. */
    public static GraphEvent layerWritten(LayerOutputs outputs) {
        GraphEvent e = new GraphEvent();
        e.kind = Kind.LAYER_WRITTEN;
        e.partition = outputs.route;
        e.split = Split.NONE;
        e.step = outputs.step;
        e.layer = outputs.layer;
        e.roundIndex = outputs.roundIndex;
        e.part = outputs.part;
        e.parts = outputs.parts;
        return e;
    }

    public static GraphEvent stats(int partition, long vertices, long edges, long edgesIngested) {
        GraphEvent e = new GraphEvent();
        e.kind = Kind.STATS;
        e.partition = partition;
        e.split = Split.NONE;
        e.vertices = vertices;
        e.edges = edges;
        e.edgesIngested = edgesIngested;
        return e;
    }

    /**
     * As above, with the partition's halo replicas and its ingested edges from other partitions.
     */
    public static GraphEvent stats(
            int partition,
            long vertices,
            long edges,
            long edgesIngested,
            long replicas,
            long cutEdgesIngested) {
        GraphEvent e = stats(partition, vertices, edges, edgesIngested);
        e.replicas = replicas;
        e.cutEdgesIngested = cutEdgesIngested;
        return e;
    }
}

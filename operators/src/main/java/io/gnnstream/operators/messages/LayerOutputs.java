package io.gnnstream.operators.messages;

/**
 * A trainer rank's outputs of one model layer for destinations of an inference block that one
 * GraphStore subtask owns (named by its {@link #route}, the lowest partition it owns, whose anchor
 * keys the record): the GraphStore keeps each row in its layer-output store, tagged with the
 * round's {@link #step}, and acknowledges the record to the scheduler (a {@link GraphEvent} of kind
 * {@link GraphEvent.Kind#LAYER_WRITTEN}) naming the block ({@link #roundIndex}) and this record's
 * {@link #part} of its {@link #parts}. Travels on the sampling loop's feedback edge, which is in no
 * checkpoint: the scheduler issues a block whose parts are not all acknowledged again after a
 * restore (docs/design.md, "Evaluation").
 */
public class LayerOutputs {

    public long step;

    /** The model layer (1-based) whose outputs these are. */
    public int layer;

    /** The block's index in its round. */
    public int roundIndex;

    /** This record's number among the block's records, and their count. */
    public int part;

    public int parts;
    public int route;
    public long[] vertices;

    /** Outputs per vertex. */
    public int dim;

    /** {@code vertices.length x dim} outputs, row-major. */
    public float[] values;

    /**
     * The job incarnation (its id and attempt) that sent the record; 0: unstamped. A GraphStore
     * keeps features' sums ({@link #FEATURE_SUMS}) of its own incarnation only, since a record of
     * an earlier one, read again from the topic after a restore, may hold changes the restored
     * graph is yet to replay; it takes other records by its lineage ({@code store.Lineage}).
     */
    public long incarnation;

    /** The id of the last checkpoint the sender had snapshotted or restored from when it sent. */
    public long checkpoint;

    public LayerOutputs() {}

    /** Floats of parameters per pin record: as the rows' records, well under a network buffer. */
    public static final int PIN_FLOATS = 4096;

    /**
     * The pin records of rank {@code rank} of {@code trainers} for the round of {@code step}, one
     * set per GraphStore route (docs/design.md, "Incremental predictions"): {@link #layer} 0, the
     * rank in {@link #roundIndex}, the trainer count in {@link #dim}; rank 0's carry {@code params}
     * in chunks ({@link #part} of {@link #parts}, {@link #vertices} = offset and total length),
     * another rank's are one record without values. Null {@code params}: none.
     */
    public static java.util.List<LayerOutputs> pins(
            long step, int rank, int trainers, float[] params, int[] routes) {
        java.util.List<LayerOutputs> out = new java.util.ArrayList<>();
        int total = params == null ? 0 : params.length;
        int parts = Math.max(1, (total + PIN_FLOATS - 1) / PIN_FLOATS);
        for (int route : routes) {
            for (int part = 0; part < parts; part++) {
                int from = part * PIN_FLOATS;
                int to = Math.min(total, from + PIN_FLOATS);
                LayerOutputs o = new LayerOutputs();
                o.step = step;
                o.layer = 0;
                o.roundIndex = rank;
                o.dim = trainers;
                o.part = part;
                o.parts = parts;
                o.route = route;
                o.vertices = new long[] {from, total};
                o.values =
                        params == null
                                ? new float[0]
                                : java.util.Arrays.copyOfRange(params, from, to);
                out.add(o);
            }
        }
        return out;
    }

    /** Whether this is a pin record ({@link #pins}) rather than a layer's rows. */
    public boolean isPin() {
        return layer == 0;
    }

    /**
     * The {@link #layer} of a record of features' sums: per destination of a first-layer block, the
     * sum of its neighbours' features and, last, their count ({@link #dim} = features + 1), which
     * incremental predictions keep (docs/design.md, "Incremental predictions").
     */
    public static final int FEATURE_SUMS = -1;

    /** Whether this record holds features' sums ({@link #FEATURE_SUMS}) rather than rows. */
    public boolean isFeatureSums() {
        return layer == FEATURE_SUMS;
    }

    @Override
    public String toString() {
        return "LayerOutputs(step="
                + step
                + ", layer="
                + layer
                + ", block="
                + roundIndex
                + ", part="
                + part
                + "/"
                + parts
                + ", route="
                + route
                + ", rows="
                + (vertices == null ? 0 : vertices.length)
                + ")";
    }
}

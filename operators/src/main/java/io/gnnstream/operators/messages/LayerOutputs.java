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

    public LayerOutputs() {}

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

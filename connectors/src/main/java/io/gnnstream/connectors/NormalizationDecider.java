package io.gnnstream.connectors;

import io.gnnstream.state.records.NodeUpdate;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * {@code --normalize-features auto} on a node topic (no Flink): holds the node records back until
 * the first {@code decideAfter} feature rows have arrived (or {@link #decideNow} is called),
 * decides once from them ({@link RowNormalization#decide}: no signed row among them, divide every
 * row), and then hands out every record, the held ones first and in their order, with that one
 * decision applied. Records before and after the decision are treated alike; a later signed row
 * does not change it.
 */
public final class NormalizationDecider {

    private final int decideAfter;
    private RowNormalization decision;
    private final List<NodeUpdate> held = new ArrayList<>();
    private int rows;
    private boolean signed;

    /** Decides after {@code decideAfter} (>= 1) feature rows. */
    public NormalizationDecider(int decideAfter) {
        if (decideAfter < 1) {
            throw new IllegalArgumentException("decideAfter must be >= 1, got " + decideAfter);
        }
        this.decideAfter = decideAfter;
    }

    /**
     * A decider restored with its {@code decision} (null: undecided) and its {@code held} records.
     */
    public static NormalizationDecider restore(
            int decideAfter, RowNormalization decision, List<NodeUpdate> held) {
        NormalizationDecider d = new NormalizationDecider(decideAfter);
        if (decision != null && decision == RowNormalization.AUTO) {
            throw new IllegalArgumentException("a decision is TRUE or FALSE, not AUTO");
        }
        d.decision = decision;
        for (NodeUpdate n : held) {
            d.hold(n);
        }
        return d;
    }

    /**
     * Takes {@code node}; returns the records to pass on now, normalised as decided (empty while
     * undecided; the held records and {@code node} when it completes the first {@code decideAfter}
     * rows).
     */
    public List<NodeUpdate> accept(NodeUpdate node) {
        Objects.requireNonNull(node, "node");
        if (decision != null) {
            apply(node);
            return List.of(node);
        }
        hold(node);
        return rows >= decideAfter ? decideNow() : List.of();
    }

    /**
     * Decides from the rows held so far (none: rows are divided, as for a dataset without signed
     * rows) if undecided, and returns the held records, normalised; empty if decided before.
     */
    public List<NodeUpdate> decideNow() {
        if (decision != null) {
            return List.of();
        }
        decision = RowNormalization.decide(signed);
        List<NodeUpdate> out = new ArrayList<>(held);
        held.clear();
        for (NodeUpdate n : out) {
            apply(n);
        }
        return out;
    }

    /** {@link RowNormalization#TRUE} or {@link RowNormalization#FALSE}; null while undecided. */
    public RowNormalization decision() {
        return decision;
    }

    /** The records held until the decision, in arrival order (empty once decided). */
    public List<NodeUpdate> held() {
        return List.copyOf(held);
    }

    private void hold(NodeUpdate node) {
        held.add(node);
        if (!node.delete && node.features != null) {
            rows++;
            signed |= RowNormalization.signed(node.features);
        }
    }

    private void apply(NodeUpdate node) {
        if (!node.delete && node.features != null) {
            decision.apply(node.features);
        }
    }
}

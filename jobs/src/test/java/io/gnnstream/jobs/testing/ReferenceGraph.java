package io.gnnstream.jobs.testing;

import io.gnnstream.connectors.EdgeFormat;
import io.gnnstream.connectors.InvalidRecordException;
import io.gnnstream.connectors.NodeFormat;
import io.gnnstream.state.VertexRecord;
import io.gnnstream.state.records.EdgeUpdate;
import io.gnnstream.state.records.NodeUpdate;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;

/**
 * The graph after a stream, as the README's input formats define it for a stream whose records of
 * one vertex (its node records, and the edges into and out of it) are applied in the order given:
 * an edge addition adds {@code src -> dst} (once), a removal removes it, a node record replaces the
 * vertex's attributes, and a deletion removes the vertex's attributes and every edge into or out of
 * it present then. Records go through the job's own parsers, so stored records compare byte for
 * byte.
 */
public final class ReferenceGraph {

    private final NodeFormat nodes;
    private final EdgeFormat edges = new EdgeFormat();
    final Map<Long, byte[]> records = new HashMap<>();
    final Map<Long, TreeSet<Long>> in = new HashMap<>();

    public ReferenceGraph(NodeFormat nodes) {
        this.nodes = nodes;
    }

    /** Applies a line of the nodes topic. */
    public void node(String line) throws InvalidRecordException {
        NodeUpdate node = nodes.parse(line);
        if (!node.delete) {
            records.put(node.id, VertexRecord.encode(node));
            return;
        }
        long v = node.id;
        records.remove(v);
        in.remove(v);
        in.values().forEach(sources -> sources.remove(v));
        in.values().removeIf(TreeSet::isEmpty);
    }

    /** Applies a line of the edges topic. */
    public void edge(String line) throws InvalidRecordException {
        EdgeUpdate e = edges.parse(line);
        if (e.remove) {
            TreeSet<Long> sources = in.get(e.dst);
            if (sources != null && sources.remove(e.src) && sources.isEmpty()) {
                in.remove(e.dst);
            }
        } else {
            in.computeIfAbsent(e.dst, k -> new TreeSet<>()).add(e.src);
        }
    }

    public int vertices() {
        return records.size();
    }

    public long edges() {
        return in.values().stream().mapToLong(TreeSet::size).sum();
    }

    /** Whether {@code v} has attributes. */
    public boolean has(long v) {
        return records.containsKey(v);
    }
}

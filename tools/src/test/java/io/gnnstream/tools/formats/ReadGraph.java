package io.gnnstream.tools.formats;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gnnstream.connectors.EdgeFormat;
import io.gnnstream.connectors.NodeFormat;
import io.gnnstream.connectors.RowNormalization;
import io.gnnstream.state.records.EdgeUpdate;
import io.gnnstream.state.records.NodeUpdate;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.LongPredicate;

/** What a reader produced, parsed with the job's formats: nodes by id and the set of edges. */
record ReadGraph(Map<Long, NodeUpdate> nodes, Set<String> edges, long edgeLines) {

    static final Path CORA = Path.of("..", "data", "cora");
    static final Path RESOURCES = Path.of("src", "test", "resources", "formats");

    static ReadGraph read(Path dir, FormatOptions options) throws Exception {
        return read(DatasetReaders.open(dir, options), id -> true);
    }

    /** The nodes {@code keep} accepts and the edges between them. */
    static ReadGraph read(DatasetReader reader, LongPredicate keep) throws Exception {
        Map<Long, NodeUpdate> nodes = new LinkedHashMap<>();
        NodeFormat[] format = {null};
        reader.nodes(
                line -> {
                    if (line.isBlank()) {
                        return;
                    }
                    try {
                        if (format[0] == null) {
                            format[0] =
                                    new NodeFormat(
                                            NodeFormat.featureCountOf(line),
                                            1000,
                                            RowNormalization.FALSE);
                        }
                        NodeUpdate n = format[0].parse(line);
                        if (keep.test(n.id)) {
                            nodes.put(n.id, n);
                        }
                    } catch (Exception e) {
                        throw new AssertionError(line, e);
                    }
                });
        Set<String> edges = new TreeSet<>();
        long[] lines = {0};
        EdgeFormat ef = new EdgeFormat();
        reader.edges(
                line -> {
                    try {
                        EdgeUpdate e = ef.parse(line);
                        if (keep.test(e.src) && keep.test(e.dst)) {
                            edges.add(e.src + "," + e.dst);
                            lines[0]++;
                        }
                    } catch (Exception e) {
                        throw new AssertionError(line, e);
                    }
                });
        return new ReadGraph(nodes, edges, lines[0]);
    }

    /** Same ids in the same order, labels, splits, features and edge set. */
    void assertSameAs(ReadGraph expected) {
        assertEquals(expected.nodes.keySet().stream().toList(), nodes.keySet().stream().toList());
        for (NodeUpdate e : expected.nodes.values()) {
            NodeUpdate a = nodes.get(e.id);
            assertEquals(e.label, a.label, "label of " + e.id);
            assertEquals(e.split, a.split, "split of " + e.id);
            assertArrayEquals(e.features, a.features, "features of " + e.id);
        }
        assertEquals(expected.edges, edges);
    }
}

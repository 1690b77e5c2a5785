package io.gnnstream.tools;

import io.gnnstream.connectors.EdgeFormat;
import io.gnnstream.connectors.InvalidRecordException;
import io.gnnstream.connectors.NodeFormat;
import io.gnnstream.connectors.RecordFormat;
import io.gnnstream.connectors.RowNormalization;
import io.gnnstream.state.records.NodeUpdate;
import io.gnnstream.state.records.Split;
import io.gnnstream.tools.formats.DatasetFormat;
import io.gnnstream.tools.formats.DatasetReader;
import io.gnnstream.tools.formats.DatasetReaders;
import io.gnnstream.tools.formats.FormatOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * Statistics of a dataset folder ({@value #NODES_FILE} + {@value #EDGES_FILE}, as in {@code
 * data/cora/README.md}, or another {@link DatasetFormat} read as those lines), read line by line so
 * that graphs larger than memory can be checked. Every line is validated with the same formats the
 * job uses, so a folder that scans cleanly produces no dead letters.
 */
public final class DatasetInfo {

    public static final String NODES_FILE = "nodes.jsonl";
    public static final String EDGES_FILE = "edges.csv";

    private final Path dir;
    private final long nodes;
    private final long edges;
    private final int featureDim;
    private final int numClasses;
    private final long labelledNodes;
    private final Map<Split, Long> splitCounts;
    private final long featureNonZeros;
    private long signedRows;
    private DatasetFormat format = DatasetFormat.GNNSTREAM;

    private DatasetInfo(
            Path dir,
            long nodes,
            long edges,
            int featureDim,
            int numClasses,
            long labelledNodes,
            Map<Split, Long> splitCounts,
            long featureNonZeros) {
        this.featureNonZeros = featureNonZeros;
        this.dir = dir;
        this.nodes = nodes;
        this.edges = edges;
        this.featureDim = featureDim;
        this.numClasses = numClasses;
        this.labelledNodes = labelledNodes;
        this.splitCounts = Collections.unmodifiableMap(splitCounts);
    }

    /** Scans and validates a folder of any format, detected from its files. */
    public static DatasetInfo scan(Path dir) throws DatasetException {
        return scan(dir, FormatOptions.defaults());
    }

    /** Scans and validates the node and edge lines of a folder in the format of {@code options}. */
    public static DatasetInfo scan(Path dir, FormatOptions options) throws DatasetException {
        DatasetReader reader;
        try {
            reader = DatasetReaders.open(dir, options);
        } catch (DatasetException e) {
            throw e;
        } catch (IOException e) {
            throw new DatasetException("cannot read " + dir + ": " + e.getMessage(), e);
        }
        Counts c = new Counts();
        try {
            reader.nodes(
                    line -> {
                        c.lineNo++;
                        if (line.isBlank()) {
                            return;
                        }
                        if (c.format == null) {
                            c.format =
                                    new NodeFormat(
                                            featureDim(reader.nodesSource(), c.lineNo, line),
                                            Integer.MAX_VALUE,
                                            false);
                        }
                        NodeUpdate node = parse(c.format, line, reader.nodesSource(), c.lineNo);
                        c.nodes++;
                        for (float f : node.features) {
                            c.nonZeros += f != 0f ? 1 : 0;
                        }
                        c.signedRows += RowNormalization.signed(node.features) ? 1 : 0;
                        c.splits.merge(node.split, 1L, Long::sum);
                        if (node.label != NodeUpdate.NO_LABEL) {
                            c.labelled++;
                            c.maxLabel = Math.max(c.maxLabel, node.label);
                        }
                    });
        } catch (IOException e) {
            throw unreadable(reader.nodesSource(), e);
        }
        if (c.format == null) {
            throw new DatasetException(reader.nodesSource() + " has no nodes");
        }
        EdgeFormat edgeFormat = new EdgeFormat();
        c.lineNo = 0;
        try {
            reader.edges(
                    line -> {
                        c.lineNo++;
                        if (!line.isBlank()) {
                            parse(edgeFormat, line, reader.edgesSource(), c.lineNo);
                            c.edges++;
                        }
                    });
        } catch (IOException e) {
            throw unreadable(reader.edgesSource(), e);
        }
        DatasetInfo info =
                new DatasetInfo(
                        dir,
                        c.nodes,
                        c.edges,
                        c.format.featureDim(),
                        c.maxLabel + 1,
                        c.labelled,
                        c.splits,
                        c.nonZeros);
        info.signedRows = c.signedRows;
        info.format = reader.format();
        return info;
    }

    /** Running counts of a scan. */
    private static final class Counts {
        final Map<Split, Long> splits = new EnumMap<>(Split.class);
        long lineNo;
        long nodes;
        long edges;
        long labelled;
        long nonZeros;
        long signedRows;
        int maxLabel = -1;
        NodeFormat format;

        Counts() {
            for (Split s : Split.values()) {
                splits.put(s, 0L);
            }
        }
    }

    private static int featureDim(String file, long lineNo, String line) throws DatasetException {
        try {
            return NodeFormat.featureCountOf(line);
        } catch (InvalidRecordException e) {
            throw new DatasetException(file + " line " + lineNo + ": " + e.getMessage());
        }
    }

    private static <T> T parse(RecordFormat<T> format, String line, String file, long lineNo)
            throws DatasetException {
        try {
            return format.parse(line);
        } catch (InvalidRecordException e) {
            throw new DatasetException(file + " line " + lineNo + ": " + e.getMessage());
        }
    }

    private static DatasetException unreadable(String file, IOException e) {
        if (e instanceof DatasetException d) {
            return d;
        }
        return new DatasetException("cannot read " + file + ": " + e.getMessage(), e);
    }

    public Path dir() {
        return dir;
    }

    public long nodes() {
        return nodes;
    }

    /** Mean number of non-zero features per node (the density of bag-of-words rows). */
    public double meanNonZeroFeatures() {
        return nodes == 0 ? 0 : (double) featureNonZeros / nodes;
    }

    public long edges() {
        return edges;
    }

    public int featureDim() {
        return featureDim;
    }

    /** Largest label + 1 (0 when no node is labelled). */
    public int numClasses() {
        return numClasses;
    }

    public long labelledNodes() {
        return labelledNodes;
    }

    public long splitCount(Split split) {
        return splitCounts.get(split);
    }

    /** Nodes per split, every split present (possibly with 0). */
    public Map<Split, Long> splitCounts() {
        return splitCounts;
    }

    /** The node format matching this dataset's feature dimension and classes. */
    public NodeFormat nodeFormat(boolean rowNormalize) {
        return nodeFormat(RowNormalization.of(rowNormalize));
    }

    /**
     * The node format matching this dataset's feature dimension and classes; {@link
     * RowNormalization#AUTO} decided for this dataset ({@link #signedRows}).
     */
    public NodeFormat nodeFormat(RowNormalization rowNormalize) {
        return new NodeFormat(
                featureDim, Math.max(1, numClasses), rowNormalize.resolve(signedRows > 0));
    }

    /**
     * Node rows with a negative feature: with one, {@link RowNormalization#AUTO} keeps every row as
     * it is.
     */
    public long signedRows() {
        return signedRows;
    }

    /** The format the folder was read in. */
    public DatasetFormat format() {
        return format;
    }

    @Override
    public String toString() {
        return dir
                + (format != DatasetFormat.GNNSTREAM ? " (" + format.wireName() + ")" : "")
                + ": "
                + nodes
                + " nodes, "
                + edges
                + " edges, "
                + featureDim
                + " features, "
                + numClasses
                + " classes, splits "
                + splitCounts;
    }
}

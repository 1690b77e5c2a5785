package io.gnnstream.tools;

import io.gnnstream.connectors.EdgeFormat;
import io.gnnstream.connectors.InvalidRecordException;
import io.gnnstream.connectors.NodeFormat;
import io.gnnstream.connectors.RecordFormat;
import io.gnnstream.connectors.RowNormalization;
import io.gnnstream.state.records.NodeUpdate;
import io.gnnstream.state.records.Split;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * Statistics of a dataset folder ({@value #NODES_FILE} + {@value #EDGES_FILE}, as in {@code
 * data/cora/README.md}), read line by line so that graphs larger than memory can be checked. Every
 * line is validated with the same formats the job uses, so a folder that scans cleanly produces no
 * dead letters.
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

    /** Scans and validates both files of the folder. */
    public static DatasetInfo scan(Path dir) throws DatasetException {
        Path nodesFile = file(dir, NODES_FILE);
        Path edgesFile = file(dir, EDGES_FILE);
        Map<Split, Long> splits = new EnumMap<>(Split.class);
        for (Split s : Split.values()) {
            splits.put(s, 0L);
        }
        long nodes = 0;
        long labelled = 0;
        long nonZeros = 0;
        long signedRows = 0;
        int maxLabel = -1;
        NodeFormat format = null;
        try (BufferedReader reader = Files.newBufferedReader(nodesFile, StandardCharsets.UTF_8)) {
            long lineNo = 0;
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                lineNo++;
                if (line.isBlank()) {
                    continue;
                }
                if (format == null) {
                    format =
                            new NodeFormat(
                                    featureDim(nodesFile, lineNo, line), Integer.MAX_VALUE, false);
                }
                NodeUpdate node = parse(format, line, nodesFile, lineNo);
                nodes++;
                for (float f : node.features) {
                    nonZeros += f != 0f ? 1 : 0;
                }
                signedRows += RowNormalization.signed(node.features) ? 1 : 0;
                splits.merge(node.split, 1L, Long::sum);
                if (node.label != NodeUpdate.NO_LABEL) {
                    labelled++;
                    maxLabel = Math.max(maxLabel, node.label);
                }
            }
        } catch (IOException e) {
            throw unreadable(nodesFile, e);
        }
        if (format == null) {
            throw new DatasetException(nodesFile + " has no nodes");
        }
        long edges = 0;
        EdgeFormat edgeFormat = new EdgeFormat();
        try (BufferedReader reader = Files.newBufferedReader(edgesFile, StandardCharsets.UTF_8)) {
            long lineNo = 0;
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                lineNo++;
                if (!line.isBlank()) {
                    parse(edgeFormat, line, edgesFile, lineNo);
                    edges++;
                }
            }
        } catch (IOException e) {
            throw unreadable(edgesFile, e);
        }
        return new DatasetInfo(
                        dir,
                        nodes,
                        edges,
                        format.featureDim(),
                        maxLabel + 1,
                        labelled,
                        splits,
                        nonZeros)
                .withSignedRows(signedRows);
    }

    /** The named file of a dataset folder, with a clear error if the folder or file is missing. */
    static Path file(Path dir, String name) throws DatasetException {
        if (!Files.isDirectory(dir)) {
            throw new DatasetException(
                    "dataset folder "
                            + dir.toAbsolutePath()
                            + " does not exist"
                            + " (expected a folder with "
                            + NODES_FILE
                            + " and "
                            + EDGES_FILE
                            + ")");
        }
        Path file = dir.resolve(name);
        if (!Files.isRegularFile(file)) {
            throw new DatasetException(
                    "dataset folder "
                            + dir.toAbsolutePath()
                            + " has no "
                            + name
                            + " (expected "
                            + NODES_FILE
                            + " and "
                            + EDGES_FILE
                            + ")");
        }
        return file;
    }

    private static int featureDim(Path file, long lineNo, String line) throws DatasetException {
        try {
            return NodeFormat.featureCountOf(line);
        } catch (InvalidRecordException e) {
            throw new DatasetException(file + " line " + lineNo + ": " + e.getMessage());
        }
    }

    private static <T> T parse(RecordFormat<T> format, String line, Path file, long lineNo)
            throws DatasetException {
        try {
            return format.parse(line);
        } catch (InvalidRecordException e) {
            throw new DatasetException(file + " line " + lineNo + ": " + e.getMessage());
        }
    }

    private static DatasetException unreadable(Path file, IOException e) {
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

    /** The node format matching this dataset's feature dimension and classes. */
    public NodeFormat nodeFormat(RowNormalization rowNormalize) {
        return new NodeFormat(featureDim, Math.max(1, numClasses), rowNormalize);
    }

    /**
     * Node rows with a negative feature (which {@link RowNormalization#AUTO} keeps as they are).
     */
    public long signedRows() {
        return signedRows;
    }

    private DatasetInfo withSignedRows(long rows) {
        this.signedRows = rows;
        return this;
    }

    @Override
    public String toString() {
        return dir
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

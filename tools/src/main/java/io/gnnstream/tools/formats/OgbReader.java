package io.gnnstream.tools.formats;

import io.gnnstream.state.records.NodeUpdate;
import io.gnnstream.state.records.Split;
import io.gnnstream.tools.DatasetException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * OGB's raw node-property-prediction layout: {@code raw/num-node-list.csv.gz} (the node count),
 * {@code raw/node-feat.csv.gz} (one row of comma-separated floats per node), {@code
 * raw/node-label.csv.gz} (one integer per node; empty or NaN = unlabelled), {@code raw/edge.csv.gz}
 * ({@code src,dst} rows) and {@code split/<name>/{train,valid,test}.csv.gz} (node indices).
 * Streamed: features and labels are read in lockstep, edges row by row; only one split byte per
 * node is held.
 */
final class OgbReader implements DatasetReader {

    private final Path dir;
    private final FormatOptions options;

    OgbReader(Path dir, FormatOptions options) throws DatasetException {
        this.dir = dir;
        this.options = options;
        for (String f : List.of("raw/node-feat.csv.gz", "raw/node-label.csv.gz")) {
            if (!Files.isRegularFile(dir.resolve(f))) {
                throw new DatasetException(
                        "OGB folder "
                                + dir
                                + " has no "
                                + f
                                + " (node-property sets with node features and one label per"
                                + " node are read)");
            }
        }
    }

    @Override
    public DatasetFormat format() {
        return DatasetFormat.OGB;
    }

    @Override
    public String nodesSource() {
        return dir + " (ogb) node";
    }

    @Override
    public String edgesSource() {
        return dir + " (ogb) edge";
    }

    /** The node count of {@code raw/num-node-list.csv.gz}. */
    long numNodes() throws IOException {
        try (TextFiles.Lines in = new TextFiles.Lines(dir.resolve("raw/num-node-list.csv.gz"))) {
            long n = -1;
            for (String line = in.next(); line != null; line = in.next()) {
                if (line.isBlank()) {
                    continue;
                }
                if (n >= 0) {
                    throw in.error("more than one graph; node-property sets have one");
                }
                n = TextFiles.parseId(line, in.file, in.lineNo);
            }
            if (n < 0) {
                throw in.error("no node count");
            }
            return n;
        }
    }

    @Override
    public void nodes(LineSink sink) throws IOException {
        int n = Math.toIntExact(numNodes());
        byte[] splits = splits(n);
        NodeLines lines = new NodeLines();
        try (TextFiles.Lines feats = new TextFiles.Lines(dir.resolve("raw/node-feat.csv.gz"));
                TextFiles.Lines labels =
                        new TextFiles.Lines(dir.resolve("raw/node-label.csv.gz"))) {
            float[] row = null;
            for (int v = 0; v < n; v++) {
                String f = feats.next();
                String l = labels.next();
                if (f == null || l == null) {
                    TextFiles.Lines shortFile = f == null ? feats : labels;
                    throw new DatasetException(
                            shortFile.file
                                    + " has "
                                    + shortFile.lineNo
                                    + " rows, raw/num-node-list.csv.gz says "
                                    + n
                                    + " nodes");
                }
                row = features(f, row, feats);
                int label = label(l, labels);
                Split split = Split.values()[splits[v]];
                if (label == NodeUpdate.NO_LABEL && split != Split.NONE) {
                    throw labels.error(
                            "node "
                                    + v
                                    + " is in the "
                                    + split.wireName()
                                    + " split but has no label");
                }
                sink.line(lines.line(v, label, split, row));
            }
            if (feats.next() != null || labels.next() != null) {
                TextFiles.Lines longFile = feats.lineNo > n ? feats : labels;
                throw longFile.error(
                        "more rows than the " + n + " nodes of raw/num-node-list.csv.gz");
            }
        }
    }

    private static float[] features(String line, float[] previous, TextFiles.Lines in)
            throws DatasetException {
        String[] cells = line.split(",", -1);
        if (previous != null && cells.length != previous.length) {
            throw in.error(
                    "expected "
                            + previous.length
                            + " comma-separated features, got "
                            + cells.length);
        }
        float[] row = previous != null ? previous : new float[cells.length];
        for (int i = 0; i < cells.length; i++) {
            row[i] = TextFiles.parseFloat(cells[i], in.file, in.lineNo);
        }
        return row;
    }

    private static int label(String line, TextFiles.Lines in) throws DatasetException {
        String t = line.trim();
        if (t.isEmpty() || t.equalsIgnoreCase("nan")) {
            return NodeUpdate.NO_LABEL;
        }
        try {
            double d = Double.parseDouble(t);
            if (d >= 0 && d < Integer.MAX_VALUE && d == Math.rint(d)) {
                return (int) d;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw in.error("expected a non-negative integer label, empty or NaN, got '" + t + "'");
    }

    /** One split ordinal per node, from the chosen {@code split/<name>/} folder. */
    private byte[] splits(int n) throws IOException {
        byte[] splits = new byte[n];
        Path folder = splitFolder();
        if (folder == null) {
            return splits;
        }
        readSplit(folder, "train", Split.TRAIN, splits);
        readSplit(folder, "valid", Split.VAL, splits);
        readSplit(folder, "test", Split.TEST, splits);
        return splits;
    }

    private Path splitFolder() throws IOException {
        Path root = dir.resolve("split");
        List<String> names = List.of();
        if (Files.isDirectory(root)) {
            try (Stream<Path> s = Files.list(root)) {
                names =
                        s.filter(Files::isDirectory)
                                .map(p -> p.getFileName().toString())
                                .sorted()
                                .collect(Collectors.toList());
            }
        }
        if (options.splitName() != null) {
            if (!names.contains(options.splitName())) {
                throw new DatasetException(
                        "OGB folder "
                                + dir
                                + " has no split/"
                                + options.splitName()
                                + " (--split-name); its splits: "
                                + (names.isEmpty() ? "none" : String.join(", ", names)));
            }
            return root.resolve(options.splitName());
        }
        if (names.size() > 1) {
            throw new DatasetException(
                    "OGB folder "
                            + dir
                            + " has several splits ("
                            + String.join(", ", names)
                            + "); choose one with --split-name");
        }
        return names.isEmpty() ? null : root.resolve(names.get(0));
    }

    private static void readSplit(Path folder, String name, Split split, byte[] splits)
            throws IOException {
        Path file = folder.resolve(name + ".csv.gz");
        if (!Files.isRegularFile(file)) {
            throw new DatasetException(
                    "OGB split folder " + folder + " has no " + name + ".csv.gz");
        }
        try (TextFiles.Lines in = new TextFiles.Lines(file)) {
            for (String line = in.next(); line != null; line = in.next()) {
                if (line.isBlank()) {
                    continue;
                }
                long v = TextFiles.parseId(line, file, in.lineNo);
                if (v >= splits.length) {
                    throw in.error("node " + v + " out of range [0, " + splits.length + ")");
                }
                if (splits[(int) v] != 0 && splits[(int) v] != split.ordinal()) {
                    throw in.error(
                            "node "
                                    + v
                                    + " is already in the "
                                    + Split.values()[splits[(int) v]].wireName()
                                    + " split");
                }
                splits[(int) v] = (byte) split.ordinal();
            }
        }
    }

    @Override
    public void edges(LineSink sink) throws IOException {
        long n = numNodes();
        boolean inverse = options.addInverseEdges();
        try (TextFiles.Lines in = new TextFiles.Lines(dir.resolve("raw/edge.csv.gz"))) {
            for (String line = in.next(); line != null; line = in.next()) {
                if (line.isBlank()) {
                    continue;
                }
                int comma = line.indexOf(',');
                if (comma < 0 || line.indexOf(',', comma + 1) >= 0) {
                    throw in.error("expected src,dst, got '" + line + "'");
                }
                long src = TextFiles.parseId(line.substring(0, comma), in.file, in.lineNo);
                long dst = TextFiles.parseId(line.substring(comma + 1), in.file, in.lineNo);
                if (src >= n || dst >= n) {
                    throw in.error("node " + Math.max(src, dst) + " out of range [0, " + n + ")");
                }
                sink.line(src + "," + dst);
                if (inverse) {
                    sink.line(dst + "," + src);
                }
            }
        }
    }
}

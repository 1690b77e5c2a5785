package io.gnnstream.tools.formats;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.gnnstream.state.records.NodeUpdate;
import io.gnnstream.state.records.Split;
import io.gnnstream.tools.DatasetException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * A DGL {@code CSVDataset} folder with one node type and one edge type: {@code meta.yaml} ({@code
 * node_data: [{file_name, ntype}]}, {@code edge_data: [{file_name, etype}]}, optional {@code
 * separator}), a node file with a header ({@code node_id}, optional {@code label}, {@code
 * train_mask}/{@code val_mask}/{@code test_mask} as True/False or 1/0, {@code feat} as one quoted
 * field of comma-separated floats; other columns ignored) and an edge file ({@code src_id,dst_id}).
 * Both files are streamed.
 */
final class DglCsvReader implements DatasetReader {

    static final String META = "meta.yaml";

    private final Path nodesFile;
    private final Path edgesFile;
    private final char separator;

    DglCsvReader(Path dir) throws IOException {
        Path meta = dir.resolve(META);
        JsonNode root;
        try {
            root = new ObjectMapper(new YAMLFactory()).readTree(meta.toFile());
        } catch (IOException e) {
            throw new DatasetException("cannot read " + meta + ": " + e.getMessage(), e);
        }
        if (root == null || !root.isObject()) {
            throw new DatasetException(meta + ": expected a mapping with node_data and edge_data");
        }
        if (root.has("graph_data")) {
            throw new DatasetException(meta + ": graph_data (several graphs) is not supported");
        }
        this.nodesFile = dir.resolve(single(root, "node_data", meta));
        this.edgesFile = dir.resolve(single(root, "edge_data", meta));
        String sep = root.path("separator").asText(",");
        if (sep.length() != 1) {
            throw new DatasetException(
                    meta + ": separator must be one character, got '" + sep + "'");
        }
        this.separator = sep.charAt(0);
    }

    private static String single(JsonNode root, String key, Path meta) throws DatasetException {
        JsonNode list = root.get(key);
        if (list == null || !list.isArray() || list.size() != 1) {
            throw new DatasetException(
                    meta
                            + ": "
                            + key
                            + " must list exactly one file (one node type and one edge"
                            + " type are supported), got "
                            + (list == null ? "none" : list));
        }
        String name = list.get(0).path("file_name").asText("");
        if (name.isEmpty()) {
            throw new DatasetException(meta + ": " + key + " entry without file_name");
        }
        return name;
    }

    @Override
    public DatasetFormat format() {
        return DatasetFormat.DGL_CSV;
    }

    @Override
    public String nodesSource() {
        return nodesFile + " (dgl-csv) node";
    }

    @Override
    public String edgesSource() {
        return edgesFile + " (dgl-csv) edge";
    }

    @Override
    public void nodes(LineSink sink) throws IOException {
        try (TextFiles.Lines in = new TextFiles.Lines(nodesFile)) {
            List<String> header = header(in);
            int id = column(header, "node_id", in, true);
            int label = column(header, "label", in, false);
            int feat = column(header, "feat", in, true);
            int[] masks = {
                column(header, "train_mask", in, false),
                column(header, "val_mask", in, false),
                column(header, "test_mask", in, false)
            };
            Split[] maskSplits = {Split.TRAIN, Split.VAL, Split.TEST};
            NodeLines lines = new NodeLines();
            float[] row = null;
            for (String line = in.next(); line != null; line = in.next()) {
                if (line.isBlank()) {
                    continue;
                }
                List<String> f = fields(line, header.size(), in);
                long node = TextFiles.parseId(f.get(id), in.file, in.lineNo);
                int y = label < 0 ? NodeUpdate.NO_LABEL : label(f.get(label), in);
                Split split = Split.NONE;
                for (int m = 0; m < masks.length; m++) {
                    if (masks[m] >= 0 && bool(f.get(masks[m]), header.get(masks[m]), in)) {
                        if (split != Split.NONE) {
                            throw in.error("node " + node + " is in two of the masks");
                        }
                        split = maskSplits[m];
                    }
                }
                if (split != Split.NONE && y == NodeUpdate.NO_LABEL) {
                    throw in.error("node " + node + " is in a mask but has no label");
                }
                row = features(f.get(feat), row, in);
                sink.line(lines.line(node, y, split, row));
            }
        }
    }

    @Override
    public void edges(LineSink sink) throws IOException {
        try (TextFiles.Lines in = new TextFiles.Lines(edgesFile)) {
            List<String> header = header(in);
            int src = column(header, "src_id", in, true);
            int dst = column(header, "dst_id", in, true);
            for (String line = in.next(); line != null; line = in.next()) {
                if (line.isBlank()) {
                    continue;
                }
                List<String> f = fields(line, header.size(), in);
                sink.line(
                        TextFiles.parseId(f.get(src), in.file, in.lineNo)
                                + ","
                                + TextFiles.parseId(f.get(dst), in.file, in.lineNo));
            }
        }
    }

    private List<String> header(TextFiles.Lines in) throws DatasetException {
        String line = in.next();
        if (line == null || line.isBlank()) {
            throw in.error("no header row");
        }
        return fields(line, -1, in);
    }

    private List<String> fields(String line, int expected, TextFiles.Lines in)
            throws DatasetException {
        List<String> f = CsvLine.split(line, separator);
        if (f == null) {
            throw in.error("unclosed quoted field");
        }
        if (expected >= 0 && f.size() != expected) {
            throw in.error("expected " + expected + " fields as in the header, got " + f.size());
        }
        return f;
    }

    private static int column(List<String> header, String name, TextFiles.Lines in, boolean needed)
            throws DatasetException {
        int i = header.indexOf(name);
        if (i < 0 && needed) {
            throw TextFiles.error(in.file, 1, "no '" + name + "' column in header " + header);
        }
        return i;
    }

    private static int label(String text, TextFiles.Lines in) throws DatasetException {
        String t = text.trim();
        if (t.isEmpty() || t.equalsIgnoreCase("nan")) {
            return NodeUpdate.NO_LABEL;
        }
        long v = TextFiles.parseId(t, in.file, in.lineNo);
        if (v > Integer.MAX_VALUE) {
            throw in.error("label " + v + " too large");
        }
        return (int) v;
    }

    private static boolean bool(String text, String column, TextFiles.Lines in)
            throws DatasetException {
        switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "true", "1", "1.0" -> {
                return true;
            }
            case "false", "0", "0.0", "" -> {
                return false;
            }
            default -> throw in.error(column + " must be True/False or 1/0, got '" + text + "'");
        }
    }

    private static float[] features(String text, float[] previous, TextFiles.Lines in)
            throws DatasetException {
        String t = text.trim();
        if (t.startsWith("[") && t.endsWith("]")) {
            t = t.substring(1, t.length() - 1);
        }
        String[] cells = t.split(",", -1);
        if (previous != null && cells.length != previous.length) {
            throw in.error("feat has " + cells.length + " values, earlier rows " + previous.length);
        }
        float[] row = previous != null ? previous : new float[cells.length];
        for (int i = 0; i < cells.length; i++) {
            row[i] = TextFiles.parseFloat(cells[i], in.file, in.lineNo);
        }
        return row;
    }
}

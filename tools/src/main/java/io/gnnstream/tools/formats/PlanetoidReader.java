package io.gnnstream.tools.formats;

import io.gnnstream.state.records.NodeUpdate;
import io.gnnstream.state.records.Split;
import io.gnnstream.tools.DatasetException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Planetoid's raw files {@code ind.<name>.{tx,allx,y,ty,ally,graph,test.index}} (Python-2 pickles
 * of scipy CSR matrices or numpy arrays, a dict of lists, and a text file of ints), read with PyG's
 * {@code read_planetoid_data} semantics: nodes are the rows of {@code allx}, then the test range
 * {@code min(test.index)..max(test.index)}, where row j of {@code tx}/{@code ty} becomes node
 * {@code test.index[j]} and nodes of the range missing from {@code test.index} (CiteSeer's isolated
 * test nodes) get zero features and no label; label = the column of the one-hot label row (none for
 * a row of zeros); train = the first {@code len(y)} nodes, val = the next 500, test = {@code
 * test.index}, a node without a label in no split; edges from the dict without self-loops, made
 * undirected, distinct, sorted. {@code ind.<name>.x} is not needed.
 */
final class PlanetoidReader implements DatasetReader {

    private static final Pattern GRAPH = Pattern.compile("ind\\.(.+)\\.graph");
    private static final int VAL_NODES = 500;

    private final Path dir;
    private final String prefix;
    private Matrix allx;
    private Matrix tx;
    private int[] labels;
    private Split[] splits;
    private int[] txRowOf;
    private long[] edges;

    PlanetoidReader(Path dir) throws IOException {
        List<String> names = names(dir);
        if (names.size() != 1) {
            throw new DatasetException(
                    "dataset folder "
                            + dir
                            + " holds several Planetoid sets ("
                            + names
                            + "); keep one per folder");
        }
        this.dir = dir;
        this.prefix = "ind." + names.get(0) + ".";
    }

    /** The set names {@code <name>} of the folder's {@code ind.<name>.graph} files. */
    static List<String> names(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> GRAPH.matcher(p.getFileName().toString()))
                    .filter(Matcher::matches)
                    .map(m -> m.group(1))
                    .sorted()
                    .collect(Collectors.toList());
        }
    }

    @Override
    public DatasetFormat format() {
        return DatasetFormat.PLANETOID;
    }

    @Override
    public String nodesSource() {
        return dir.resolve(prefix + "*") + " node";
    }

    @Override
    public String edgesSource() {
        return dir.resolve(prefix + "graph") + " edge";
    }

    @Override
    public void nodes(LineSink sink) throws IOException {
        load();
        NodeLines lines = new NodeLines();
        float[] row = new float[allx.cols];
        for (int v = 0; v < labels.length; v++) {
            if (v < allx.rows) {
                allx.row(v, row);
            } else if (txRowOf[v - allx.rows] >= 0) {
                tx.row(txRowOf[v - allx.rows], row);
            } else {
                Arrays.fill(row, 0f);
            }
            sink.line(lines.line(v, labels[v], splits[v], row));
        }
    }

    @Override
    public void edges(LineSink sink) throws IOException {
        load();
        UndirectedEdges.write(edges, sink);
    }

    private synchronized void load() throws IOException {
        if (edges != null) {
            return;
        }
        Matrix ax = PickledData.matrix(read("allx"), where("allx"));
        Matrix ay = PickledData.matrix(read("ally"), where("ally"));
        Matrix t = PickledData.matrix(read("tx"), where("tx"));
        Matrix ty = PickledData.matrix(read("ty"), where("ty"));
        int trainCount = PickledData.matrix(read("y"), where("y")).rows;
        int[] test = testIndex();
        int a = ax.rows;
        if (ay.rows != a
                || t.rows != test.length
                || ty.rows != test.length
                || t.cols != ax.cols
                || ty.cols != ay.cols
                || trainCount > a) {
            throw new DatasetException(
                    String.format(
                            "%s: inconsistent shapes: allx %dx%d, ally %dx%d, tx %dx%d, ty %dx%d,"
                                    + " y %d rows, test.index %d entries",
                            dir.resolve(prefix + "*"),
                            a,
                            ax.cols,
                            ay.rows,
                            ay.cols,
                            t.rows,
                            t.cols,
                            ty.rows,
                            ty.cols,
                            trainCount,
                            test.length));
        }
        int lo = Arrays.stream(test).min().orElse(a);
        int hi = Arrays.stream(test).max().orElse(a - 1);
        if (test.length > 0 && lo != a) {
            throw new DatasetException(
                    where("test.index")
                            + ": smallest index "
                            + lo
                            + ", expected "
                            + a
                            + " (the rows of allx)");
        }
        int n = hi + 1;
        int[] rowOf = new int[n - a];
        Arrays.fill(rowOf, -1);
        for (int j = 0; j < test.length; j++) {
            if (rowOf[test[j] - a] >= 0) {
                throw new DatasetException(where("test.index") + ": index " + test[j] + " twice");
            }
            rowOf[test[j] - a] = j;
        }
        int[] y = new int[n];
        Split[] s = new Split[n];
        float[] scratch = new float[ay.cols];
        for (int v = 0; v < n; v++) {
            int r = v < a ? v : rowOf[v - a];
            y[v] =
                    v < a
                            ? ay.argmax(v, scratch)
                            : r >= 0 ? ty.argmax(r, scratch) : NodeUpdate.NO_LABEL;
            s[v] =
                    v >= a
                            ? (r >= 0 ? Split.TEST : Split.NONE)
                            : v < trainCount
                                    ? Split.TRAIN
                                    : v < trainCount + VAL_NODES ? Split.VAL : Split.NONE;
            if (y[v] == NodeUpdate.NO_LABEL) {
                s[v] = Split.NONE;
            }
        }
        this.edges = edges(read("graph"), n);
        this.allx = ax;
        this.tx = t;
        this.txRowOf = rowOf;
        this.labels = y;
        this.splits = s;
    }

    private long[] edges(Object graph, int n) throws DatasetException {
        if (!(graph instanceof Map<?, ?> dict)) {
            throw new DatasetException(
                    where("graph") + ": expected a dict of lists, got " + Pickle.describe(graph));
        }
        UndirectedEdges pairs = new UndirectedEdges();
        for (Map.Entry<?, ?> e : dict.entrySet()) {
            long src = node(e.getKey(), n);
            if (!(e.getValue() instanceof List<?> targets)) {
                throw new DatasetException(
                        where("graph") + ": the neighbours of " + src + " are not a list");
            }
            for (Object t : targets) {
                pairs.add(src, node(t, n));
            }
        }
        return pairs.toArray();
    }

    private long node(Object key, int n) throws DatasetException {
        if (!(key instanceof Long v) || v < 0 || v >= n) {
            throw new DatasetException(
                    where("graph") + ": node " + key + " is not an id in [0, " + n + ")");
        }
        return v;
    }

    private int[] testIndex() throws IOException {
        Path file = dir.resolve(prefix + "test.index");
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        int[] out = new int[lines.size()];
        int count = 0;
        for (int i = 0; i < lines.size(); i++) {
            if (!lines.get(i).isBlank()) {
                long v = TextFiles.parseId(lines.get(i), file, i + 1);
                if (v > Integer.MAX_VALUE - 1) {
                    throw TextFiles.error(file, i + 1, "index " + v + " too large");
                }
                out[count++] = (int) v;
            }
        }
        return Arrays.copyOf(out, count);
    }

    private Object read(String part) throws IOException {
        Path file = dir.resolve(prefix + part);
        if (!Files.isRegularFile(file)) {
            throw new DatasetException("Planetoid folder " + dir + " has no " + prefix + part);
        }
        return Pickle.load(Files.readAllBytes(file), file.toString());
    }

    private String where(String part) {
        return dir.resolve(prefix + part).toString();
    }
}

package io.gnnstream.tools.formats;

import io.gnnstream.state.records.Split;
import io.gnnstream.tools.DatasetException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipException;
import java.util.zip.ZipFile;

/**
 * The {@code .npz} files of the gnn-benchmark sets (Amazon, Coauthor; Shchur et al.), read as PyG's
 * {@code parse_npz}: adjacency CSR {@code adj_data/adj_indices/adj_indptr/adj_shape} without
 * self-loops, made undirected, duplicates removed, edges sorted by (src, dst); features CSR {@code
 * attr_*} or dense {@code attr_matrix}, written as stored; {@code labels} (1-D, or one-hot CSR
 * {@code labels_*}). The files have no split, so a {@link PerClassSplit} is drawn. Other keys
 * ({@code class_names}, {@code idx_to_node}, …) are not read.
 */
final class NpzReader implements DatasetReader {

    private final Path file;
    private final FormatOptions options;
    private Matrix features;
    private int[] labels;
    private Split[] splits;
    private long[] edges;

    NpzReader(Path dir, FormatOptions options) throws IOException {
        List<Path> files = files(dir);
        if (files.size() != 1) {
            throw new DatasetException(
                    "dataset folder "
                            + dir
                            + " must hold one .npz file, it holds "
                            + files.stream()
                                    .map(p -> p.getFileName().toString())
                                    .collect(Collectors.joining(", ")));
        }
        this.file = files.get(0);
        this.options = options;
    }

    /** The {@code .npz} files of {@code dir}, sorted. */
    static List<Path> files(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".npz"))
                    .filter(Files::isRegularFile)
                    .sorted()
                    .collect(Collectors.toList());
        }
    }

    @Override
    public DatasetFormat format() {
        return DatasetFormat.NPZ;
    }

    @Override
    public String nodesSource() {
        return file + " node";
    }

    @Override
    public String edgesSource() {
        return file + " edge";
    }

    @Override
    public void nodes(LineSink sink) throws IOException {
        load();
        NodeLines lines = new NodeLines();
        float[] row = new float[features.cols];
        for (int v = 0; v < features.rows; v++) {
            features.row(v, row);
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
        try (ZipFile zip = new ZipFile(file.toFile())) {
            Matrix adj = csr(zip, "adj");
            if (adj == null) {
                throw new DatasetException(
                        file + " has no adj_data/adj_indices/adj_indptr/adj_shape");
            }
            int n = adj.rows;
            if (adj.cols != n) {
                throw new DatasetException(file + ": adjacency is " + n + " x " + adj.cols);
            }
            Matrix x = csr(zip, "attr");
            if (x == null) {
                NdArray dense = array(zip, "attr_matrix");
                if (dense == null) {
                    throw new DatasetException(file + " has neither attr_* (CSR) nor attr_matrix");
                }
                x = Matrix.dense(dense, file + " attr_matrix");
            }
            int[] y = labels(zip, n);
            if (x.rows != n) {
                throw new DatasetException(
                        file + ": " + x.rows + " feature rows for " + n + " nodes");
            }
            this.edges = undirected(adj);
            this.features = x;
            this.labels = y;
            this.splits =
                    PerClassSplit.assign(
                            y, options.splitSeed(), options.trainPerClass(), options.valPerClass());
        } catch (ZipException e) {
            throw new DatasetException(
                    file + " is not a readable .npz (zip): " + e.getMessage(), e);
        }
    }

    private int[] labels(ZipFile zip, int n) throws IOException {
        int[] y = new int[n];
        NdArray flat = array(zip, "labels");
        if (flat != null) {
            long[] values = flat.longs(file + " labels");
            if (values.length != n) {
                throw new DatasetException(
                        file + ": " + values.length + " labels for " + n + " nodes");
            }
            for (int v = 0; v < n; v++) {
                if (values[v] < 0 || values[v] > Integer.MAX_VALUE) {
                    throw new DatasetException(file + ": label " + values[v] + " of node " + v);
                }
                y[v] = (int) values[v];
            }
            return y;
        }
        Matrix oneHot = csr(zip, "labels");
        if (oneHot == null || oneHot.rows != n) {
            throw new DatasetException(
                    file + " has no labels (a 1-D 'labels' or labels_* CSR with one row per node)");
        }
        float[] scratch = new float[oneHot.cols];
        for (int v = 0; v < n; v++) {
            y[v] = oneHot.argmax(v, scratch);
        }
        return y;
    }

    /** Directed edges of both directions, self-loops dropped, sorted and distinct. */
    private long[] undirected(Matrix adj) throws DatasetException {
        UndirectedEdges out = new UndirectedEdges();
        adj.forEachEntry(out::add);
        return out.toArray();
    }

    /** The CSR matrix {@code prefix_data/_indices/_indptr/_shape}, or null when absent. */
    private Matrix csr(ZipFile zip, String prefix) throws IOException {
        NdArray data = array(zip, prefix + "_data");
        NdArray indices = array(zip, prefix + "_indices");
        NdArray indptr = array(zip, prefix + "_indptr");
        NdArray shape = array(zip, prefix + "_shape");
        if (data == null && indices == null && indptr == null && shape == null) {
            return null;
        }
        if (data == null || indices == null || indptr == null || shape == null) {
            throw new DatasetException(
                    file
                            + " has an incomplete "
                            + prefix
                            + "_* matrix (needs _data, _indices, _indptr and _shape)");
        }
        return Matrix.csr(
                data,
                indices,
                indptr,
                shape.longs(file + " " + prefix + "_shape"),
                file + " " + prefix);
    }

    /** The array of {@code key}, or null when the file has no such key. */
    private NdArray array(ZipFile zip, String key) throws IOException {
        ZipEntry entry = zip.getEntry(key + ".npy");
        if (entry == null) {
            return null;
        }
        try (InputStream in = zip.getInputStream(entry)) {
            return Npy.read(in, file + " " + key);
        }
    }
}

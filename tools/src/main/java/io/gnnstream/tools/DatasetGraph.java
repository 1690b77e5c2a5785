package io.gnnstream.tools;

import com.carrotsearch.hppc.LongIntHashMap;
import io.gnnstream.connectors.EdgeFormat;
import io.gnnstream.connectors.InvalidRecordException;
import io.gnnstream.connectors.NodeFormat;
import io.gnnstream.connectors.RowNormalization;
import io.gnnstream.operators.model.LayerwiseInference;
import io.gnnstream.state.records.EdgeUpdate;
import io.gnnstream.state.records.NodeUpdate;
import io.gnnstream.state.records.Split;
import io.gnnstream.tools.formats.DatasetReader;
import io.gnnstream.tools.formats.DatasetReaders;
import io.gnnstream.tools.formats.FormatOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * A dataset folder held in memory (any {@link io.gnnstream.tools.formats.DatasetFormat}, read as
 * the project's lines): vertices numbered {@code 0..n-1} in the order of the node lines,
 * in-neighbours as CSR in the order of the edge lines, features parsed by the job's own {@link
 * NodeFormat} (so normalised exactly as the job normalises them; {@link RowNormalization#AUTO}
 * decided once from the dataset scan, {@link #normalization}), labels and splits. Edges that name a
 * vertex without a node line are skipped and counted.
 */
public final class DatasetGraph {

    public final long[] ids;
    public final int[] offsets;
    public final int[] neighbours;
    public final float[] features;
    public final int featureDim;
    public final int numClasses;
    public final int[] labels;
    public final Split[] splits;
    public final long skippedEdges;

    /**
     * The normalisation applied: {@link RowNormalization#TRUE} or {@link RowNormalization#FALSE}.
     */
    public final RowNormalization normalization;

    private DatasetGraph(
            long[] ids,
            int[] offsets,
            int[] neighbours,
            float[] features,
            int featureDim,
            int numClasses,
            int[] labels,
            Split[] splits,
            long skippedEdges,
            RowNormalization normalization) {
        this.normalization = normalization;
        this.ids = ids;
        this.offsets = offsets;
        this.neighbours = neighbours;
        this.features = features;
        this.featureDim = featureDim;
        this.numClasses = numClasses;
        this.labels = labels;
        this.splits = splits;
        this.skippedEdges = skippedEdges;
    }

    /** Reads {@code dir}; {@code normalize} as the job's {@code --normalize-features}. */
    public static DatasetGraph load(Path dir, boolean normalize) throws IOException {
        return load(dir, RowNormalization.of(normalize));
    }

    /** Reads {@code dir}; {@code normalize} as the job's {@code --normalize-features}. */
    public static DatasetGraph load(Path dir, RowNormalization normalize) throws IOException {
        return load(dir, FormatOptions.defaults(), normalize);
    }

    /**
     * Reads {@code dir} in the format of {@code options}; {@code normalize} as the job's {@code
     * --normalize-features}.
     */
    public static DatasetGraph load(Path dir, FormatOptions options, RowNormalization normalize)
            throws IOException {
        DatasetInfo info = DatasetInfo.scan(dir, options);
        DatasetReader reader = DatasetReaders.open(dir, options);
        int n = Math.toIntExact(info.nodes());
        int f = info.featureDim();
        RowNormalization decided = normalize.resolve(info.signedRows() > 0);
        NodeFormat nodes = new NodeFormat(f, info.numClasses(), decided);
        long[] ids = new long[n];
        float[] features = new float[Math.multiplyExact(n, f)];
        int[] labels = new int[n];
        Split[] splits = new Split[n];
        LongIntHashMap index = new LongIntHashMap(n);
        int[] count = {0};
        reader.nodes(
                line -> {
                    if (line.isBlank()) {
                        return;
                    }
                    NodeUpdate node = parse(nodes, line);
                    int v = index.getOrDefault(node.id, -1);
                    if (v < 0) {
                        v = count[0]++;
                        index.put(node.id, v);
                    }
                    ids[v] = node.id;
                    System.arraycopy(node.features, 0, features, v * f, f);
                    labels[v] = node.label;
                    splits[v] = node.split;
                });
        int vertices = count[0];
        EdgeFormat edgeFormat = new EdgeFormat();
        int[] degree = new int[vertices + 1];
        Edges edges = new Edges();
        reader.edges(
                line -> {
                    if (line.isBlank()) {
                        return;
                    }
                    EdgeUpdate e = parse(edgeFormat, line);
                    int src = index.getOrDefault(e.src, -1);
                    int dst = index.getOrDefault(e.dst, -1);
                    if (src < 0 || dst < 0 || e.remove) {
                        edges.skipped++;
                        return;
                    }
                    edges.add(src, dst);
                    degree[dst + 1]++;
                });
        for (int v = 0; v < vertices; v++) {
            degree[v + 1] += degree[v];
        }
        int[] fill = Arrays.copyOf(degree, vertices);
        int[] neighbours = new int[edges.count];
        for (int k = 0; k < edges.count; k++) {
            neighbours[fill[edges.dst[k]]++] = edges.src[k];
        }
        return new DatasetGraph(
                Arrays.copyOf(ids, vertices),
                degree,
                neighbours,
                Arrays.copyOf(features, vertices * f),
                f,
                info.numClasses(),
                Arrays.copyOf(labels, vertices),
                Arrays.copyOf(splits, vertices),
                edges.skipped,
                decided);
    }

    /** The kept edges as vertex indices, and how many were skipped. */
    private static final class Edges {
        int[] src = new int[1024];
        int[] dst = new int[1024];
        int count;
        long skipped;

        void add(int s, int d) {
            if (count == src.length) {
                src = Arrays.copyOf(src, count * 2);
                dst = Arrays.copyOf(dst, count * 2);
            }
            src[count] = s;
            dst[count++] = d;
        }
    }

    public int numVertices() {
        return ids.length;
    }

    /** The graph in the form {@link LayerwiseInference} takes, with its vertex ids. */
    public LayerwiseInference.Graph inferenceGraph() {
        return new LayerwiseInference.Graph(
                ids.length, offsets, neighbours, features, featureDim, ids);
    }

    /** The vertex indices of one split, ascending. */
    public int[] split(Split split) {
        return java.util.stream.IntStream.range(0, ids.length)
                .filter(v -> splits[v] == split)
                .toArray();
    }

    private static <T> T parse(io.gnnstream.connectors.RecordFormat<T> format, String line)
            throws IOException {
        try {
            return format.parse(line);
        } catch (InvalidRecordException e) {
            throw new IOException(
                    "bad line in dataset: "
                            + e.getMessage()
                            + ": "
                            + line.substring(0, Math.min(80, line.length())),
                    e);
        }
    }
}

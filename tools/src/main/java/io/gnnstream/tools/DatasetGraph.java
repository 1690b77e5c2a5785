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
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * A dataset folder held in memory: vertices numbered {@code 0..n-1} in the order of {@code
 * nodes.jsonl}, in-neighbours as CSR in the order of {@code edges.csv}, features parsed by the
 * job's own {@link NodeFormat} (so normalised exactly as the job normalises them), labels and
 * splits. Edges that name a vertex without a line in {@code nodes.jsonl} are skipped and counted.
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

    private DatasetGraph(
            long[] ids,
            int[] offsets,
            int[] neighbours,
            float[] features,
            int featureDim,
            int numClasses,
            int[] labels,
            Split[] splits,
            long skippedEdges) {
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
        DatasetInfo info = DatasetInfo.scan(dir);
        int n = Math.toIntExact(info.nodes());
        int f = info.featureDim();
        NodeFormat nodes = new NodeFormat(f, info.numClasses(), normalize);
        long[] ids = new long[n];
        float[] features = new float[n * f];
        int[] labels = new int[n];
        Split[] splits = new Split[n];
        LongIntHashMap index = new LongIntHashMap(n);
        int count = 0;
        try (BufferedReader r = Files.newBufferedReader(dir.resolve(DatasetInfo.NODES_FILE))) {
            for (String line; (line = r.readLine()) != null; ) {
                if (line.isBlank()) {
                    continue;
                }
                NodeUpdate node = parse(nodes, line);
                int v = index.getOrDefault(node.id, -1);
                if (v < 0) {
                    v = count++;
                    index.put(node.id, v);
                }
                ids[v] = node.id;
                System.arraycopy(node.features, 0, features, v * f, f);
                labels[v] = node.label;
                splits[v] = node.split;
            }
        }
        EdgeFormat edgeFormat = new EdgeFormat();
        int[] degree = new int[count + 1];
        long[][] edges = new long[2][1024];
        int numEdges = 0;
        long skipped = 0;
        try (BufferedReader r = Files.newBufferedReader(dir.resolve(DatasetInfo.EDGES_FILE))) {
            for (String line; (line = r.readLine()) != null; ) {
                if (line.isBlank()) {
                    continue;
                }
                EdgeUpdate e = parse(edgeFormat, line);
                int src = index.getOrDefault(e.src, -1);
                int dst = index.getOrDefault(e.dst, -1);
                if (src < 0 || dst < 0 || e.remove) {
                    skipped++;
                    continue;
                }
                if (numEdges == edges[0].length) {
                    edges[0] = Arrays.copyOf(edges[0], numEdges * 2);
                    edges[1] = Arrays.copyOf(edges[1], numEdges * 2);
                }
                edges[0][numEdges] = src;
                edges[1][numEdges++] = dst;
                degree[dst + 1]++;
            }
        }
        for (int v = 0; v < count; v++) {
            degree[v + 1] += degree[v];
        }
        int[] fill = Arrays.copyOf(degree, count);
        int[] neighbours = new int[numEdges];
        for (int k = 0; k < numEdges; k++) {
            neighbours[fill[(int) edges[1][k]]++] = (int) edges[0][k];
        }
        return new DatasetGraph(
                Arrays.copyOf(ids, count),
                degree,
                neighbours,
                Arrays.copyOf(features, count * f),
                f,
                info.numClasses(),
                Arrays.copyOf(labels, count),
                Arrays.copyOf(splits, count),
                skipped);
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

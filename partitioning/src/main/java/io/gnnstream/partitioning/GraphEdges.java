package io.gnnstream.partitioning;

import com.carrotsearch.hppc.LongArrayList;
import com.carrotsearch.hppc.LongIntHashMap;
import io.gnnstream.connectors.EdgeFormat;
import io.gnnstream.connectors.InvalidRecordException;
import io.gnnstream.connectors.NodeFormat;
import io.gnnstream.state.records.EdgeUpdate;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * A graph held in memory for scoring and repairing an assignment: vertex ids in ascending order,
 * the directed edges as index pairs, and an undirected adjacency (CSR) over them. Edge lines are
 * read with the job's own {@link EdgeFormat}; removals and unreadable lines are counted, not used.
 */
public final class GraphEdges {

    private final long[] ids;
    private final int[] src;
    private final int[] dst;
    private final int[] offsets;
    private final int[] neighbours;
    private final long rejected;
    private final long removals;

    private GraphEdges(long[] ids, int[] src, int[] dst, long rejected, long removals) {
        this.ids = ids;
        this.src = src;
        this.dst = dst;
        this.rejected = rejected;
        this.removals = removals;
        int n = ids.length;
        offsets = new int[n + 1];
        for (int e = 0; e < src.length; e++) {
            offsets[src[e] + 1]++;
            offsets[dst[e] + 1]++;
        }
        for (int v = 0; v < n; v++) {
            offsets[v + 1] += offsets[v];
        }
        neighbours = new int[offsets[n]];
        int[] fill = Arrays.copyOf(offsets, n);
        for (int e = 0; e < src.length; e++) {
            neighbours[fill[src[e]]++] = dst[e];
            neighbours[fill[dst[e]]++] = src[e];
        }
    }

    /**
     * The edges of {@code edgesFile}, plus the vertices of {@code nodesFile} (may be null) that
     * have no edge.
     */
    public static GraphEdges read(Path edgesFile, Path nodesFile) throws IOException {
        EdgeFormat format = new EdgeFormat();
        LongArrayList s = new LongArrayList();
        LongArrayList d = new LongArrayList();
        long rejected = 0;
        long removals = 0;
        try (BufferedReader r = Files.newBufferedReader(edgesFile, StandardCharsets.UTF_8)) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (line.isBlank()) {
                    continue;
                }
                try {
                    EdgeUpdate e = format.parse(line);
                    if (e.remove) {
                        removals++;
                    } else {
                        s.add(e.src);
                        d.add(e.dst);
                    }
                } catch (InvalidRecordException bad) {
                    rejected++;
                }
            }
        }
        LongArrayList vertices = new LongArrayList(s.size() + d.size());
        vertices.addAll(s);
        vertices.addAll(d);
        if (nodesFile != null) {
            try (BufferedReader r = Files.newBufferedReader(nodesFile, StandardCharsets.UTF_8)) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    long id = line.isBlank() ? -1 : NodeFormat.idOf(line);
                    if (id >= 0) {
                        vertices.add(id);
                    }
                }
            }
        }
        long[] ids = Arrays.stream(vertices.toArray()).sorted().distinct().toArray();
        LongIntHashMap index = new LongIntHashMap(ids.length);
        for (int i = 0; i < ids.length; i++) {
            index.put(ids[i], i);
        }
        int[] si = new int[s.size()];
        int[] di = new int[d.size()];
        for (int e = 0; e < si.length; e++) {
            si[e] = index.get(s.get(e));
            di[e] = index.get(d.get(e));
        }
        return new GraphEdges(ids, si, di, rejected, removals);
    }

    /** A graph of the given directed edges over vertices {@code 0..n-1} (tests). */
    public static GraphEdges of(int n, int[] src, int[] dst) {
        long[] ids = new long[n];
        Arrays.setAll(ids, i -> i);
        return new GraphEdges(ids, src.clone(), dst.clone(), 0, 0);
    }

    public int vertexCount() {
        return ids.length;
    }

    public int edgeCount() {
        return src.length;
    }

    public long id(int vertex) {
        return ids[vertex];
    }

    /** The index of a vertex id, or a negative number when the graph does not hold it. */
    public int indexOf(long id) {
        return Arrays.binarySearch(ids, id);
    }

    public int src(int edge) {
        return src[edge];
    }

    public int dst(int edge) {
        return dst[edge];
    }

    /** Undirected degree: in- plus out-edges. */
    public int degree(int vertex) {
        return offsets[vertex + 1] - offsets[vertex];
    }

    public int neighbour(int vertex, int i) {
        return neighbours[offsets[vertex] + i];
    }

    /** Edge lines that did not parse. */
    public long rejected() {
        return rejected;
    }

    /** Removal lines (a partition is computed for the added edges). */
    public long removals() {
        return removals;
    }
}

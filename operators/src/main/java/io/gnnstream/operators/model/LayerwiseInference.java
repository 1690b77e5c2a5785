package io.gnnstream.operators.model;

import com.carrotsearch.hppc.IntIntHashMap;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.state.EvalNeighbourhood;
import java.util.Arrays;

/**
 * Layer-wise full-neighbour inference over a whole graph held in memory (PyG's {@code
 * SAGE.inference} with a one-hop {@code NeighborLoader(num_neighbors=[-1])}): layer 1 for every
 * vertex, then layer 2 from those embeddings, and so on, in chunks of destination vertices. It runs
 * the same {@link GnnModel#inferLayer} (or {@link GnnModel#inferProjected} on projected rows, see
 * {@link ModelConfig#projectsRoundInput}) on the same one-hop blocks as the job's evaluation
 * rounds, over the same neighbourhoods ({@link EvalNeighbourhood} under the eval fanout), so an
 * exported model scores a dataset offline as the job did.
 */
public final class LayerwiseInference {

    private LayerwiseInference() {}

    /**
     * A graph as in-neighbour CSR over vertex indices {@code 0..n-1}: the in-neighbours of vertex
     * {@code v} are {@code neighbours[offsets[v] .. offsets[v+1]-1]}; {@code features} is row-major
     * {@code n x featureDim}; {@code ids} the vertex ids by index, which rank a hub's neighbours
     * ({@link EvalNeighbourhood}), or null where index and id are the same.
     */
    public record Graph(
            int numVertices,
            int[] offsets,
            int[] neighbours,
            float[] features,
            int featureDim,
            long[] ids) {
        public Graph {
            if (offsets.length != numVertices + 1
                    || features.length != (long) numVertices * featureDim
                    || (ids != null && ids.length != numVertices)) {
                throw new IllegalArgumentException(
                        "graph arrays do not match "
                                + numVertices
                                + " vertices of "
                                + featureDim
                                + " features");
            }
        }

        /** A graph whose vertex ids are its indices. */
        public Graph(
                int numVertices,
                int[] offsets,
                int[] neighbours,
                float[] features,
                int featureDim) {
            this(numVertices, offsets, neighbours, features, featureDim, null);
        }

        /** The id of the vertex of index {@code v}. */
        public long id(int v) {
            return ids == null ? v : ids[v];
        }
    }

    /**
     * The output of every layer: {@code layers[j]} is {@code n x layerOut(j)}, the last the logits.
     */
    public record Outputs(float[][] layers, int numClasses) {
        public float[] logits() {
            return layers[layers.length - 1];
        }

        /**
         * The last hidden layer (the input of the classifier layer); the features for one layer.
         */
        public float[] lastHidden(float[] features) {
            return layers.length == 1 ? features : layers[layers.length - 2];
        }
    }

    /** {@link #run(GnnModel, Graph, int, int)} under the default eval fanout. */
    public static Outputs run(GnnModel model, Graph graph, int chunk) {
        return run(model, graph, chunk, EvalNeighbourhood.DEFAULT_FANOUT);
    }

    /**
     * Runs every layer of {@code model} over {@code graph}, {@code chunk} destination vertices at a
     * time, each vertex aggregating its {@link EvalNeighbourhood} under {@code evalFanout} ({@code
     * -1}: all in-neighbours).
     */
    public static Outputs run(GnnModel model, Graph graph, int chunk, int evalFanout) {
        if (chunk < 1) {
            throw new IllegalArgumentException("chunk must be >= 1, got " + chunk);
        }
        if (evalFanout < -1) {
            throw new IllegalArgumentException(
                    "evalFanout must be >= 0 or -1 (all), got " + evalFanout);
        }
        ModelConfig config = model.config();
        if (config.inFeatures() != graph.featureDim()) {
            throw new IllegalArgumentException(
                    "model takes "
                            + config.inFeatures()
                            + " features, graph has "
                            + graph.featureDim());
        }
        int n = graph.numVertices();
        Graph g = neighbourhoods(graph, evalFanout);
        float[][] layers = new float[config.numLayers()][];
        float[] input = g.features();
        int[] stamp = new int[n];
        Arrays.fill(stamp, -1);
        int mark = 0;
        for (int j = 0; j < config.numLayers(); j++) {
            boolean projected = config.projectsRoundInput(j, false);
            int in = config.roundRowWidth(j, false);
            int out = config.layerOut(j);
            float[] source = projected ? model.project(j, input, n) : input;
            float[] output = new float[n * out];
            for (int from = 0; from < n; from += chunk) {
                int to = Math.min(n, from + chunk);
                int[] nodes = blockNodes(g, from, to, stamp, mark++);
                MiniBatch block = block(g, from, to, nodes);
                float[] rows = new float[block.numSrc(1) * in];
                for (int i = 0; i < block.numSrc(1); i++) {
                    System.arraycopy(source, nodes[i] * in, rows, i * in, in);
                }
                float[] result =
                        projected
                                ? model.inferProjected(j, block, rows)
                                : model.inferLayer(j, block, rows);
                System.arraycopy(result, 0, output, from * out, (to - from) * out);
            }
            layers[j] = output;
            input = output;
        }
        return new Outputs(layers, config.numClasses());
    }

    /**
     * {@code g} with each vertex's in-neighbours cut to its {@link EvalNeighbourhood} under {@code
     * fanout} (a hub's in ascending order of rank, as the GraphStore answers); {@code g} itself
     * when no vertex has more.
     */
    static Graph neighbourhoods(Graph g, int fanout) {
        int n = g.numVertices();
        int[] offsets = g.offsets();
        boolean any = false;
        for (int v = 0; v < n && !any; v++) {
            any = EvalNeighbourhood.selects(offsets[v + 1] - offsets[v], fanout);
        }
        if (!any) {
            return g;
        }
        int[] cut = new int[n + 1];
        for (int v = 0; v < n; v++) {
            cut[v + 1] = cut[v] + Math.min(offsets[v + 1] - offsets[v], fanout);
        }
        int[] neighbours = new int[cut[n]];
        for (int v = 0; v < n; v++) {
            int start = offsets[v];
            int degree = offsets[v + 1] - start;
            if (!EvalNeighbourhood.selects(degree, fanout)) {
                System.arraycopy(g.neighbours(), start, neighbours, cut[v], degree);
                continue;
            }
            long[] ids = new long[degree];
            for (int k = 0; k < degree; k++) {
                ids[k] = g.id(g.neighbours()[start + k]);
            }
            int[] chosen = EvalNeighbourhood.select(g.id(v), ids, fanout);
            for (int k = 0; k < chosen.length; k++) {
                neighbours[cut[v] + k] = g.neighbours()[start + chosen[k]];
            }
        }
        return new Graph(n, cut, neighbours, g.features(), g.featureDim(), g.ids());
    }

    /** Destinations {@code from..to-1} first, then their in-neighbours in first-seen order. */
    private static int[] blockNodes(Graph g, int from, int to, int[] stamp, int mark) {
        int[] nodes = new int[Math.max(16, 2 * (to - from))];
        int count = 0;
        for (int v = from; v < to; v++) {
            stamp[v] = mark;
            nodes[count++] = v;
        }
        for (int v = from; v < to; v++) {
            for (int k = g.offsets()[v]; k < g.offsets()[v + 1]; k++) {
                int u = g.neighbours()[k];
                if (stamp[u] != mark) {
                    stamp[u] = mark;
                    if (count == nodes.length) {
                        nodes = Arrays.copyOf(nodes, nodes.length * 2);
                    }
                    nodes[count++] = u;
                }
            }
        }
        return Arrays.copyOf(nodes, count);
    }

    private static MiniBatch block(Graph g, int from, int to, int[] nodes) {
        int nDst = to - from;
        MiniBatch b = new MiniBatch();
        b.numLayers = 1;
        b.nodeCounts = new int[] {nDst, nodes.length};
        b.nodeIds = new long[nodes.length];
        for (int i = 0; i < nodes.length; i++) {
            b.nodeIds[i] = g.id(nodes[i]);
        }
        b.indptr = new int[nDst + 1];
        b.indptrOffsets = new int[] {0};
        b.indicesOffsets = new int[] {0};
        b.indices = new int[g.offsets()[to] - g.offsets()[from]];
        IndexOf indexOf = new IndexOf(nodes);
        for (int i = 0; i < nDst; i++) {
            int v = from + i;
            int e = b.indptr[i];
            for (int k = g.offsets()[v]; k < g.offsets()[v + 1]; k++) {
                b.indices[e++] = indexOf.of(g.neighbours()[k]);
            }
            b.indptr[i + 1] = e;
        }
        b.degrees = new int[nodes.length];
        for (int i = 0; i < nodes.length; i++) {
            b.degrees[i] = g.offsets()[nodes[i] + 1] - g.offsets()[nodes[i]] + 1;
        }
        b.featureDim = g.featureDim();
        b.labels = new int[nDst];
        Arrays.fill(b.labels, MiniBatch.NO_LABEL);
        return b;
    }

    /** Position of a vertex index in a block's node list. */
    private static final class IndexOf {
        private final IntIntHashMap map = new IntIntHashMap();

        IndexOf(int[] nodes) {
            for (int i = 0; i < nodes.length; i++) {
                map.put(nodes[i], i);
            }
        }

        int of(int vertex) {
            return map.get(vertex);
        }
    }
}

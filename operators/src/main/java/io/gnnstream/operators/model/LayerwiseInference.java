package io.gnnstream.operators.model;

import com.carrotsearch.hppc.IntIntHashMap;
import io.gnnstream.operators.messages.MiniBatch;
import java.util.Arrays;

/**
 * Layer-wise full-neighbour inference over a whole graph held in memory (PyG's {@code
 * SAGE.inference} with a one-hop {@code NeighborLoader(num_neighbors=[-1])}): layer 1 for every
 * vertex, then layer 2 from those embeddings, and so on, in chunks of destination vertices. It runs
 * the same {@link GnnModel#inferLayer} (or {@link GnnModel#inferProjected} on projected rows, see
 * {@link ModelConfig#projectsRoundInput}) on the same one-hop blocks as the job's evaluation
 * rounds, so an exported model scores a dataset offline as the job did.
 */
public final class LayerwiseInference {

    private LayerwiseInference() {}

    /**
     * A graph as in-neighbour CSR over vertex indices {@code 0..n-1}: the in-neighbours of vertex
     * {@code v} are {@code neighbours[offsets[v] .. offsets[v+1]-1]}; {@code features} is row-major
     * {@code n x featureDim}.
     */
    public record Graph(
            int numVertices, int[] offsets, int[] neighbours, float[] features, int featureDim) {
        public Graph {
            if (offsets.length != numVertices + 1
                    || features.length != (long) numVertices * featureDim) {
                throw new IllegalArgumentException(
                        "graph arrays do not match "
                                + numVertices
                                + " vertices of "
                                + featureDim
                                + " features");
            }
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

    /**
     * Runs every layer of {@code model} over {@code graph}, {@code chunk} destination vertices at a
     * time.
     */
    public static Outputs run(GnnModel model, Graph graph, int chunk) {
        if (chunk < 1) {
            throw new IllegalArgumentException("chunk must be >= 1, got " + chunk);
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
        float[][] layers = new float[config.numLayers()][];
        float[] input = graph.features();
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
                int[] nodes = blockNodes(graph, from, to, stamp, mark++);
                MiniBatch block = block(graph, from, to, nodes);
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
            b.nodeIds[i] = nodes[i];
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

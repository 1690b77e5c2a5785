package io.gnnstream.operators.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.state.EvalNeighbourhood;
import java.util.Arrays;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every model type's layer-wise full-neighbour inference against a dense reference, also with hubs
 * above the eval fanout.
 */
class LayerwiseInferenceTest {

    private static final int N = 60;
    private static final int F = 5;

    private static ModelConfig config(ModelCase c, int inFeatures, int layers) {
        return config(c, inFeatures, layers, 6);
    }

    private static ModelConfig config(ModelCase c, int inFeatures, int layers, int hidden) {
        return c.config()
                .inFeatures(inFeatures)
                .hidden(hidden)
                .numClasses(3)
                .numLayers(layers)
                .dropout(0.5)
                .learningRate(0.01)
                .seed(9)
                .build();
    }

    private static float[] randomParams(int n) {
        float[] params = new float[n];
        SplittableRandom random = new SplittableRandom(5);
        for (int i = 0; i < params.length; i++) {
            params[i] = (float) (random.nextDouble() - 0.5);
        }
        return params;
    }

    /**
     * Layers, destinations per chunk, hidden width (16: the layers after the first read projected
     * rows, see {@link ModelConfig#projectsRoundInput}).
     */
    private static Stream<Arguments> cases() {
        return ModelCase.crossed(
                new Object[] {1, 7, 6},
                new Object[] {2, 7, 6},
                new Object[] {2, 60, 6},
                new Object[] {3, 13, 6},
                new Object[] {2, 7, 16},
                new Object[] {3, 13, 16});
    }

    @ParameterizedTest(name = "{0} layers={1} chunk={2} hidden={3}")
    @MethodSource("cases")
    void matchesDenseReference(ModelCase c, int layers, int chunk, int hidden) {
        TestGraphs.Graph g = TestGraphs.random(N, F, 3, 6, 5, 3);
        ModelConfig cfg = config(c, F, layers, hidden);
        try (GnnModel model = GnnModel.create(cfg)) {
            float[] params = randomParams(cfg.numParameters());
            model.setParameterVector(params);
            LayerwiseInference.Outputs outputs = LayerwiseInference.run(model, graph(g), chunk);
            double[][][] expected = c.reference().dense(cfg, ReferenceModel.toDouble(params), g);
            assertSame(outputs.layers()[layers - 1], outputs.logits());
            for (int j = 0; j < layers; j++) {
                int out = cfg.layerOut(j);
                float[] got = outputs.layers()[j];
                for (int v = 0; v < N; v++) {
                    for (int k = 0; k < out; k++) {
                        assertEquals(
                                expected[j][v][k],
                                got[v * out + k],
                                1e-5,
                                "layer " + j + " vertex " + v + " column " + k);
                    }
                }
            }
        }
    }

    /**
     * Hubs above the eval fanout aggregate their bottom-k in-neighbours by rank of the vertex ids
     * (not the indices): the dense reference over those neighbourhoods, selected by a sort.
     */
    @ParameterizedTest(name = "{0} layers={1} chunk={2} hidden={3}")
    @MethodSource("cases")
    void hubsAboveTheEvalFanoutMatchTheDenseReferenceOverTheirBottomK(
            ModelCase c, int layers, int chunk, int hidden) {
        int fanout = 8;
        TestGraphs.Graph random = TestGraphs.random(N, F, 3, 6, 5, 3);
        int[][] nbrs = random.inNbrs().clone();
        SplittableRandom r = new SplittableRandom(17);
        for (int hub : new int[] {3, 10, 11, 25, 59}) {
            nbrs[hub] = r.ints(0, N).distinct().limit(12 + r.nextInt(40)).toArray();
        }
        long[] ids = new long[N];
        Arrays.setAll(ids, v -> 1_000_003L * (N - v) + 7);
        int[][] cut = new int[N][];
        for (int v = 0; v < N; v++) {
            long id = ids[v];
            cut[v] =
                    nbrs[v].length <= fanout
                            ? nbrs[v]
                            : Arrays.stream(nbrs[v])
                                    .boxed()
                                    .sorted(
                                            Comparator.<Integer>comparingLong(
                                                            u -> EvalNeighbourhood.rank(id, ids[u]))
                                                    .thenComparingLong(u -> ids[u]))
                                    .limit(fanout)
                                    .mapToInt(Integer::intValue)
                                    .toArray();
        }
        TestGraphs.Graph full = new TestGraphs.Graph(nbrs, random.features(), F, random.labels());
        TestGraphs.Graph bottomK = new TestGraphs.Graph(cut, random.features(), F, random.labels());
        ModelConfig cfg = config(c, F, layers, hidden);
        try (GnnModel model = GnnModel.create(cfg)) {
            float[] params = randomParams(cfg.numParameters());
            model.setParameterVector(params);
            LayerwiseInference.Graph g = graph(full, ids);
            LayerwiseInference.Outputs outputs = LayerwiseInference.run(model, g, chunk, fanout);
            double[][][] expected =
                    c.reference().dense(cfg, ReferenceModel.toDouble(params), bottomK);
            for (int j = 0; j < layers; j++) {
                int out = cfg.layerOut(j);
                float[] got = outputs.layers()[j];
                for (int v = 0; v < N; v++) {
                    for (int k = 0; k < out; k++) {
                        assertEquals(
                                expected[j][v][k],
                                got[v * out + k],
                                1e-5,
                                "layer " + j + " vertex " + v + " column " + k);
                    }
                }
            }
            assertFalse(
                    Arrays.equals(
                            outputs.layers()[0],
                            LayerwiseInference.run(model, g, chunk, -1).layers()[0]),
                    "the hubs' full neighbourhoods give other outputs");
            assertArrayEquals(
                    outputs.logits(),
                    LayerwiseInference.run(model, graph(bottomK, ids), chunk, -1).logits(),
                    "the cut graph itself, by all its neighbours");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(ModelCase.ALL)
    void rejectsAGraphOfAnotherFeatureWidth(ModelCase c) {
        TestGraphs.Graph g = TestGraphs.random(N, F, 3, 6, 5, 3);
        try (GnnModel model = GnnModel.create(config(c, F + 1, 2))) {
            assertThrows(
                    IllegalArgumentException.class,
                    () -> LayerwiseInference.run(model, graph(g), 8));
        }
    }

    /** A block with no destinations (an empty chunk of a round) gives an empty result. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(ModelType.class)
    void emptyBlockGivesNoRows(ModelType type) {
        try (GnnModel model = GnnModel.create(config(ModelCase.of(type), F, 2))) {
            MiniBatch b = new MiniBatch();
            b.numLayers = 1;
            b.nodeCounts = new int[] {0, 0};
            b.indptr = new int[] {0};
            b.indptrOffsets = new int[] {0};
            b.indices = new int[0];
            b.indicesOffsets = new int[] {0};
            assertEquals(0, model.inferLayer(1, b, new float[0]).length);
        }
    }

    /**
     * Projecting a layer's input rows and aggregating the projections gives the layer's output on
     * the rows (GAT's projection is the rows); the whole-graph round gives the same logits.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource(ModelCase.ALL)
    void projectedRowsGiveTheLayerOutput(ModelCase c) {
        TestGraphs.Graph g = TestGraphs.random(N, F, 3, 6, 5, 3);
        ModelConfig cfg = config(c, F, 2, 16);
        assertEquals(
                c.type().architecture().projectsRows(),
                cfg.projectsRoundInput(1, false),
                "narrow layers read projections unless attention needs the rows");
        assertFalse(cfg.projectsRoundInput(1, true), "embeddings keep the hidden rows");
        assertFalse(cfg.projectsRoundInput(0, false), "features are never projected");
        try (GnnModel model = GnnModel.create(cfg)) {
            model.setParameterVector(randomParams(cfg.numParameters()));
            LayerwiseInference.Outputs round = LayerwiseInference.run(model, graph(g), 60);
            float[] hidden = round.layers()[0];
            float[] projected = model.project(1, hidden, N);
            assertEquals(N * cfg.roundRowWidth(1, false), projected.length);
            MiniBatch block = wholeGraph(graph(g));
            float[] direct = model.inferLayer(1, block, hidden);
            float[] viaProjection = model.inferProjected(1, block, projected);
            assertEquals(direct.length, round.logits().length);
            for (int i = 0; i < direct.length; i++) {
                assertEquals(direct[i], viaProjection[i], 1e-5, "logit " + i);
                assertEquals(direct[i], round.logits()[i], 1e-5, "round logit " + i);
            }
        }
    }

    /**
     * SAGE rows whose root part carries some neighbours' rest parts over the degree (summed where
     * they are stored, see {@link MiniBatch#summedNeighbours}) give the layer output of the whole
     * block, the other neighbours aggregated by the model over the same degree.
     */
    @Test
    void neighboursSummedAtTheirOwnerGiveTheSameOutput() {
        TestGraphs.Graph g = TestGraphs.random(N, F, 3, 6, 5, 3);
        ModelConfig cfg = config(ModelCase.of(ModelType.SAGE), F, 2, 16);
        int root = cfg.roundRootWidth(1, false);
        int width = cfg.roundRowWidth(1, false);
        assertEquals(2 * root, width);
        try (GnnModel model = GnnModel.create(cfg)) {
            model.setParameterVector(randomParams(cfg.numParameters()));
            float[] hidden = LayerwiseInference.run(model, graph(g), 60).layers()[0];
            float[] projected = model.project(1, hidden, N);
            MiniBatch whole = wholeGraph(graph(g));
            float[] expected = model.inferProjected(1, whole, projected);

            // Even vertices are stored where their destinations are sampled.
            MiniBatch split = wholeGraph(graph(g));
            float[] rows = projected.clone();
            split.summedNeighbours = new int[N];
            int[] indptr = new int[N + 1];
            int[] indices = new int[whole.indices.length];
            int e = 0;
            for (int v = 0; v < N; v++) {
                int degree = whole.edgeEnd(1, v) - whole.edgeStart(1, v);
                float[] sum = new float[root];
                for (int k = whole.edgeStart(1, v); k < whole.edgeEnd(1, v); k++) {
                    int u = whole.indices[k];
                    if (u % 2 == 0) {
                        split.summedNeighbours[v]++;
                        for (int c = 0; c < root; c++) {
                            sum[c] += projected[u * width + root + c];
                        }
                    } else {
                        indices[e++] = u;
                    }
                }
                for (int c = 0; c < root && degree > 0; c++) {
                    rows[v * width + c] += sum[c] * (1f / degree);
                }
                indptr[v + 1] = e;
            }
            split.setBlocks(new int[][] {indptr}, new int[][] {Arrays.copyOf(indices, e)});
            assertTrue(Arrays.stream(split.summedNeighbours).sum() > 0);
            float[] got = model.inferProjected(1, split, rows);
            for (int i = 0; i < expected.length; i++) {
                assertEquals(expected[i], got[i], 1e-5, "logit " + i);
            }
        }
    }

    /** One block whose destinations and sources are every vertex, in order. */
    static MiniBatch wholeGraph(LayerwiseInference.Graph g) {
        int n = g.numVertices();
        MiniBatch b = new MiniBatch();
        b.numLayers = 1;
        b.nodeCounts = new int[] {n, n};
        b.nodeIds = new long[n];
        for (int i = 0; i < n; i++) {
            b.nodeIds[i] = i;
        }
        b.indptr = g.offsets().clone();
        b.indptrOffsets = new int[] {0};
        b.indices = g.neighbours().clone();
        b.indicesOffsets = new int[] {0};
        return b;
    }

    static LayerwiseInference.Graph graph(TestGraphs.Graph g) {
        return graph(g, null);
    }

    static LayerwiseInference.Graph graph(TestGraphs.Graph g, long[] ids) {
        int n = g.inNbrs().length;
        int[] offsets = new int[n + 1];
        for (int v = 0; v < n; v++) {
            offsets[v + 1] = offsets[v] + g.inNbrs()[v].length;
        }
        int[] neighbours = new int[offsets[n]];
        for (int v = 0; v < n; v++) {
            System.arraycopy(g.inNbrs()[v], 0, neighbours, offsets[v], g.inNbrs()[v].length);
        }
        return new LayerwiseInference.Graph(
                n, offsets, neighbours, g.features(), g.featureDim(), ids);
    }
}

package io.gnnstream.operators.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.PredictionBatch;
import io.gnnstream.operators.model.ClassProbabilities;
import io.gnnstream.operators.model.GnnModel;
import io.gnnstream.operators.model.LayerwiseInference;
import io.gnnstream.operators.model.ModelConfig;
import io.gnnstream.operators.model.ModelType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The trainer's layer-wise round, fed the one-hop blocks the scheduler and assembler would send
 * (layer by layer, chunks of destinations), gives exactly the model's full-neighbour output of
 * {@link LayerwiseInference} and a prediction per vertex, also when the round is checkpointed and
 * restored between two passes.
 */
class InferenceRoundTest {

    private static final int N = 50;
    private static final int F = 6;
    private static final int CLASSES = 3;

    @ParameterizedTest
    @EnumSource(ModelType.class)
    void matchesWholeGraphInferenceAndSurvivesARestoreBetweenPasses(ModelType type) {
        Random r = new Random(4);
        int[][] nbrs = new int[N][];
        for (int v = 0; v < N; v++) {
            nbrs[v] = new int[v % 7 == 0 ? 0 : 1 + r.nextInt(5)];
            for (int k = 0; k < nbrs[v].length; k++) {
                nbrs[v][k] = r.nextInt(N);
            }
        }
        float[] x = new float[N * F];
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) r.nextGaussian();
        }
        ModelConfig cfg = ModelConfig.builder().modelType(type).inFeatures(F).hidden(5).numClasses(CLASSES)
                .numLayers(2).dropout(0.5).learningRate(0.01).seed(3).build();
        try (GnnModel model = GnnModel.create(cfg)) {
            float[] expected = LayerwiseInference.run(model, graph(nbrs, x), 8).logits();

            InferenceRound round = new InferenceRound(cfg, true, true);
            for (int from = 0; from < N; from += 16) {
                round.compute(model, block(nbrs, x, 1, from, Math.min(N, from + 16), MiniBatch.Kind.INFER));
            }
            // A restore between the passes: the tables come back from the checkpoint.
            InferenceRound restored = new InferenceRound(cfg, true, true);
            restored.restore(round.snapshot());
            Map<Long, float[]> probs = new HashMap<>();
            for (int from = 0; from < N; from += 16) {
                InferenceRound.Outcome out = restored.compute(model,
                        block(nbrs, x, 2, from, Math.min(N, from + 16), MiniBatch.Kind.EVAL_TEST));
                assertEquals(0, out.missingRows());
                PredictionBatch p = out.predictions();
                assertEquals(5, p.embeddingDim);
                for (int i = 0; i < p.size(); i++) {
                    probs.put(p.vertices[i], Arrays.copyOfRange(p.probs, i * CLASSES, (i + 1) * CLASSES));
                    assertEquals(ClassProbabilities.argmax(expected, (int) p.vertices[i], CLASSES), p.labels[i]);
                }
            }
            assertEquals(N, probs.size());
            for (int v = 0; v < N; v++) {
                assertArrayEquals(ClassProbabilities.softmax(expected, v, CLASSES), probs.get((long) v), 1e-6f);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(ModelType.class)
    void withoutPredictionsOnlyScoresAndCountsMissingRows(ModelType type) {
        int[][] nbrs = {{1}, {0, 2}, {1}};
        float[] x = new float[3 * F];
        Arrays.fill(x, 0.5f);
        ModelConfig cfg = ModelConfig.builder().modelType(type).inFeatures(F).hidden(4).numClasses(CLASSES)
                .numLayers(2).dropout(0).learningRate(0.01).seed(3).build();
        try (GnnModel model = GnnModel.create(cfg)) {
            InferenceRound round = new InferenceRound(cfg, false, false);
            round.compute(model, block(nbrs, x, 1, 0, 2, MiniBatch.Kind.INFER));
            // Vertex 2 has no layer-1 row: it counts as zeros and is counted.
            InferenceRound.Outcome out = round.compute(model, block(nbrs, x, 2, 0, 3, MiniBatch.Kind.EVAL_VAL));
            assertEquals(1, out.missingRows());
            assertNull(out.predictions());
            assertEquals(3, out.eval().numSeeds());
        }
    }

    private static LayerwiseInference.Graph graph(int[][] nbrs, float[] x) {
        int[] offsets = new int[nbrs.length + 1];
        for (int v = 0; v < nbrs.length; v++) {
            offsets[v + 1] = offsets[v] + nbrs[v].length;
        }
        int[] flat = new int[offsets[nbrs.length]];
        for (int v = 0; v < nbrs.length; v++) {
            System.arraycopy(nbrs[v], 0, flat, offsets[v], nbrs[v].length);
        }
        return new LayerwiseInference.Graph(nbrs.length, offsets, flat, x, F);
    }

    /** A one-hop block of destinations {@code from..to-1} over all in-neighbours, as the assembler builds it. */
    private static MiniBatch block(int[][] nbrs, float[] x, int layer, int from, int to, MiniBatch.Kind kind) {
        List<Integer> nodes = new ArrayList<>();
        Map<Integer, Integer> pos = new HashMap<>();
        for (int v = from; v < to; v++) {
            pos.put(v, nodes.size());
            nodes.add(v);
        }
        List<Integer> indices = new ArrayList<>();
        int[] indptr = new int[to - from + 1];
        for (int v = from; v < to; v++) {
            for (int u : nbrs[v]) {
                indices.add(pos.computeIfAbsent(u, k -> {
                    nodes.add(k);
                    return nodes.size() - 1;
                }));
            }
            indptr[v - from + 1] = indices.size();
        }
        MiniBatch b = new MiniBatch();
        b.kind = kind;
        b.layer = layer;
        b.step = 7;
        b.numLayers = 1;
        b.nodeCounts = new int[] {to - from, nodes.size()};
        b.nodeIds = nodes.stream().mapToLong(Integer::longValue).toArray();
        b.indptr = indptr;
        b.indptrOffsets = new int[] {0};
        b.indices = indices.stream().mapToInt(Integer::intValue).toArray();
        b.indicesOffsets = new int[] {0};
        b.featureDim = F;
        int rows = layer == 1 ? nodes.size() : to - from;
        b.features = new float[rows * F];
        for (int i = 0; i < rows; i++) {
            System.arraycopy(x, nodes.get(i) * F, b.features, i * F, F);
        }
        b.labels = new int[to - from];
        for (int i = 0; i < b.labels.length; i++) {
            b.labels[i] = (from + i) % CLASSES;
        }
        return b;
    }
}

package io.gnnstream.operators.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.gnnstream.operators.messages.LayerOutputs;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.PredictionBatch;
import io.gnnstream.operators.model.ClassProbabilities;
import io.gnnstream.operators.model.GnnModel;
import io.gnnstream.operators.model.LayerwiseInference;
import io.gnnstream.operators.model.ModelConfig;
import io.gnnstream.operators.model.ModelType;
import io.gnnstream.state.HashPartitioner;
import io.gnnstream.state.StoreSites;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A rank's side of a layer-wise round, fed the one-hop blocks the scheduler and assembler would
 * send (layer by layer, chunks of destinations), with a later layer's source rows read from the
 * outputs the earlier layer's blocks handed to the GraphStore (by another rank, holding nothing of
 * the round), gives exactly the model's full-neighbour output of {@link LayerwiseInference} and a
 * prediction per vertex.
 */
class InferenceRoundTest {

    private static final int N = 50;
    private static final int F = 6;
    private static final int CLASSES = 3;

    /**
     * With embeddings the store keeps the hidden rows; without them and a hidden layer of 8 both
     * types store the last layer's narrower projections.
     */
    @ParameterizedTest(name = "{0} embeddings={1}")
    @CsvSource({"SAGE,true", "GCN,true", "SAGE,false", "GCN,false"})
    void matchesWholeGraphInferenceThroughTheStoredLayerOutputs(
            ModelType type, boolean embeddings) {
        int hidden = embeddings ? 5 : 8;
        Random r = new Random(4);
        int[][] nbrs = neighbours(r);
        float[] x = features(r);
        ModelConfig cfg =
                ModelConfig.builder()
                        .modelType(type)
                        .inFeatures(F)
                        .hidden(hidden)
                        .numClasses(CLASSES)
                        .numLayers(2)
                        .dropout(0.5)
                        .learningRate(0.01)
                        .seed(3)
                        .build();
        HashPartitioner partitioner = new HashPartitioner(8);
        StoreSites sites = new StoreSites(8, 2);
        try (GnnModel model = GnnModel.create(cfg)) {
            float[] expected = LayerwiseInference.run(model, graph(nbrs, x), 8).logits();
            int width = cfg.roundRowWidth(1, embeddings);
            assertEquals(embeddings ? hidden : (type == ModelType.SAGE ? 2 : 1) * CLASSES, width);

            // Pass 1 on one rank: the outputs leave as records per owning GraphStore subtask.
            InferenceRound round = new InferenceRound(cfg, true, embeddings, false, partitioner, 2);
            float[] stored = new float[N * width];
            int records = 0;
            for (int from = 0; from < N; from += 16) {
                InferenceRound.Outcome out = round.compute(model, firstLayerBlock(nbrs, x, from));
                assertNull(out.predictions());
                for (LayerOutputs o : out.outputs()) {
                    assertEquals(out.outputs().size(), o.parts);
                    assertEquals(1, o.layer);
                    assertEquals(from / 16, o.roundIndex);
                    for (int i = 0; i < o.vertices.length; i++) {
                        assertEquals(
                                o.route,
                                sites.holderOf(partitioner.partition(o.vertices[i])),
                                "owner");
                        System.arraycopy(
                                o.values, i * width, stored, (int) o.vertices[i] * width, width);
                    }
                    records++;
                }
            }
            int expectedRecords = 0;
            for (int from = 0; from < N; from += 16) {
                expectedRecords +=
                        (int)
                                java.util.stream.LongStream.range(from, Math.min(N, from + 16))
                                        .map(v -> sites.holderOf(partitioner.partition(v)))
                                        .distinct()
                                        .count();
            }
            assertEquals(expectedRecords, records, "a record per block and GraphStore subtask");
            // Pass 2 on another rank (it holds nothing of the round): source rows from the store.
            InferenceRound other = new InferenceRound(cfg, true, embeddings, false, partitioner, 2);
            Map<Long, float[]> probs = new HashMap<>();
            for (int from = 0; from < N; from += 16) {
                InferenceRound.Outcome out =
                        other.compute(
                                model,
                                block(
                                        nbrs,
                                        stored,
                                        width,
                                        2,
                                        from,
                                        Math.min(N, from + 16),
                                        MiniBatch.Kind.EVAL_TEST));
                assertEquals(List.of(), out.outputs());
                PredictionBatch p = out.predictions();
                assertEquals(embeddings ? hidden : 0, p.embeddingDim);
                for (int i = 0; i < p.size(); i++) {
                    probs.put(
                            p.vertices[i],
                            Arrays.copyOfRange(p.probs, i * CLASSES, (i + 1) * CLASSES));
                    assertEquals(
                            ClassProbabilities.argmax(expected, (int) p.vertices[i], CLASSES),
                            p.labels[i]);
                    if (embeddings) {
                        assertArrayEquals(
                                Arrays.copyOfRange(
                                        stored,
                                        (int) p.vertices[i] * width,
                                        (int) p.vertices[i] * width + width),
                                Arrays.copyOfRange(p.embeddings, i * width, i * width + width));
                    }
                }
            }
            assertEquals(N, probs.size());
            for (int v = 0; v < N; v++) {
                assertArrayEquals(
                        ClassProbabilities.softmax(expected, v, CLASSES),
                        probs.get((long) v),
                        1e-6f);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(ModelType.class)
    void withoutPredictionsOnlyScoresAndRejectsRowsOfAnotherWidth(ModelType type) {
        int[][] nbrs = {{1}, {0, 2}, {1}};
        float[] x = new float[3 * F];
        Arrays.fill(x, 0.5f);
        ModelConfig cfg = twoLayers(type);
        try (GnnModel model = GnnModel.create(cfg)) {
            InferenceRound round = new InferenceRound(cfg, false, false, false, null, 1);
            InferenceRound.Outcome written =
                    round.compute(model, block(nbrs, x, F, 1, 0, 3, MiniBatch.Kind.INFER));
            assertEquals(1, written.outputs().size(), "one GraphStore subtask: one record");
            assertEquals(0, written.outputs().get(0).route);
            InferenceRound.Outcome out =
                    round.compute(
                            model,
                            block(
                                    nbrs,
                                    new float[3 * cfg.roundRowWidth(1, false)],
                                    cfg.roundRowWidth(1, false),
                                    2,
                                    0,
                                    3,
                                    MiniBatch.Kind.EVAL_VAL));
            assertNull(out.predictions());
            assertEquals(3, out.eval().numSeeds());
            assertThrows(
                    IllegalArgumentException.class,
                    () ->
                            round.compute(
                                    model, block(nbrs, x, F, 2, 0, 3, MiniBatch.Kind.EVAL_VAL)));
        }
    }

    /**
     * A destination deleted while its round was in flight comes with no row of the round ({@link
     * MiniBatch#ABSENT}): it gets no prediction and is not scored.
     */
    @ParameterizedTest
    @EnumSource(ModelType.class)
    void anAbsentDestinationIsNeitherPredictedNorScored(ModelType type) {
        int[][] nbrs = {{1}, {0, 2}, {1}};
        ModelConfig cfg = twoLayers(type);
        try (GnnModel model = GnnModel.create(cfg)) {
            InferenceRound round = new InferenceRound(cfg, true, true, true, null, 1);
            int width = cfg.roundRowWidth(1, true);
            MiniBatch b =
                    block(nbrs, new float[3 * width], width, 2, 0, 3, MiniBatch.Kind.EVAL_VAL);
            b.labels[1] = MiniBatch.ABSENT;
            InferenceRound.Outcome out = round.compute(model, b);
            assertArrayEquals(new long[] {0, 2}, out.predictions().vertices);
            assertEquals(2, out.predictions().labels.length);
            assertEquals(2 * CLASSES, out.predictions().probs.length);
            assertEquals(2 * width, out.predictions().embeddings.length);
            assertEquals(2, out.eval().numSeeds(), "the absent row is not scored");
        }
    }

    /** A two-layer model of hidden width 4 without dropout. */
    private static ModelConfig twoLayers(ModelType type) {
        return ModelConfig.builder()
                .modelType(type)
                .inFeatures(F)
                .hidden(4)
                .numClasses(CLASSES)
                .numLayers(2)
                .dropout(0)
                .learningRate(0.01)
                .seed(3)
                .build();
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

    /**
     * A one-hop block of destinations {@code from..to-1} over all in-neighbours, as the assembler
     * builds it.
     */
    /**
     * With features' sums, a first-layer block also gives, per destination, the sum of its
     * neighbours' features and their count, numbered among the block's records; a one-layer model's
     * block (also the last) gives them beside its predictions.
     */
    @ParameterizedTest(name = "layers={0}")
    @CsvSource({"2", "1"})
    void firstLayerBlocksGiveTheirDestinationsFeatureSums(int layers) {
        Random r = new Random(5);
        int[][] nbrs = neighbours(r);
        float[] x = features(r);
        ModelConfig cfg =
                ModelConfig.builder()
                        .inFeatures(F)
                        .hidden(8)
                        .numClasses(CLASSES)
                        .numLayers(layers)
                        .seed(3)
                        .build();
        HashPartitioner partitioner = new HashPartitioner(8);
        InferenceRound round =
                new InferenceRound(cfg, true, false, false, partitioner, 2).withFeatureSums(true);
        int summed = 0;
        try (GnnModel model = GnnModel.create(cfg)) {
            for (int from = 0; from < N; from += 16) {
                InferenceRound.Outcome out = round.compute(model, firstLayerBlock(nbrs, x, from));
                assertEquals(layers == 1, out.predictions() != null);
                for (int p = 0; p < out.outputs().size(); p++) {
                    LayerOutputs o = out.outputs().get(p);
                    assertEquals(p, o.part);
                    assertEquals(out.outputs().size(), o.parts);
                    if (!o.isFeatureSums()) {
                        continue;
                    }
                    assertEquals(F + 1, o.dim);
                    for (int i = 0; i < o.vertices.length; i++) {
                        int v = (int) o.vertices[i];
                        float[] want = new float[F + 1];
                        for (int u : nbrs[v]) {
                            for (int c = 0; c < F; c++) {
                                want[c] += x[u * F + c];
                            }
                        }
                        want[F] = nbrs[v].length;
                        assertArrayEquals(
                                want,
                                Arrays.copyOfRange(o.values, i * (F + 1), (i + 1) * (F + 1)),
                                1e-5f);
                        summed++;
                    }
                }
            }
        }
        assertEquals(N, summed, "a sum per destination");
    }

    /** Each vertex's in-neighbours: none for every seventh, else 1 to 5 drawn at random. */
    private static int[][] neighbours(Random r) {
        int[][] nbrs = new int[N][];
        for (int v = 0; v < N; v++) {
            nbrs[v] = new int[v % 7 == 0 ? 0 : 1 + r.nextInt(5)];
            for (int k = 0; k < nbrs[v].length; k++) {
                nbrs[v][k] = r.nextInt(N);
            }
        }
        return nbrs;
    }

    /** Gaussian features of every vertex, row-major. */
    private static float[] features(Random r) {
        float[] x = new float[N * F];
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) r.nextGaussian();
        }
        return x;
    }

    /** The first-layer block of the 16 destinations from {@code from}, as a round issues it. */
    private static MiniBatch firstLayerBlock(int[][] nbrs, float[] x, int from) {
        return block(nbrs, x, F, 1, from, Math.min(N, from + 16), MiniBatch.Kind.INFER);
    }

    private static MiniBatch block(
            int[][] nbrs, float[] x, int dim, int layer, int from, int to, MiniBatch.Kind kind) {
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
                indices.add(
                        pos.computeIfAbsent(
                                u,
                                k -> {
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
        b.roundIndex = from / 16;
        b.numLayers = 1;
        b.nodeCounts = new int[] {to - from, nodes.size()};
        b.nodeIds = nodes.stream().mapToLong(Integer::longValue).toArray();
        b.indptr = indptr;
        b.indptrOffsets = new int[] {0};
        b.indices = indices.stream().mapToInt(Integer::intValue).toArray();
        b.indicesOffsets = new int[] {0};
        b.featureDim = dim;
        int rows = nodes.size();
        b.features = new float[rows * dim];
        for (int i = 0; i < rows; i++) {
            System.arraycopy(x, nodes.get(i) * dim, b.features, i * dim, dim);
        }
        b.labels = new int[to - from];
        for (int i = 0; i < b.labels.length; i++) {
            b.labels[i] = (from + i) % CLASSES;
        }
        return b;
    }
}

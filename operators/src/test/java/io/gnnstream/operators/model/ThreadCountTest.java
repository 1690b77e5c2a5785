package io.gnnstream.operators.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.operators.messages.MiniBatch;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every model type's training, evaluation and layer-wise inference are bit-identical whatever the
 * number of threads.
 */
@Timeout(120)
class ThreadCountTest {

    private static ModelConfig config(ModelCase c) {
        return c.config()
                .inFeatures(37)
                .hidden(48)
                .numClasses(5)
                .numLayers(2)
                .dropout(0.4)
                .learningRate(0.01)
                .weightDecay(1e-4)
                .seed(23)
                .build();
    }

    @AfterEach
    void resetThreads() {
        Nd4jThreads.configure(1);
    }

    private static TestGraphs.Graph graph() {
        return TestGraphs.random(3000, 37, 5, 12, 7, 4);
    }

    /** Batches large enough that every parallel loop is split into many chunks. */
    private static List<MiniBatch> batches(TestGraphs.Graph g) {
        List<MiniBatch> list = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            int[] seeds = TestGraphs.seeds(i, 5, 300 + 50 * i, 3000);
            list.add(TestGraphs.sample(g, seeds, new int[] {10, 6}, i % 2 == 0, 7 + i));
        }
        return list;
    }

    private record Run(
            long[] checksums,
            List<TrainResult> results,
            int[] predictions,
            double evalLoss,
            float[] logits) {}

    private static Run train(
            ModelCase c, TestGraphs.Graph g, List<MiniBatch> batches, int loopThreads) {
        try (GnnModel model = GnnModel.create(config(c))) {
            ModelCase.setLoopThreads(model, loopThreads);
            long[] sums = new long[batches.size()];
            List<TrainResult> results = new ArrayList<>();
            for (int i = 0; i < batches.size(); i++) {
                results.add(model.trainStep(batches.get(i)));
                sums[i] = model.checksum();
            }
            EvalResult eval = model.evaluate(batches.get(0));
            float[] logits =
                    LayerwiseInference.run(model, LayerwiseInferenceTest.graph(g), 1000).logits();
            return new Run(sums, results, eval.predictions(), eval.lossSum(), logits);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(ModelCase.ALL)
    void javaLoopsGiveIdenticalResultsOnOneTwoAndThreeThreads(ModelCase c) {
        TestGraphs.Graph g = graph();
        List<MiniBatch> batches = batches(g);
        assertTrue(batches.get(0).numDst(2) > 64 * 4, "the aggregation must span several chunks");
        Run one = train(c, g, batches, 1);
        for (int threads : new int[] {2, 3}) {
            Run many = train(c, g, batches, threads);
            assertArrayEquals(one.checksums(), many.checksums(), threads + " threads");
            assertEquals(one.results(), many.results());
            assertArrayEquals(one.predictions(), many.predictions());
            assertEquals(one.evalLoss(), many.evalLoss());
            assertArrayEquals(
                    one.logits(), many.logits(), "layer-wise inference on " + threads + " threads");
        }
    }

    /**
     * With BLAS on two threads (the trainer's setting for {@code --trainer-threads 2}) the Java
     * loops still change nothing. (OpenBLAS itself is deterministic per thread count but not across
     * thread counts, so replicas must use equal {@code --trainer-threads}; see {@link
     * Nd4jThreads}.)
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource(ModelCase.ALL)
    void loopThreadsChangeNothingUnderTwoBlasThreads(ModelCase c) {
        TestGraphs.Graph g = graph();
        List<MiniBatch> batches = batches(g);
        Nd4jThreads.configure(2);
        assertEquals(2, Nd4jThreads.configured());
        Run followingNd4j = train(c, g, batches, 0);
        Run single = train(c, g, batches, 1);
        assertArrayEquals(single.checksums(), followingNd4j.checksums());
        assertEquals(single.results(), followingNd4j.results());
        assertArrayEquals(single.predictions(), followingNd4j.predictions());
        assertArrayEquals(single.logits(), followingNd4j.logits());
    }
}

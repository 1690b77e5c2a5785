package io.gnnstream.operators.model;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.operators.messages.MiniBatch;
import java.util.Arrays;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every model type learns a planted-partition graph where neighbours carry most of the class
 * signal.
 */
class LearningTest {

    @ParameterizedTest(name = "{0}")
    @MethodSource(ModelCase.ALL)
    void plantedClassesAreLearnedWellAboveChance(ModelCase c) {
        int n = 1200;
        int classes = 4;
        // Feature noise of 2.5x the centroid scale makes single nodes ambiguous; averaging the
        // mostly same-class neighbourhood is what makes the classes separable.
        TestGraphs.Graph g = TestGraphs.planted(n, 16, classes, 10, 0.9, 2.5, 3);
        ModelConfig cfg =
                c.config()
                        .inFeatures(16)
                        .hidden(32)
                        .numClasses(classes)
                        .numLayers(2)
                        .dropout(0.2)
                        .learningRate(0.01)
                        .weightDecay(1e-4)
                        .seed(5)
                        .build();
        try (GnnModel model = GnnModel.create(cfg)) {
            int[] fanouts = {10, 5};
            MiniBatch test =
                    TestGraphs.sample(g, TestGraphs.seeds(1, 4, 300, n), fanouts, true, 99);
            double before = accuracy(model.evaluate(test));
            for (int step = 0; step < 150; step++) {
                int[] seeds = TestGraphs.seeds(0, 2, 600, n);
                int start = (step * 64) % (seeds.length - 64);
                int[] batch = Arrays.copyOfRange(seeds, start, start + 64);
                model.trainStep(TestGraphs.sample(g, batch, fanouts, true, step));
            }
            double after = accuracy(model.evaluate(test));
            assertTrue(after > 0.9, "test accuracy " + after + " (before training " + before + ")");
            assertTrue(
                    before < 0.5, "untrained accuracy " + before + " should be near chance 0.25");
        }
    }

    private static double accuracy(EvalResult r) {
        return (double) r.correct() / r.numSeeds();
    }
}

package io.gnnstream.benchmarks.offline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.connectors.RowNormalization;
import io.gnnstream.operators.model.ModelConfig;
import io.gnnstream.operators.model.Nd4jThreads;
import io.gnnstream.tools.DatasetGraph;
import io.gnnstream.tools.SyntheticGraph;
import io.gnnstream.tools.SyntheticGraphOptions;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The default {@code --normalize-features auto} learns on signed features (a synthetic graph: class
 * centroids plus Gaussian noise): the scan finds signed rows and keeps every row, where dividing
 * each row by its near-zero sum, as {@code true} does, makes the features useless.
 */
@Timeout(300)
class SignedFeaturesLearningTest {

    @TempDir static Path dir;
    static DatasetGraph raw;

    @BeforeAll
    static void generate() throws Exception {
        Nd4jThreads.configure(2);
        new SyntheticGraph(
                        SyntheticGraphOptions.builder()
                                .vertices(4000)
                                .avgDegree(12)
                                .features(100)
                                .classes(20)
                                .seed(11)
                                .build())
                .progress(false)
                .write(dir);
        raw = DatasetGraph.load(dir, RowNormalization.FALSE);
    }

    private static OfflineTraining.Result train(RowNormalization normalization) throws Exception {
        DatasetGraph g = DatasetGraph.load(dir, normalization);
        ModelConfig cfg =
                ModelConfig.builder()
                        .inFeatures(g.featureDim)
                        .numClasses(g.numClasses)
                        .numLayers(2)
                        .hidden(64)
                        .dropout(0.5)
                        .learningRate(0.01)
                        .weightDecay(5e-4)
                        .seed(1)
                        .decaySteps(150)
                        .build();
        return OfflineTraining.run(g, cfg, new int[] {10, 10}, 64, 150, 0);
    }

    @Test
    void autoKeepsSignedRowsAndLearns() throws Exception {
        DatasetGraph auto = DatasetGraph.load(dir, RowNormalization.AUTO);
        assertEquals(raw.features.length, auto.features.length);
        for (int i = 0; i < raw.features.length; i++) {
            assertEquals(raw.features[i], auto.features[i], "auto changed a signed row at " + i);
        }
        OfflineTraining.Result learned = train(RowNormalization.AUTO);
        OfflineTraining.Result divided = train(RowNormalization.TRUE);
        assertTrue(
                learned.test() >= 0.85, "auto on signed features: test accuracy " + learned.test());
        assertTrue(
                learned.test() > divided.test() + 0.1,
                "auto " + learned.test() + " vs rows divided by their " + "sums " + divided.test());
    }

    @Test
    void autoDecidesOncePerDataset() {
        assertEquals(RowNormalization.FALSE, raw.normalization);
        assertEquals(RowNormalization.TRUE, RowNormalization.AUTO.resolve(false), "no signed row");
        assertEquals(RowNormalization.FALSE, RowNormalization.AUTO.resolve(true), "a signed row");
        float[] forced = {1, -0.5f, 0.25f};
        RowNormalization.TRUE.apply(forced);
        assertEquals(-0.5f / 0.75f, forced[1], 1e-7);
        assertThrows(IllegalStateException.class, () -> RowNormalization.AUTO.apply(forced));
    }
}

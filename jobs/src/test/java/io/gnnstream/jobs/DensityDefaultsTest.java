package io.gnnstream.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.connectors.RowNormalization;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;

class DensityDefaultsTest {

    @Test
    void sparseRowsKeepTheOptionDefaultsAndDenseRowsGetLessDecayAndAHigherRate() {
        Configuration cora = new Configuration();
        DensityDefaults.apply(cora, 18.2, false);
        assertEquals(5e-4, cora.get(ModelOptions.WEIGHT_DECAY), 1e-12);
        assertEquals(0.01, cora.get(ModelOptions.LEARNING_RATE), 1e-12);

        Configuration citeseer = new Configuration();
        DensityDefaults.apply(citeseer, 31.6, false);
        assertEquals(5e-4 * 20 / 31.6, citeseer.get(ModelOptions.WEIGHT_DECAY), 1e-12);
        assertEquals(0.01 * Math.sqrt(31.6 / 20), citeseer.get(ModelOptions.LEARNING_RATE), 1e-12);

        Configuration photo = new Configuration();
        DensityDefaults.apply(photo, 258.8, false);
        assertEquals(5e-4 * 20 / 258.8, photo.get(ModelOptions.WEIGHT_DECAY), 1e-12);
        assertEquals(0.03, photo.get(ModelOptions.LEARNING_RATE), 1e-12, "capped at 3x");
    }

    @Test
    void optionsTheUserSetAndRawFeaturesAreLeftAlone() {
        Configuration set = new Configuration();
        set.set(ModelOptions.LEARNING_RATE, 0.005);
        DensityDefaults.apply(set, 258.8, false);
        assertEquals(0.005, set.get(ModelOptions.LEARNING_RATE), 1e-12);
        assertEquals(5e-4 * 20 / 258.8, set.get(ModelOptions.WEIGHT_DECAY), 1e-12);

        Configuration raw = new Configuration();
        raw.set(GraphOptions.NORMALIZE_FEATURES, RowNormalization.FALSE);
        DensityDefaults.apply(raw, 258.8, false);
        assertFalse(raw.contains(ModelOptions.LEARNING_RATE));
        assertFalse(raw.contains(ModelOptions.WEIGHT_DECAY));

        Configuration signed = new Configuration();
        DensityDefaults.apply(signed, 100, true);
        assertFalse(signed.contains(ModelOptions.LEARNING_RATE), "auto keeps signed rows raw");
        assertFalse(signed.contains(ModelOptions.WEIGHT_DECAY));
        assertEquals(
                RowNormalization.FALSE,
                signed.get(GraphOptions.NORMALIZE_FEATURES),
                "the scan's decision goes to the job");
        Configuration counts = new Configuration();
        DensityDefaults.apply(counts, 18, false);
        assertEquals(RowNormalization.TRUE, counts.get(GraphOptions.NORMALIZE_FEATURES));

        Configuration forced = new Configuration();
        forced.set(GraphOptions.NORMALIZE_FEATURES, RowNormalization.TRUE);
        DensityDefaults.apply(forced, 100, true);
        assertTrue(forced.contains(ModelOptions.LEARNING_RATE), "true normalises signed rows too");
        assertEquals(RowNormalization.TRUE, forced.get(GraphOptions.NORMALIZE_FEATURES));
    }
}

package io.gnnstream.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.gnnstream.operators.schedule.ModelSelection;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;

/** {@code --select}: its spellings, its default, and the ranks' config. */
class SelectOptionTest {

    @Test
    void theFlagTakesLastAndBestValAndRecordsThemSo() {
        JobOption<?> flag = JobOptions.byFlag("--select").orElseThrow();
        assertEquals(ModelSelection.Mode.BEST_VAL, flag.parse("best-val"));
        assertEquals(ModelSelection.Mode.LAST, flag.parse("last"));
        assertEquals("last", flag.defaultText());
        assertThrows(IllegalArgumentException.class, () -> flag.parse("best"));
        Configuration conf = new Configuration();
        conf.set(GraphOptions.NUM_FEATURES, 8);
        conf.set(GraphOptions.NUM_CLASSES, 3);
        conf.set(ModelOptions.SELECT, ModelSelection.Mode.BEST_VAL);
        Map<String, String> recorded = JobOptions.recorded(conf);
        assertEquals("best-val", recorded.get(ModelOptions.SELECT.key()));
        assertEquals(
                ModelSelection.Mode.BEST_VAL,
                JobOptions.fromRecorded(recorded).get(ModelOptions.SELECT));
    }
}

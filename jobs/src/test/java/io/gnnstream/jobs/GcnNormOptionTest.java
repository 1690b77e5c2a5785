package io.gnnstream.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.jobs.topology.TopologySettings;
import io.gnnstream.operators.FaultInjector;
import io.gnnstream.operators.GraphStoreConfig;
import io.gnnstream.operators.model.GcnNorm;
import io.gnnstream.operators.model.ModelType;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code --gcn-norm}: its flag, its way into the model's config and the GraphStore's (whose parts
 * then carry degrees under the eval fanout), and the combinations refused at start.
 */
@Timeout(30)
class GcnNormOptionTest {

    private static Configuration gcn(GcnNorm norm) {
        Configuration conf = TrainingJobTest.configuration();
        conf.set(ModelOptions.MODEL, ModelType.GCN);
        conf.set(ModelOptions.GCN_NORM, norm);
        return conf;
    }

    private static TopologySettings settings(Configuration conf) {
        return new TopologySettings(
                conf,
                TopologySettings.scale(conf, 1),
                TrainingJob.partitioner(conf),
                FaultInjector.NONE,
                false);
    }

    @Test
    void flagParsesAndDefaultsToTheMean() {
        JobOption<?> flag = JobOptions.byFlag("--gcn-norm").orElseThrow();
        assertSame(ModelOptions.GCN_NORM, flag.option());
        assertEquals(GcnNorm.SYM, flag.parse("sym"));
        assertEquals(GcnNorm.MEAN, flag.parse("mean"));
        assertThrows(IllegalArgumentException.class, () -> flag.parse("both"));
        Configuration conf = TrainingJobTest.configuration();
        conf.set(ModelOptions.MODEL, ModelType.GCN);
        TrainingJob.validate(conf);
        assertEquals(GcnNorm.MEAN, settings(conf).trainerConfig().model.gcnNorm());
        assertFalse(settings(conf).storeConfig().sendsDegrees());
    }

    @Test
    void symReachesTheModelAndTheStoreWithTheEvalFanout() {
        Configuration conf = gcn(GcnNorm.SYM);
        conf.set(SamplingOptions.EVAL_FANOUT, 8);
        TrainingJob.validate(conf);
        TopologySettings s = settings(conf);
        assertEquals(GcnNorm.SYM, s.trainerConfig().model.gcnNorm());
        assertEquals("sym", s.trainerConfig().model.toMap().get("gcnNorm"));
        GraphStoreConfig store = s.storeConfig();
        assertTrue(store.sendsDegrees());
        assertEquals(8, store.degreeFanout());
        assertEquals(8, store.withHalo(false).degreeFanout(), "kept by later settings");
        assertFalse(settings(gcn(GcnNorm.MEAN)).storeConfig().sendsDegrees());
    }

    @Test
    void otherModelsRefuseTheFlag() {
        Configuration conf = TrainingJobTest.configuration();
        conf.set(ModelOptions.GCN_NORM, GcnNorm.MEAN);
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> TrainingJob.validate(conf));
        assertEquals("--gcn-norm applies to --model gcn, not --model sage", e.getMessage());
    }

    @Test
    void symRefusesTheGpuIncrementalPredictionsAndHaloReplicas() {
        Configuration cuda = gcn(GcnNorm.SYM);
        cuda.set(ModelOptions.DEVICE, "cuda:0");
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> TrainingJob.validate(cuda));
        assertTrue(
                e.getMessage().startsWith("--gcn-norm sym is not available with --device cuda:0"),
                e.getMessage());

        Configuration incremental = gcn(GcnNorm.SYM);
        incremental.set(
                PredictionOptions.PREDICTION_UPDATES, PredictionOptions.Updates.INCREMENTAL);
        e = assertThrows(IllegalArgumentException.class, () -> TrainingJob.validate(incremental));
        assertTrue(
                e.getMessage()
                        .startsWith(
                                "--gcn-norm sym is not available with --prediction-updates"
                                        + " incremental"),
                e.getMessage());

        Configuration halo = gcn(GcnNorm.SYM);
        halo.set(GraphOptions.HALO, GraphOptions.Halo.FEATURES);
        e = assertThrows(IllegalArgumentException.class, () -> TrainingJob.validate(halo));
        assertTrue(
                e.getMessage().startsWith("--gcn-norm sym is not available with --halo features"),
                e.getMessage());

        Configuration mean = gcn(GcnNorm.MEAN);
        mean.set(GraphOptions.HALO, GraphOptions.Halo.FEATURES);
        mean.set(PredictionOptions.PREDICTION_UPDATES, PredictionOptions.Updates.INCREMENTAL);
        TrainingJob.validate(mean);
    }
}

package io.gnnstream.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.jobs.topology.TopologySettings;
import io.gnnstream.operators.FaultInjector;
import io.gnnstream.operators.model.ModelConfig;
import io.gnnstream.operators.model.ModelType;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code --model gat}'s options ({@code --heads}, {@code --out-heads}, {@code
 * --attention-dropout}): flags, checks, their way into the model's config, and the combinations
 * refused at start.
 */
@Timeout(30)
class GatOptionsTest {

    private static Configuration gat() {
        Configuration conf = TrainingJobTest.configuration();
        conf.set(ModelOptions.MODEL, ModelType.GAT);
        return conf;
    }

    private static ModelConfig model(Configuration conf) {
        return new TopologySettings(
                        conf,
                        TopologySettings.scale(conf, 1),
                        TrainingJob.partitioner(conf),
                        FaultInjector.NONE,
                        false)
                .trainerConfig()
                .model;
    }

    @Test
    void flagsParseAndCheckTheirValues() {
        assertSame(ModelOptions.HEADS, JobOptions.byFlag("--heads").orElseThrow().option());
        assertSame(ModelOptions.OUT_HEADS, JobOptions.byFlag("--out-heads").orElseThrow().option());
        JobOption<?> att = JobOptions.byFlag("--attention-dropout").orElseThrow();
        assertSame(ModelOptions.ATTENTION_DROPOUT, att.option());
        assertEquals(0.25, att.parse("0.25"));
        assertThrows(IllegalArgumentException.class, () -> att.parse("1"));
        JobOption<?> heads = JobOptions.byFlag("--heads").orElseThrow();
        assertThrows(IllegalArgumentException.class, () -> heads.parse("0"));
        assertTrue(JobOptions.byFlag("--model").orElseThrow().description().contains("gat"));
    }

    @Test
    void headsReachTheModelConfig() {
        Configuration conf = gat();
        conf.set(ModelOptions.HEADS, 3);
        conf.set(ModelOptions.OUT_HEADS, 2);
        conf.set(ModelOptions.ATTENTION_DROPOUT, 0.1);
        conf.set(ModelOptions.HIDDEN, 5);
        TrainingJob.validate(conf);
        ModelConfig m = model(conf);
        assertSame(ModelType.GAT, m.modelType());
        assertEquals(3, m.heads());
        assertEquals(2, m.outHeads());
        assertEquals(0.1, m.attentionDropout());
        assertEquals(15, m.layerOut(0), "hidden layers concatenate their heads");
        ModelConfig defaults = model(gat());
        assertEquals(8, defaults.hidden(), "8 units per head by default");
        assertEquals(8, defaults.heads());
        assertEquals(1, defaults.outHeads());
        assertEquals(0.6, defaults.attentionDropout());
        ModelConfig sage = model(TrainingJobTest.configuration());
        assertEquals(64, sage.hidden());
        assertEquals(1, sage.heads());
        assertEquals(0.0, sage.attentionDropout());
    }

    @Test
    void headOptionsAreRefusedForModelsWithoutHeads() {
        Configuration conf = TrainingJobTest.configuration();
        conf.set(ModelOptions.HEADS, 4);
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> TrainingJob.validate(conf));
        assertEquals(
                "--heads applies to a model with attention heads, not --model sage",
                e.getMessage());
    }

    @Test
    void gpuAndIncrementalPredictionsAreRefusedForGat() {
        Configuration cuda = gat();
        cuda.set(ModelOptions.DEVICE, "cuda:0");
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> TrainingJob.validate(cuda));
        assertTrue(e.getMessage().startsWith("--device cuda:0 is not available for --model gat"));
        Configuration incremental = gat();
        incremental.set(
                PredictionOptions.PREDICTION_UPDATES, PredictionOptions.Updates.INCREMENTAL);
        e = assertThrows(IllegalArgumentException.class, () -> TrainingJob.validate(incremental));
        assertTrue(
                e.getMessage()
                        .startsWith(
                                "--prediction-updates incremental is not available for --model"
                                        + " gat"),
                e.getMessage());
    }
}

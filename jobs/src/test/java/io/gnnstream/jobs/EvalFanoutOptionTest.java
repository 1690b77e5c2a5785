package io.gnnstream.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.gnnstream.jobs.topology.TopologySettings;
import io.gnnstream.operators.FaultInjector;
import io.gnnstream.operators.TrainerConfig;
import io.gnnstream.state.EvalNeighbourhood;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code --eval-fanout} reaches the trainer's config, whose model exports record it. */
@Timeout(30)
class EvalFanoutOptionTest {

    @Test
    void defaultsToTheNeighbourhoodsDefaultAndReachesTheTrainersConfig() {
        JobOption<?> option = JobOptions.byFlag("--eval-fanout").orElseThrow();
        assertSame(SamplingOptions.EVAL_FANOUT, option.option());
        assertEquals(String.valueOf(EvalNeighbourhood.DEFAULT_FANOUT), option.defaultText());
        assertEquals(4096, trainerConfig(TrainingJobTest.configuration()).evalFanout());
        Configuration conf = TrainingJobTest.configuration();
        conf.set(SamplingOptions.EVAL_FANOUT, 16);
        assertEquals(16, trainerConfig(conf).evalFanout());
        conf.set(SamplingOptions.EVAL_FANOUT, -1);
        assertEquals(-1, trainerConfig(conf).evalFanout());
    }

    private static TrainerConfig trainerConfig(Configuration conf) {
        return new TopologySettings(
                        conf,
                        TopologySettings.scale(conf, 1),
                        TrainingJob.partitioner(conf),
                        FaultInjector.NONE,
                        false)
                .trainerConfig();
    }
}

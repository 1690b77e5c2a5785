package io.gnnstream.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.jobs.topology.TopologySettings;
import io.gnnstream.operators.FaultInjector;
import io.gnnstream.operators.TrainerConfig;
import io.gnnstream.operators.model.gpu.Device;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code --device}: its flag, values and check, and its way into the trainer's config. */
@Timeout(30)
class DeviceOptionTest {

    @Test
    void isTheDeviceFlagWithTheCpuByDefault() {
        JobOption<?> option = JobOptions.byFlag("--device").orElseThrow();
        assertSame(ModelOptions.DEVICE, option.option());
        assertEquals("cpu", option.defaultText());
        assertTrue(option.description().contains("bin/gnnstream gpu build"), option.description());
        assertTrue(option.description().contains("external resource 'gpu'"));
        assertEquals(Device.CPU, ModelOptions.device(new Configuration()));
    }

    @Test
    void takesCpuCudaAndCudaWithAnIndex() {
        JobOption<?> option = JobOptions.byFlag("--device").orElseThrow();
        for (String value : new String[] {"cpu", "cuda", "cuda:0", "cuda:3", "CUDA:1"}) {
            assertEquals(value, option.parse(value));
        }
    }

    @Test
    void rejectsOtherValuesWithTheDevicesMessage() {
        JobOption<?> option = JobOptions.byFlag("--device").orElseThrow();
        for (String bad : new String[] {"cuda:x", "gpu", "cuda:-1", ""}) {
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> option.parse(bad), bad);
            assertEquals(
                    "--device must be cpu, cuda or cuda:N (N a device index >= 0), got " + bad,
                    e.getMessage());
        }
        Configuration conf = TrainingJobTest.configuration();
        conf.set(ModelOptions.DEVICE, "gpu");
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> TrainingJob.validate(conf));
        assertTrue(e.getMessage().startsWith("--device must be cpu, cuda"), e.getMessage());
    }

    @Test
    void reachesTheTrainersConfig() {
        assertEquals(Device.CPU, trainerConfig(TrainingJobTest.configuration()).device());
        Configuration cuda = TrainingJobTest.configuration();
        cuda.set(ModelOptions.DEVICE, "cuda:1");
        TrainingJob.validate(cuda);
        assertEquals(new Device(true, 1), trainerConfig(cuda).device());
        cuda.set(ModelOptions.DEVICE, "cuda");
        assertEquals(new Device(true, -1), trainerConfig(cuda).device());
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

package io.gnnstream.operators;

import static io.gnnstream.operators.TrainerRig.batch;
import static io.gnnstream.operators.TrainerRig.concat;
import static io.gnnstream.operators.TrainerRig.gradients;
import static io.gnnstream.operators.TrainerRig.params;
import static io.gnnstream.operators.TrainerRig.reduce;
import static io.gnnstream.operators.TrainerRig.send;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.operators.messages.GradientChunk;
import io.gnnstream.operators.model.gpu.Device;
import io.gnnstream.operators.model.gpu.GpuUnavailableException;
import io.gnnstream.operators.model.gpu.MissingCudaLibrary;
import io.gnnstream.operators.schedule.MixedDevicesException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.api.common.externalresource.ExternalResourceInfo;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.streaming.util.TwoInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The trainer's device through Flink's harness: a rank whose GPU cannot be opened fails the job
 * without restarts, ranks name their device kind on every chunk, and reducers refuse a mix.
 */
@Timeout(120)
class TrainerDeviceTest {

    private static final String H200 = "cuda NVIDIA H200 sm_90 cuBLAS 130101";

    @Test
    void aRankWhoseGpuCannotBeOpenedFailsWithoutRestarts(@TempDir Path dir) throws Exception {
        try (MissingCudaLibrary missing = new MissingCudaLibrary(dir)) {
            for (String device : new String[] {"cuda", "cuda:0"}) {
                TrainerConfig config = TrainerRig.config(2).withDevice(Device.parse(device));
                var h =
                        new TwoInputStreamOperatorTestHarness<>(
                                new TrainerOperator(config), TrainerRig.MAX_PARALLELISM, 2, 1);
                try {
                    SuppressRestartsException e =
                            assertThrows(SuppressRestartsException.class, h::open, device);
                    GpuUnavailableException cause =
                            assertInstanceOf(GpuUnavailableException.class, e.getCause());
                    assertTrue(
                            cause.getMessage().contains(missing.file.toString())
                                    && cause.getMessage().contains("--device cpu"),
                            cause.getMessage());
                } finally {
                    h.close();
                }
            }
        }
    }

    @Test
    void ranksNameTheirDeviceOnChunksAndHeartbeats() throws Exception {
        try (var r0 = TrainerRig.rank(0, 2, null);
                var r1 = TrainerRig.rank(1, 2, null);
                var reducer = TrainerRig.reducer(2, null)) {
            send(r0, batch(0, 1, new int[] {0, 1}));
            send(r1, batch(0, 1, new int[] {2, 3}));
            List<GradientChunk> chunks = concat(gradients(r0), gradients(r1));
            assertFalse(chunks.isEmpty());
            for (GradientChunk c : chunks) {
                assertEquals("cpu", c.device, c.toString());
            }
            TrainerRig.deliver(r0, reduce(reducer, chunks));
            r1.setProcessingTime(TrainerOperator.HEARTBEAT_MS);
            List<GradientChunk> beats = new ArrayList<>();
            r1.getSideOutput(TrainerOperator.GRADIENTS).forEach(r -> beats.add(r.getValue()));
            assertTrue(beats.stream().anyMatch(GradientChunk::isHeartbeat), beats.toString());
            for (GradientChunk beat : beats) {
                assertEquals("cpu", beat.device, beat.toString());
            }
        }
    }

    @Test
    void aReducerRefusesRanksOfDifferentKinds() throws Exception {
        try (var r0 = TrainerRig.rank(0, 2, null);
                var r1 = TrainerRig.rank(1, 2, null);
                var reducer = TrainerRig.reducer(2, null)) {
            send(r0, batch(0, 1, new int[] {0, 1}));
            send(r1, batch(0, 1, new int[] {2, 3}));
            List<GradientChunk> gpu = gradients(r1);
            gpu.forEach(c -> c.device = H200);
            List<GradientChunk> all = concat(gpu, gradients(r0));
            SuppressRestartsException e =
                    assertThrows(SuppressRestartsException.class, () -> reduce(reducer, all));
            assertInstanceOf(MixedDevicesException.class, e.getCause());
            assertEquals(
                    "trainer ranks run on different kinds of device: rank 0 on cpu, rank 1 on "
                            + H200
                            + "; replicas of different kinds round differently and cannot stay"
                            + " bit-identical: give every rank the same --device and GPU model",
                    e.getCause().getMessage());
        }
    }

    @Test
    void theCpuIsTheDefaultAndTrainsAsBefore() throws Exception {
        assertEquals(Device.CPU, TrainerRig.config(1).device());
        TrainerConfig explicit = TrainerRig.config(1).withDevice(Device.CPU);
        try (var implicit = TrainerRig.rank(0, 1, null);
                var cpu =
                        new TwoInputStreamOperatorTestHarness<>(
                                new TrainerOperator(explicit), TrainerRig.MAX_PARALLELISM, 1, 0)) {
            cpu.open();
            send(implicit, batch(0, 1, new int[] {0, 1, 2}));
            send(cpu, batch(0, 1, new int[] {0, 1, 2}));
            assertArrayEquals(params(implicit), params(cpu));
        }
    }

    @Test
    void aRankTakesOneOfItsTaskManagersGpusByRank() {
        assertEquals(-1, TrainerOperator.assignedGpu(Set.of(), 0));
        assertEquals(3, TrainerOperator.assignedGpu(Set.of(gpu("3")), 0));
        assertEquals(3, TrainerOperator.assignedGpu(Set.of(gpu("3")), 5), "one GPU: that one");
        Set<ExternalResourceInfo> three = Set.of(gpu("4"), gpu("1"), gpu("2"));
        assertEquals(1, TrainerOperator.assignedGpu(three, 0));
        assertEquals(2, TrainerOperator.assignedGpu(three, 1));
        assertEquals(4, TrainerOperator.assignedGpu(three, 2));
        assertEquals(1, TrainerOperator.assignedGpu(three, 3));
        assertEquals(-1, TrainerOperator.assignedGpu(Set.of(gpu("x"), gpu(null)), 0));
        assertEquals(0, TrainerOperator.assignedGpu(Set.of(gpu(" 0 "), gpu("GPU-1")), 1));
    }

    /** An external resource info as Flink's GPU driver gives it: property {@code index}. */
    private static ExternalResourceInfo gpu(String index) {
        Map<String, String> properties = index == null ? Map.of() : Map.of("index", index);
        return new ExternalResourceInfo() {
            @Override
            public Optional<String> getProperty(String key) {
                return Optional.ofNullable(properties.get(key));
            }

            @Override
            public java.util.Collection<String> getKeys() {
                return properties.keySet();
            }
        };
    }
}

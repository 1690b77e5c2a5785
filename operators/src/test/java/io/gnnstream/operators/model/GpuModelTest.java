package io.gnnstream.operators.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.operators.messages.MiniBatch;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link GpuModel} on the host rendering of its kernels against the CPU models: the same gradients,
 * Adam steps, evaluation and layer-wise inference (to float rounding: the GPU adds in other
 * orders), bit-identical replicas, state that moves between the backends, and every device buffer
 * freed. The CUDA kernels themselves are checked against the CPU model on a GPU host by the device
 * check (gpu/check.sh).
 */
class GpuModelTest {

    private static final int N = 80;
    private static final int F = 12;

    private static ModelConfig config(ModelCase c, int layers) {
        return c.config()
                .inFeatures(F)
                .hidden(16)
                .numClasses(4)
                .numLayers(layers)
                .dropout(0.5)
                .learningRate(0.01)
                .weightDecay(5e-4)
                .seed(11)
                .build();
    }

    private static MiniBatch batch(TestGraphs.Graph g, int layers, boolean dedup, long seed) {
        int[] fanouts = layers == 2 ? new int[] {4, 3} : new int[] {3, 3, 2};
        MiniBatch b =
                TestGraphs.sample(
                        g, TestGraphs.seeds((int) seed % 7, 3, 16, N), fanouts, dedup, seed);
        b.labels[1] = MiniBatch.NO_LABEL;
        return b;
    }

    /** Per tensor: max |a - b| over max |b| (0 when b is zero). */
    private static void assertClose(
            List<ParamInfo> ref, float[] got, double tolerance, String what) {
        int offset = 0;
        for (ParamInfo p : ref) {
            double maxDiff = 0;
            double maxRef = 0;
            for (int i = 0; i < p.values().length; i++) {
                maxDiff = Math.max(maxDiff, Math.abs(got[offset + i] - p.values()[i]));
                maxRef = Math.max(maxRef, Math.abs(p.values()[i]));
            }
            assertTrue(
                    maxDiff <= tolerance * Math.max(maxRef, 1e-12),
                    what + " " + p.name() + ": max|d| " + maxDiff + ", max|ref| " + maxRef);
            offset += p.values().length;
        }
        assertEquals(offset, got.length);
    }

    private static List<ParamInfo> asTensors(List<ParamInfo> layout, float[] flat) {
        int offset = 0;
        List<ParamInfo> out = new java.util.ArrayList<>();
        for (ParamInfo p : layout) {
            out.add(
                    new ParamInfo(
                            p.name(),
                            p.shape(),
                            Arrays.copyOfRange(flat, offset, offset + p.values().length)));
            offset += p.values().length;
        }
        return out;
    }

    static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> cases() {
        return ModelCase.crossedGpu(
                new Object[] {2, true}, new Object[] {2, false}, new Object[] {3, true});
    }

    @ParameterizedTest
    @MethodSource("cases")
    void gradientsAndFiveAdamStepsFollowTheCpuModel(ModelCase c, int layers, boolean dedup) {
        TestGraphs.Graph g = TestGraphs.random(N, F, 4, 6, 7, 5);
        ModelConfig cfg = config(c, layers);
        try (GnnModel cpu = GnnModel.create(cfg);
                GpuModel gpu = new GpuModel(cfg, new HostKernels())) {
            assertArrayEquals(cpu.parameterVector(), gpu.parameterVector());
            MiniBatch b = batch(g, layers, dedup, 1);
            Gradients want = cpu.computeGradients(b);
            Gradients got = gpu.computeGradients(b);
            assertClose(asTensors(cpu.parameters(), want.grad()), got.grad(), 1e-5, "gradient");
            assertEquals(want.loss(), got.loss(), 1e-6 * Math.abs(want.loss()));
            assertEquals(want.correct(), got.correct());
            assertEquals(want.numSeeds(), got.numSeeds());
            for (int step = 1; step <= 5; step++) {
                MiniBatch next = batch(g, layers, dedup, step + 1);
                cpu.trainStep(next);
                gpu.trainStep(next);
                assertEquals(cpu.step(), gpu.step());
                assertClose(cpu.parameters(), gpu.parameterVector(), 1e-4, "step " + step);
            }
            MiniBatch eval = batch(g, layers, dedup, 9);
            eval.kind = MiniBatch.Kind.EVAL_VAL;
            EvalResult we = cpu.evaluate(eval);
            EvalResult ge = gpu.evaluate(eval);
            assertArrayEquals(we.predictions(), ge.predictions());
            assertEquals(we.lossSum(), ge.lossSum(), 1e-4 * Math.abs(we.lossSum()));
        }
    }

    @ParameterizedTest
    @MethodSource(ModelCase.GPU)
    void replicasOnOneKindOfDeviceStayBitIdentical(ModelCase c) {
        TestGraphs.Graph g = TestGraphs.random(N, F, 4, 6, 7, 5);
        ModelConfig cfg = config(c, 2);
        try (GpuModel a = new GpuModel(cfg, new HostKernels());
                GpuModel b = new GpuModel(cfg, new HostKernels())) {
            for (int step = 0; step < 4; step++) {
                MiniBatch batch = batch(g, 2, true, step);
                float[] ga = a.computeGradients(batch).grad();
                float[] gb = b.computeGradients(batch).grad();
                assertArrayEquals(ga, gb);
                a.applyGradients(ga);
                b.applyGradients(gb);
                assertEquals(a.checksum(), b.checksum());
            }
        }
    }

    @ParameterizedTest
    @MethodSource(ModelCase.GPU)
    void stateMovesBetweenTheCpuAndTheGpu(ModelCase c) {
        TestGraphs.Graph g = TestGraphs.random(N, F, 4, 6, 7, 5);
        ModelConfig cfg = config(c, 2);
        try (GnnModel cpu = GnnModel.create(cfg)) {
            cpu.trainStep(batch(g, 2, true, 3));
            ModelState state = cpu.snapshot();
            try (GpuModel gpu = GpuModel.restore(cfg, state, new HostKernels())) {
                assertEquals(cpu.checksum(), gpu.checksum());
                assertEquals(1, gpu.step());
                MiniBatch next = batch(g, 2, true, 4);
                cpu.trainStep(next);
                gpu.trainStep(next);
                assertClose(cpu.parameters(), gpu.parameterVector(), 1e-4, "after restore");
                try (GnnModel back = GnnModel.restore(cfg, gpu.snapshot())) {
                    assertEquals(gpu.checksum(), back.checksum());
                    assertEquals(2, back.step());
                }
            }
        }
    }

    @ParameterizedTest
    @MethodSource(ModelCase.GPU)
    void layerwiseInferenceFollowsTheCpuModel(ModelCase c) {
        TestGraphs.Graph g = TestGraphs.random(N, F, 4, 6, 7, 5);
        ModelConfig cfg = config(c, 2);
        try (GnnModel cpu = GnnModel.create(cfg);
                GpuModel gpu = new GpuModel(cfg, new HostKernels())) {
            cpu.trainStep(batch(g, 2, true, 3));
            gpu.setParameterVector(cpu.parameterVector());
            LayerwiseInference.Graph graph = LayerwiseInferenceTest.graph(g);
            float[][] want = LayerwiseInference.run(cpu, graph, 25).layers();
            float[][] got = LayerwiseInference.run(gpu, graph, 25).layers();
            for (int j = 0; j < want.length; j++) {
                assertEquals(want[j].length, got[j].length);
                for (int i = 0; i < want[j].length; i++) {
                    assertEquals(want[j][i], got[j][i], 1e-5, "layer " + j + " value " + i);
                }
            }
            float[] projectedCpu = cpu.project(1, want[0], N);
            float[] projectedGpu = gpu.project(1, want[0], N);
            assertArrayEquals(projectedCpu, projectedGpu, 1e-5f);
            MiniBatch whole = LayerwiseInferenceTest.wholeGraph(graph);
            assertArrayEquals(
                    cpu.inferProjected(1, whole, projectedCpu),
                    gpu.inferProjected(1, whole, projectedCpu),
                    1e-5f);
        }
    }

    @Test
    void summedNeighboursCountInTheMeanOfTheGpuModel() {
        TestGraphs.Graph g = TestGraphs.random(N, F, 4, 6, 7, 5);
        ModelConfig cfg = config(ModelCase.of(ModelType.SAGE), 2);
        try (GnnModel cpu = GnnModel.create(cfg);
                GpuModel gpu = new GpuModel(cfg, new HostKernels())) {
            gpu.setParameterVector(cpu.parameterVector());
            int width = cfg.roundRowWidth(1, false);
            float[] rows = new float[N * width];
            java.util.Random r = new java.util.Random(4);
            for (int i = 0; i < rows.length; i++) {
                rows[i] = (float) r.nextGaussian();
            }
            MiniBatch block = LayerwiseInferenceTest.wholeGraph(LayerwiseInferenceTest.graph(g));
            block.summedNeighbours = new int[N];
            for (int v = 0; v < N; v++) {
                block.summedNeighbours[v] = v % 3;
            }
            assertArrayEquals(
                    cpu.inferProjected(1, block, rows), gpu.inferProjected(1, block, rows), 1e-5f);
        }
    }

    @Test
    void aTrainingStepDownloadsOnlyItsGradient() {
        TestGraphs.Graph g = TestGraphs.random(N, F, 4, 6, 7, 5);
        HostKernels kernels = new HostKernels();
        ModelConfig cfg = config(ModelCase.of(ModelType.SAGE), 2);
        try (GpuModel gpu = new GpuModel(cfg, kernels)) {
            for (int step = 1; step <= 3; step++) {
                long before = kernels.downloadedFloats();
                gpu.trainStep(batch(g, 2, true, step));
                assertEquals(cfg.numParameters(), kernels.downloadedFloats() - before);
            }
            long before = kernels.downloadedFloats();
            gpu.checksum();
            assertEquals(3L * cfg.numParameters(), kernels.downloadedFloats() - before);
        }
    }

    @Test
    void phaseTimingWaitsForTheDeviceAtEveryPhaseOnlyWhileOn() {
        TestGraphs.Graph g = TestGraphs.random(N, F, 4, 6, 7, 5);
        HostKernels kernels = new HostKernels();
        try (GpuModel gpu = new GpuModel(config(ModelCase.of(ModelType.GCN), 2), kernels)) {
            gpu.trainStep(batch(g, 2, true, 1));
            assertEquals(0, kernels.synchronizations());
            gpu.setPhaseTiming(true);
            gpu.trainStep(batch(g, 2, true, 2));
            assertTrue(kernels.synchronizations() >= 10, "waits: " + kernels.synchronizations());
            assertTrue(
                    gpu.phaseNanos()
                            .keySet()
                            .containsAll(
                                    List.of(
                                            "upload_batch",
                                            "build_input.0",
                                            "gemm_forward.1",
                                            "scatter.1",
                                            "adam")),
                    gpu.phaseNanos().keySet().toString());
            gpu.setPhaseTiming(false);
            int waits = kernels.synchronizations();
            gpu.trainStep(batch(g, 2, true, 3));
            assertEquals(waits, kernels.synchronizations());
        }
    }

    @Test
    void closeFreesEveryDeviceBufferOnce() {
        TestGraphs.Graph g = TestGraphs.random(N, F, 4, 6, 7, 5);
        HostKernels kernels = new HostKernels("host test");
        GpuModel gpu = new GpuModel(config(ModelCase.of(ModelType.SAGE), 2), kernels);
        assertEquals("host test", gpu.deviceKind());
        gpu.trainStep(batch(g, 2, true, 1));
        assertTrue(kernels.liveBytes() > 0);
        gpu.close();
        gpu.close();
        assertEquals(0, kernels.liveBytes());
        assertTrue(kernels.closed());
    }
}

package io.gnnstream.operators.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.operators.messages.MiniBatch;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** GCN replicas and restored models stay bit-identical to uninterrupted training. */
class GcnDeterminismTest {

    private static final ModelConfig CONFIG =
            ModelConfig.builder()
                    .modelType(ModelType.GCN)
                    .inFeatures(12)
                    .hidden(16)
                    .numClasses(4)
                    .numLayers(2)
                    .dropout(0.5)
                    .learningRate(0.01)
                    .weightDecay(5e-4)
                    .seed(17)
                    .decaySteps(20)
                    .build();

    private static List<MiniBatch> batches(int count) {
        TestGraphs.Graph g = TestGraphs.random(300, 12, 4, 8, 5, 1);
        List<MiniBatch> list = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            // Growing batch sizes also exercise buffer reallocation between steps.
            int[] seeds = TestGraphs.seeds(i, 3, 10 + 7 * i, 300);
            list.add(TestGraphs.sample(g, seeds, new int[] {6, 4}, i % 2 == 0, 100 + i));
        }
        return list;
    }

    @Test
    void replicasWithSameSeedStayBitIdentical() {
        List<MiniBatch> batches = batches(8);
        try (GnnModel a = GnnModel.create(CONFIG);
                GnnModel b = GnnModel.create(CONFIG)) {
            assertEquals(a.checksum(), b.checksum());
            for (MiniBatch batch : batches) {
                TrainResult ra = a.trainStep(batch);
                TrainResult rb = b.trainStep(batch);
                assertEquals(ra, rb);
                assertEquals(a.checksum(), b.checksum(), "after step " + a.step());
            }
            assertArrayEquals(a.parameterVector(), b.parameterVector());
            assertEquals(8, a.step());
        }
    }

    @Test
    void checksumReflectsSeedTypeAndTraining() {
        GcnModel a = new GcnModel(CONFIG);
        long initial = a.checksum();
        GcnModel other =
                new GcnModel(
                        ModelConfig.builder()
                                .modelType(ModelType.GCN)
                                .inFeatures(12)
                                .hidden(16)
                                .numClasses(4)
                                .numLayers(2)
                                .seed(18)
                                .build());
        assertNotEquals(initial, other.checksum());
        assertNotEquals(
                initial,
                new SageModel(
                                ModelConfig.builder()
                                        .inFeatures(12)
                                        .hidden(16)
                                        .numClasses(4)
                                        .numLayers(2)
                                        .seed(17)
                                        .build())
                        .checksum());
        a.trainStep(batches(1).get(0));
        assertNotEquals(initial, a.checksum());
    }

    @Test
    void restoredModelContinuesBitIdentically() {
        List<MiniBatch> batches = batches(10);
        GnnModel uninterrupted = GnnModel.create(CONFIG);
        GnnModel first = GnnModel.create(CONFIG);
        for (int i = 0; i < 4; i++) {
            uninterrupted.trainStep(batches.get(i));
            first.trainStep(batches.get(i));
        }
        ModelState state = first.snapshot();
        first.trainStep(batches.get(4));
        GnnModel restored = GnnModel.restore(CONFIG, state);
        assertTrue(restored instanceof GcnModel);
        assertEquals(4, restored.step());
        for (int i = 4; i < batches.size(); i++) {
            assertEquals(
                    uninterrupted.trainStep(batches.get(i)), restored.trainStep(batches.get(i)));
        }
        assertEquals(uninterrupted.checksum(), restored.checksum());
        ModelState u = uninterrupted.snapshot();
        ModelState r = restored.snapshot();
        assertEquals(u.step, r.step);
        for (int t = 0; t < u.params.length; t++) {
            assertArrayEquals(u.params[t], r.params[t]);
            assertArrayEquals(u.adamM[t], r.adamM[t]);
            assertArrayEquals(u.adamV[t], r.adamV[t]);
        }
        assertArrayEquals(
                uninterrupted.evaluate(batches.get(0)).predictions(),
                restored.evaluate(batches.get(0)).predictions());
    }

    @Test
    void snapshotIsADeepCopyAndRestoreChecksShapes() {
        GcnModel model = new GcnModel(CONFIG);
        ModelState state = model.snapshot();
        assertEquals(4, state.params.length);
        long before = model.checksum();
        state.params[0][0] += 1f;
        assertEquals(before, model.checksum());
        state.adamV[1] = new float[3];
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> GcnModel.restore(CONFIG, state));
        assertTrue(e.getMessage().contains("layers.0.bias"), e.getMessage());
    }

    @Test
    void separateGradientAndApplyEqualsTrainStep() {
        List<MiniBatch> batches = batches(3);
        GcnModel a = new GcnModel(CONFIG);
        GcnModel b = new GcnModel(CONFIG);
        for (MiniBatch batch : batches) {
            a.trainStep(batch);
            Gradients g = b.computeGradients(batch);
            assertEquals(a.step() - 1, b.step(), "computing gradients must not advance the step");
            b.applyGradients(g.grad());
        }
        assertEquals(a.checksum(), b.checksum());
    }

    @Test
    void closedModelReallocatesAndStaysIdentical() {
        List<MiniBatch> batches = batches(4);
        GcnModel a = new GcnModel(CONFIG);
        GcnModel b = new GcnModel(CONFIG);
        for (MiniBatch batch : batches) {
            a.trainStep(batch);
            b.trainStep(batch);
            b.close();
        }
        assertEquals(a.checksum(), b.checksum());
        EvalResult ea = a.evaluate(batches.get(1));
        b.close();
        EvalResult eb = b.evaluate(batches.get(1));
        assertEquals(ea.lossSum(), eb.lossSum());
        assertArrayEquals(ea.predictions(), eb.predictions());
    }

    @Test
    void phaseTimingNamesThePhases() {
        try (GcnModel model = new GcnModel(CONFIG)) {
            model.setPhaseTiming(true);
            model.trainStep(batches(1).get(0));
            assertTrue(
                    model.phaseNanos().containsKey("build_input.0"), model.phaseNanos().toString());
            assertTrue(model.phaseCpuNanos().containsKey("adam"), model.phaseCpuNanos().toString());
            model.setPhaseTiming(false);
            assertTrue(model.phaseNanos().isEmpty());
        }
    }
}

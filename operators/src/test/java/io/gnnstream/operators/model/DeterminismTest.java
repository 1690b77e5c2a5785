package io.gnnstream.operators.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.operators.messages.MiniBatch;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Replicas and restored models of every type stay bit-identical to uninterrupted training. */
class DeterminismTest {

    /** Dropout, weight decay and a cosine learning-rate decay over the steps the tests take. */
    private static ModelConfig config(ModelCase c) {
        return c.config()
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
    }

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

    @ParameterizedTest(name = "{0}")
    @MethodSource(ModelCase.ALL)
    void replicasWithSameSeedStayBitIdentical(ModelCase c) {
        List<MiniBatch> batches = batches(8);
        try (GnnModel a = GnnModel.create(config(c));
                GnnModel b = GnnModel.create(config(c))) {
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

    @ParameterizedTest(name = "{0}")
    @MethodSource(ModelCase.ALL)
    void checksumReflectsSeedTypeAndTraining(ModelCase c) {
        try (GnnModel a = GnnModel.create(config(c));
                GnnModel other =
                        GnnModel.create(
                                c.config()
                                        .inFeatures(12)
                                        .hidden(16)
                                        .numClasses(4)
                                        .numLayers(2)
                                        .seed(18)
                                        .build())) {
            long initial = a.checksum();
            assertNotEquals(initial, other.checksum());
            for (ModelType type : ModelType.values()) {
                if (type != c.type()) {
                    ModelConfig sameSeed =
                            ModelConfig.builder()
                                    .modelType(type)
                                    .inFeatures(12)
                                    .hidden(16)
                                    .numClasses(4)
                                    .numLayers(2)
                                    .seed(17)
                                    .build();
                    try (GnnModel otherType = GnnModel.create(sameSeed)) {
                        assertNotEquals(initial, otherType.checksum(), type.id());
                    }
                }
            }
            a.trainStep(batches(1).get(0));
            assertNotEquals(initial, a.checksum());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(ModelCase.ALL)
    void restoredModelContinuesBitIdentically(ModelCase c) {
        ModelConfig config = config(c);
        List<MiniBatch> batches = batches(10);
        GnnModel uninterrupted = GnnModel.create(config);
        GnnModel first = GnnModel.create(config);
        for (int i = 0; i < 4; i++) {
            uninterrupted.trainStep(batches.get(i));
            first.trainStep(batches.get(i));
        }
        ModelState state = first.snapshot();
        first.trainStep(batches.get(4));
        GnnModel restored = GnnModel.restore(config, state);
        assertEquals(c.modelClass(), restored.getClass());
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
        uninterrupted.close();
        first.close();
        restored.close();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(ModelCase.ALL)
    void snapshotIsADeepCopyAndRestoreChecksShapes(ModelCase c) {
        ModelConfig config = config(c);
        try (GnnModel model = GnnModel.create(config)) {
            ModelState state = model.snapshot();
            assertEquals(2 * c.layerTensors().size(), state.params.length);
            long before = model.checksum();
            state.params[0][0] += 1f;
            assertEquals(before, model.checksum());
            state.adamV[c.layerTensors().indexOf("bias")] = new float[3];
            IllegalArgumentException e =
                    assertThrows(
                            IllegalArgumentException.class, () -> GnnModel.restore(config, state));
            assertTrue(e.getMessage().contains("layers.0.bias"), e.getMessage());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(ModelCase.ALL)
    void separateGradientAndApplyEqualsTrainStep(ModelCase c) {
        List<MiniBatch> batches = batches(3);
        try (GnnModel a = GnnModel.create(config(c));
                GnnModel b = GnnModel.create(config(c))) {
            for (MiniBatch batch : batches) {
                a.trainStep(batch);
                Gradients g = b.computeGradients(batch);
                assertEquals(
                        a.step() - 1, b.step(), "computing gradients must not advance the step");
                b.applyGradients(g.grad());
            }
            assertEquals(a.checksum(), b.checksum());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(ModelCase.ALL)
    void closedModelReallocatesAndStaysIdentical(ModelCase c) {
        List<MiniBatch> batches = batches(4);
        try (GnnModel a = GnnModel.create(config(c));
                GnnModel b = GnnModel.create(config(c))) {
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
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(ModelCase.ALL)
    void phaseTimingNamesThePhases(ModelCase c) {
        try (GnnModel model = GnnModel.create(config(c))) {
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

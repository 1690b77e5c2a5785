package io.gnnstream.benchmarks.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.gnnstream.operators.model.ModelConfig;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the {@code bench} command hands its benchmarks: context, graph specs, baselines. */
class BenchContextTest {

    @Test
    void contextKeepsFanoutsAndPrefetchOrFallsBack() {
        BenchContext given =
                new BenchContext(
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        List.of(-1, 5),
                        16,
                        null,
                        false,
                        System.out);
        assertEquals(List.of(-1, 5), given.fanoutsOr(List.of(25, 10)));
        assertEquals(16, given.prefetchOr(4));
        BenchContext none = BenchContext.defaults();
        assertEquals(List.of(25, 10), none.fanoutsOr(List.of(25, 10)));
        assertEquals(4, none.prefetchOr(4));
        assertThrows(
                IllegalArgumentException.class,
                () ->
                        new BenchContext(
                                null,
                                null,
                                null,
                                null,
                                null,
                                null,
                                null,
                                List.of(-3),
                                null,
                                null,
                                false,
                                System.out));
        assertThrows(
                IllegalArgumentException.class,
                () ->
                        new BenchContext(
                                null,
                                null,
                                null,
                                null,
                                null,
                                null,
                                null,
                                Arrays.asList(5, null),
                                null,
                                null,
                                false,
                                System.out));
    }

    @Test
    void contextKeepsTrainersAndHiddenOrFallsBack() {
        BenchContext given =
                new BenchContext(
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        List.of(1, 2),
                        List.of(64, 1024),
                        false,
                        System.out);
        assertEquals(List.of(1, 2), given.trainersOr(List.of(4)));
        assertEquals(List.of(64, 1024), given.hiddenOr(List.of()));
        BenchContext none = BenchContext.defaults();
        assertEquals(List.of(1, 2), none.trainersOr(List.of(1, 2)));
        assertEquals(List.of(), none.hiddenOr(List.of()));
        assertThrows(
                IllegalArgumentException.class,
                () ->
                        new BenchContext(
                                null,
                                null,
                                null,
                                null,
                                null,
                                null,
                                null,
                                null,
                                null,
                                null,
                                List.of(0),
                                null,
                                false,
                                System.out));
        assertThrows(
                IllegalArgumentException.class,
                () ->
                        new BenchContext(
                                null,
                                null,
                                null,
                                null,
                                null,
                                null,
                                null,
                                null,
                                null,
                                null,
                                null,
                                Arrays.asList(64, null),
                                false,
                                System.out));
    }

    @Test
    void allReduceSizesFollowTheModel() {
        ModelConfig sage =
                ModelConfig.builder()
                        .inFeatures(128)
                        .hidden(256)
                        .numClasses(10)
                        .numLayers(2)
                        .build();
        long params = (2 * 128 + 1) * 256 + (2 * 256 + 1) * 10;
        assertEquals(params, AllReduceBenchmark.parameterCount(sage));
        assertEquals(params * 4 * 2 * 2, AllReduceBenchmark.allReduceBytesPerStep(params, 2));
        assertEquals(0, AllReduceBenchmark.allReduceBytesPerStep(params, 1));
        assertEquals(2, AllReduceBenchmark.threadsPerTrainer(2, 1));
        assertEquals(1, AllReduceBenchmark.threadsPerTrainer(2, 2));
        assertEquals(1, AllReduceBenchmark.threadsPerTrainer(3, 2));
    }

    @Test
    void syntheticSpecParses() {
        assertEquals(
                new SyntheticSpec(2_000_000, 15, 128, 10), SyntheticSpec.parse("2M, 15,128,10"));
        assertEquals(new SyntheticSpec(5_000, 4, 8, 2), SyntheticSpec.parse("5k,4,8,2"));
        assertThrows(IllegalArgumentException.class, () -> SyntheticSpec.parse("x,1,2,3"));
        assertThrows(IllegalArgumentException.class, () -> SyntheticSpec.parse("10,1,2,1"));
    }

    @Test
    void aResultTakesItsBaselineOfTheSameRun() {
        BenchResult ours =
                new BenchResult("train", Map.of("threads", 1), "seeds/s", Stats.of(4, 6), null);
        BenchResult compared = ours.withBaseline(new Baseline("pytorch-1.13-cpu-1t", 2.5));
        assertEquals(null, ours.getRatio());
        assertEquals(2.0, compared.getRatio());
        assertEquals(ours.getParams(), compared.getParams());
    }
}

package io.gnnstream.benchmarks.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class SteadyRateTest {

    private static final long SECOND = 1_000_000_000L;

    private static SteadyRate.Sample at(double seconds, long count) {
        return new SteadyRate.Sample(Math.round(seconds * SECOND), count);
    }

    @Test
    void rateRunsBetweenTheFirstSamplesAtOrAboveTenAndNinetyPercent() {
        List<SteadyRate.Sample> samples =
                List.of(at(0, 0), at(1, 5), at(2, 20), at(3, 50), at(4, 95), at(5, 100));
        SteadyRate.Window w = SteadyRate.between(samples, 100);
        assertEquals(at(2, 20), w.from());
        assertEquals(at(4, 95), w.to());
        assertEquals(75 / 2.0, w.perSecond(), 1e-9);
        assertEquals(3, w.samples());
    }

    @Test
    void startUpBeforeTheFirstRecordsIsNotTimed() {
        List<SteadyRate.Sample> late =
                List.of(at(0, 0), at(30, 0), at(31, 10), at(32, 50), at(33, 90), at(34, 100));
        assertEquals(40.0, SteadyRate.between(late, 100).perSecond(), 1e-9);
    }

    @Test
    void samplesExactlyAtTheThresholdsCount() {
        SteadyRate.Window w =
                SteadyRate.between(List.of(at(1, 9), at(2, 10), at(3, 89), at(4, 90)), 100);
        assertEquals(at(2, 10), w.from());
        assertEquals(at(4, 90), w.to());
    }

    @Test
    void thresholdsOfSmallTotalsRoundUp() {
        SteadyRate.Window w =
                SteadyRate.between(List.of(at(1, 1), at(2, 2), at(3, 13), at(4, 14)), 15);
        assertEquals(at(2, 2), w.from(), "10 % of 15 is 1.5 records: the first sample with 2");
        assertEquals(at(4, 14), w.to(), "90 % of 15 is 13.5 records: the first sample with 14");
    }

    @Test
    void samplesThatNeverReachNinetyPercentAreAClearError() {
        IllegalStateException e =
                assertThrows(
                        IllegalStateException.class,
                        () -> SteadyRate.between(List.of(at(1, 10), at(2, 80)), 100));
        assertTrue(e.getMessage().contains("reached only 80 of 100"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> SteadyRate.between(List.of(), 100));
    }

    @Test
    void oneSampleCoveringTheWholeWindowIsAClearError() {
        IllegalStateException e =
                assertThrows(
                        IllegalStateException.class,
                        () -> SteadyRate.between(List.of(at(1, 5), at(2, 100)), 100));
        assertTrue(e.getMessage().contains("too few progress samples"), e.getMessage());
        assertThrows(
                IllegalStateException.class,
                () -> SteadyRate.between(List.of(at(1, 50), at(1, 95)), 100),
                "no time between the samples");
    }

    @Test
    void countersSampledAtTheirOwnMomentsAddUpWithoutStaleValues() {
        List<SteadyRate.Sample> a = List.of(at(0.2, 20), at(0.4, 40), at(0.6, 60), at(0.8, 80));
        List<SteadyRate.Sample> b = List.of(at(0.39, 39), at(0.59, 59), at(0.79, 79), at(0.99, 99));
        List<SteadyRate.Sample> total = SteadyRate.combine(List.of(a, b, List.of()), at(1.0, 200));
        assertEquals(
                List.of(
                        at(0.39, 78),
                        at(0.4, 80),
                        at(0.59, 118),
                        at(0.6, 120),
                        at(0.79, 158),
                        at(0.8, 160),
                        at(0.99, 179),
                        at(1.0, 200)),
                total,
                "from b's first sample on, the other one interpolated, a held at its last value"
                        + " after it");
        assertEquals(
                200.0,
                SteadyRate.between(total, 200).perSecond(),
                1e-6,
                "two counters of 100/s each");
    }

    @Test
    void aCounterThatEndedBeforeAnotherStartedIsHeldAtItsLastValue() {
        List<SteadyRate.Sample> early = List.of(at(0.1, 10), at(0.2, 20));
        List<SteadyRate.Sample> late = List.of(at(0.3, 5), at(0.4, 10));
        List<SteadyRate.Sample> total = SteadyRate.combine(List.of(early, late), at(0.5, 30));
        assertEquals(List.of(at(0.3, 25), at(0.4, 30), at(0.5, 30)), total);
        assertEquals(
                50.0,
                SteadyRate.between(total, 30).perSecond(),
                1e-6,
                "5 records between 0.3 and 0.4 s");
    }

    @Test
    void withoutSamplesOnlyTheEndIsKnown() {
        assertEquals(
                List.of(at(1, 10)), SteadyRate.combine(List.of(List.of(), List.of()), at(1, 10)));
        assertEquals(
                List.of(at(1, 3), at(2, 10)),
                SteadyRate.combine(List.of(List.of(at(1, 3))), at(2, 10)));
    }

    @Test
    void totalMustBePositive() {
        assertThrows(
                IllegalArgumentException.class, () -> SteadyRate.between(List.of(at(1, 0)), 0));
    }
}

package io.gnnstream.benchmarks.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class StatsTest {

    @Test
    void oddCountTakesTheMiddleOfTheSortedSamples() {
        Stats s = Stats.of(5, 1, 9, 3, 7);
        assertEquals(5, s.median());
        assertEquals(1, s.min());
        assertEquals(9, s.max());
        assertEquals(5, s.count());
    }

    @Test
    void evenCountAveragesTheTwoMiddleSamples() {
        assertEquals(2.5, Stats.of(4, 1, 3, 2).median());
        assertEquals(-0.5, Stats.of(-3, 2, -1, 0).median());
    }

    @Test
    void singleSampleIsMedianMinAndMax() {
        Stats s = Stats.of(List.of(42));
        assertEquals(new Stats(42, 42, 42, 1), s);
    }

    @Test
    void inputIsNotReordered() {
        double[] samples = {3, 1, 2};
        Stats.of(samples);
        assertEquals(3, samples[0]);
    }

    @Test
    void rejectsEmptyAndNonFiniteSamples() {
        assertThrows(IllegalArgumentException.class, Stats::of);
        assertThrows(IllegalArgumentException.class, () -> Stats.of(1, Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> Stats.of(Double.POSITIVE_INFINITY));
    }
}

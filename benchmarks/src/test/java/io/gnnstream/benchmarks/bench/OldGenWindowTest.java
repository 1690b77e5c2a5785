package io.gnnstream.benchmarks.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class OldGenWindowTest {

    @Test
    void keepsTheLeastAndTheMostReadingPerTaskManager() {
        OldGenWindow w = new OldGenWindow();
        w.add(List.of(250L, 120L));
        w.add(List.of(241L, 131L));
        w.add(List.of(262L, 118L));
        OldGenWindow.Floor f = w.take();
        assertEquals(List.of(241L, 118L), f.least());
        assertEquals(List.of(262L, 131L), f.most());
        assertEquals(3, f.readings());
    }

    @Test
    void takingStartsANewWindow() {
        OldGenWindow w = new OldGenWindow();
        w.add(List.of(100L, 100L));
        w.take();
        assertEquals(0, w.readings());
        assertThrows(IllegalStateException.class, w::take);
        w.add(List.of(300L, 200L));
        assertEquals(List.of(300L, 200L), w.take().least());
    }

    @Test
    void anotherNumberOfTaskManagersStartsTheWindowAgain() {
        OldGenWindow w = new OldGenWindow();
        w.add(List.of(100L, 100L));
        w.add(List.of(500L, 400L, 300L));
        OldGenWindow.Floor f = w.take();
        assertEquals(List.of(500L, 400L, 300L), f.least());
        assertEquals(1, f.readings());
    }

    @Test
    void describesTheLeastTheReadingsAndTheSpreadInMib() {
        long mib = 1 << 20;
        assertEquals(
                "242/117, 6, +9/+4",
                OldGenWindow.describe(
                        List.of(242 * mib, 117 * mib), List.of(251 * mib, 121 * mib), 6));
    }
}

package io.gnnstream.benchmarks.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * The old-generation readings of one sample window, per TaskManager: the soak reads each
 * TaskManager's old generation after a full collection at every control tick and keeps the least
 * and the most reading since the previous sample. The least is what the job retains: every reading
 * holds the retained bytes, and each holds besides what was in flight at its instant (batches,
 * round buffers, fetched records), which the least of several readings spread over the window
 * leaves out as far as one of them met a quiet instant. The most shows how far one reading could
 * have been off.
 */
final class OldGenWindow {

    /** Per TaskManager, the least and the most reading of a window, and the readings it had. */
    record Floor(List<Long> least, List<Long> most, int readings) {}

    private final List<Long> least = new ArrayList<>();
    private final List<Long> most = new ArrayList<>();
    private int readings;

    /**
     * Adds one reading, a value per TaskManager; a reading of another number of TaskManagers than
     * the window's starts the window again.
     */
    void add(List<Long> bytes) {
        if (readings > 0 && bytes.size() != least.size()) {
            least.clear();
            most.clear();
            readings = 0;
        }
        for (int tm = 0; tm < bytes.size(); tm++) {
            long b = bytes.get(tm);
            if (readings == 0) {
                least.add(b);
                most.add(b);
            } else {
                least.set(tm, Math.min(least.get(tm), b));
                most.set(tm, Math.max(most.get(tm), b));
            }
        }
        readings++;
    }

    int readings() {
        return readings;
    }

    /**
     * A sample's old generations for the log: the least reading per TaskManager in MiB, the number
     * of readings, and how far the most lay above the least ({@code 242/117, 6, +9/+4}).
     */
    static String describe(List<Long> least, List<Long> most, int readings) {
        StringBuilder low = new StringBuilder();
        StringBuilder spread = new StringBuilder();
        for (int tm = 0; tm < least.size(); tm++) {
            String sep = tm > 0 ? "/" : "";
            low.append(sep).append(Math.round(least.get(tm) / 1048576.0));
            spread.append(sep)
                    .append('+')
                    .append(Math.round((most.get(tm) - least.get(tm)) / 1048576.0));
        }
        return low + ", " + readings + ", " + spread;
    }

    /** The window's least and most readings; the next reading starts a new window. */
    Floor take() {
        if (readings == 0) {
            throw new IllegalStateException("no reading in the window");
        }
        Floor f = new Floor(List.copyOf(least), List.copyOf(most), readings);
        least.clear();
        most.clear();
        readings = 0;
        return f;
    }
}

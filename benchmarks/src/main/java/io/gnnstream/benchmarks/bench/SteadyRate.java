package io.gnnstream.benchmarks.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

/**
 * The rate of a bounded run at steady state: records per second between the first progress samples
 * at or above two fractions of the total (10 % and 90 %), so that job start-up before the first
 * records and the drain after the last ones are not timed. Both ends are progress samples (for
 * several counters, see {@link #combine}), not extrapolations: the figure is the records counted
 * between them over the time between them.
 */
public final class SteadyRate {

    /** The fraction of the total where the timed window starts. */
    public static final double FROM = 0.1;

    /** The fraction of the total where the timed window ends. */
    public static final double TO = 0.9;

    /** {@code count} records were done at {@code nanos} ({@link System#nanoTime()}). */
    public record Sample(long nanos, long count) {}

    /** The rate and the samples it came from, for the log. */
    public record Window(double perSecond, Sample from, Sample to, int samples) {

        public String describe() {
            return String.format(
                    Locale.ROOT,
                    "%,d -> %,d records in %.3f s, %d samples",
                    from.count,
                    to.count,
                    (to.nanos - from.nanos) / 1e9,
                    samples);
        }
    }

    private SteadyRate() {}

    /**
     * Records per second between the first sample with at least {@code FROM * total} records and
     * the first with at least {@code TO * total}; {@code samples} must be in time order.
     *
     * @throws IllegalStateException when the samples never reach {@code TO * total}, or when one
     *     sample (or one instant) covers the whole window, so that no rate can be measured
     */
    public static Window between(List<Sample> samples, long total) {
        if (total < 1) {
            throw new IllegalArgumentException("total must be >= 1, got " + total);
        }
        int from = firstAtLeast(samples, Math.ceil(FROM * total));
        int to = firstAtLeast(samples, Math.ceil(TO * total));
        long reached = samples.isEmpty() ? 0 : samples.get(samples.size() - 1).count;
        if (to < 0) {
            throw new IllegalStateException(
                    String.format(
                            Locale.ROOT,
                            "progress samples reached only %,d of %,d records (%d samples); no %.0f"
                                    + " %% crossing to time",
                            reached,
                            total,
                            samples.size(),
                            TO * 100));
        }
        Sample a = samples.get(from);
        Sample b = samples.get(to);
        if (b.nanos <= a.nanos || b.count <= a.count) {
            throw new IllegalStateException(
                    String.format(
                            Locale.ROOT,
                            "too few progress samples: %.0f %% and %.0f %% of %,d records were"
                                + " crossed in the same sample (%d samples in all); use a larger"
                                + " graph",
                            FROM * 100,
                            TO * 100,
                            total,
                            samples.size()));
        }
        double perSecond = (b.count - a.count) / ((b.nanos - a.nanos) / 1e9);
        return new Window(perSecond, a, b, to - from + 1);
    }

    /**
     * The total of several counters that are each sampled exactly but at their own moments (one per
     * subtask, e.g. publishing their sizes on their own timers): summing the latest value of each
     * would count the others as they were up to one sampling period ago. So the total is taken at
     * every sample time from the moment every counter has a sample on; each other counter is
     * interpolated linearly between its two samples around that time, and after its last sample it
     * is held at that value: a counter is sampled for as long as it changes (the graph store
     * publishes a subtask's counts every interval while it receives edges), so a subtask that
     * finished its share early, before another's first sample even, has nothing more to count.
     * {@code end}, a moment when the total is known (e.g. all input read), comes last. Counters
     * without samples count 0; each list must be in time order.
     */
    public static List<Sample> combine(List<List<Sample>> counters, Sample end) {
        List<List<Sample>> sampled = counters.stream().filter(c -> !c.isEmpty()).toList();
        List<Sample> total = new ArrayList<>();
        if (!sampled.isEmpty()) {
            long from = sampled.stream().mapToLong(c -> c.get(0).nanos).max().getAsLong();
            long to = sampled.stream().mapToLong(c -> c.get(c.size() - 1).nanos).max().getAsLong();
            TreeSet<Long> times = new TreeSet<>();
            sampled.forEach(c -> c.forEach(s -> times.add(s.nanos)));
            for (long t : times.subSet(from, true, to, true)) {
                double sum = 0;
                for (List<Sample> c : sampled) {
                    sum += valueAt(c, t);
                }
                total.add(new Sample(t, Math.round(sum)));
            }
        }
        total.add(end);
        return total;
    }

    /**
     * The counter at {@code t}, not before its first sample: exact at a sample, interpolated
     * between two, its last value after the last.
     */
    private static double valueAt(List<Sample> counter, long t) {
        int lo = 0;
        int hi = counter.size() - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (counter.get(mid).nanos <= t) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        Sample a = counter.get(lo);
        if (a.nanos == t || lo == counter.size() - 1) {
            return a.count;
        }
        Sample b = counter.get(lo + 1);
        return a.count + (double) (b.count - a.count) * (t - a.nanos) / (b.nanos - a.nanos);
    }

    private static int firstAtLeast(List<Sample> samples, double threshold) {
        for (int i = 0; i < samples.size(); i++) {
            if (samples.get(i).count >= threshold) {
                return i;
            }
        }
        return -1;
    }
}

package io.gnnstream.benchmarks.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * The soak's targets (issue 50) over its samples: every checkpoint completes, no restart, old
 * generation after a full collection and RocksDB memory grow less than 1 % per 10 minutes over the
 * last 20 (least-squares slope over the mean), checkpoint bytes per live edge within ± 10 % of
 * minute 10's, change-topic lag under 10 s, live edges within ± 5 % of their count when the changes
 * began. A run shorter than 30 minutes fits the growth over its last two thirds and takes its
 * reference for bytes per edge at a third of the run.
 */
final class SoakTargets {

    static final double GROWTH_PERCENT_PER_10_MIN = 1;
    static final double BYTES_PER_EDGE_PERCENT = 10;
    static final double LAG_SECONDS = 10;
    static final double LIVE_EDGES_PERCENT = 5;

    /**
     * One sample, {@code minute} minutes after the changes began; {@code oldGenBytes} has one entry
     * per TaskManager, the least of the {@code oldGenReadings} readings since the previous sample
     * (what the targets judge), {@code oldGenMaxBytes} the most of them; {@code step} (the training
     * step) and {@code predictions} (incremental ones so far) show that training and predictions
     * run.
     */
    record Sample(
            double minute,
            long checkpointsCompleted,
            long checkpointsFailed,
            long restarts,
            List<Long> oldGenBytes,
            List<Long> oldGenMaxBytes,
            int oldGenReadings,
            long rocksDbBytes,
            long checkpointBytes,
            long liveEdges,
            double lagSeconds,
            long step,
            long predictions) {

        double bytesPerEdge() {
            return liveEdges == 0 ? Double.NaN : (double) checkpointBytes / liveEdges;
        }
    }

    /** One target's figure and whether it was met. */
    record Verdict(String figure, String unit, double value, String target, boolean met) {

        String line() {
            return String.format(
                    Locale.ROOT,
                    "%-32s %12s %-14s target %-26s %s",
                    figure,
                    BenchReport.number(value),
                    unit,
                    target,
                    met ? "met" : "MISSED");
        }
    }

    private SoakTargets() {}

    /** The minute from which growth is judged: the last 20 of 30 or more, else the last 2/3. */
    static double growthFrom(int minutes) {
        return minutes >= 30 ? minutes - 20 : minutes / 3.0;
    }

    /** The verdicts of a run of {@code minutes} whose changes began at {@code liveEdgesAtStart}. */
    static List<Verdict> verdicts(List<Sample> samples, int minutes, long liveEdgesAtStart) {
        if (samples.isEmpty()) {
            throw new IllegalArgumentException("no samples");
        }
        Sample first = samples.get(0);
        Sample last = samples.get(samples.size() - 1);
        double growthFrom = growthFrom(minutes);
        double reference = minutes >= 30 ? 10 : minutes / 3.0;
        List<Verdict> out = new ArrayList<>();
        out.add(
                new Verdict(
                        "checkpoints_failed",
                        "checkpoints",
                        last.checkpointsFailed(),
                        "0, and more completed",
                        last.checkpointsFailed() == 0
                                && last.checkpointsCompleted() > first.checkpointsCompleted()));
        out.add(new Verdict("restarts", "restarts", last.restarts(), "0", last.restarts() == 0));
        double oldGen = 0;
        for (int tm = 0; tm < first.oldGenBytes().size(); tm++) {
            int t = tm;
            oldGen = Math.max(oldGen, growth(samples, growthFrom, s -> s.oldGenBytes().get(t)));
        }
        String growthTarget =
                String.format(
                        Locale.ROOT,
                        "< %.0f %%/10 min from min %.0f",
                        GROWTH_PERCENT_PER_10_MIN,
                        growthFrom);
        out.add(
                new Verdict(
                        "old_gen_growth_max_tm",
                        "%/10 min",
                        oldGen,
                        growthTarget,
                        oldGen < GROWTH_PERCENT_PER_10_MIN));
        double rocks = growth(samples, growthFrom, Sample::rocksDbBytes);
        out.add(
                new Verdict(
                        "rocksdb_memory_growth",
                        "%/10 min",
                        rocks,
                        growthTarget,
                        rocks < GROWTH_PERCENT_PER_10_MIN));
        double perEdge = bytesPerEdgeDeviation(samples, reference);
        out.add(
                new Verdict(
                        "checkpoint_bytes_per_edge_dev",
                        "% of ref",
                        perEdge,
                        String.format(
                                Locale.ROOT,
                                "within ± %.0f %% of min %.0f",
                                BYTES_PER_EDGE_PERCENT,
                                reference),
                        perEdge <= BYTES_PER_EDGE_PERCENT));
        double lag = samples.stream().mapToDouble(Sample::lagSeconds).max().orElseThrow();
        out.add(
                new Verdict(
                        "change_lag_max",
                        "s",
                        lag,
                        String.format(Locale.ROOT, "< %.0f s", LAG_SECONDS),
                        lag < LAG_SECONDS));
        double live =
                samples.stream()
                        .mapToDouble(s -> Math.abs(100.0 * s.liveEdges() / liveEdgesAtStart - 100))
                        .max()
                        .orElseThrow();
        out.add(
                new Verdict(
                        "live_edges_dev_max",
                        "% of start",
                        live,
                        String.format(Locale.ROOT, "within ± %.0f %%", LIVE_EDGES_PERCENT),
                        live <= LIVE_EDGES_PERCENT));
        return out;
    }

    /**
     * The least-squares slope of {@code value} over the samples from minute {@code from} on, in
     * percent of their mean per 10 minutes (NaN with fewer than two samples).
     */
    static double growth(List<Sample> samples, double from, ToDoubleFunction<Sample> value) {
        List<Sample> window = samples.stream().filter(s -> s.minute() >= from - 1e-9).toList();
        int n = window.size();
        if (n < 2) {
            return Double.NaN;
        }
        double mx = 0;
        double my = 0;
        for (Sample s : window) {
            mx += s.minute() / n;
            my += value.applyAsDouble(s) / n;
        }
        double sxy = 0;
        double sxx = 0;
        for (Sample s : window) {
            sxy += (s.minute() - mx) * (value.applyAsDouble(s) - my);
            sxx += (s.minute() - mx) * (s.minute() - mx);
        }
        return sxx == 0 || my == 0 ? Double.NaN : 100 * (sxy / sxx) * 10 / my;
    }

    /**
     * The largest deviation, in percent, of checkpoint bytes per live edge after minute {@code
     * reference} from the sample nearest that minute.
     */
    static double bytesPerEdgeDeviation(List<Sample> samples, double reference) {
        Sample ref = samples.get(0);
        for (Sample s : samples) {
            if (Math.abs(s.minute() - reference) < Math.abs(ref.minute() - reference)) {
                ref = s;
            }
        }
        double base = ref.bytesPerEdge();
        double worst = 0;
        for (Sample s : samples) {
            if (s.minute() >= ref.minute()) {
                worst = Math.max(worst, Math.abs(100 * s.bytesPerEdge() / base - 100));
            }
        }
        return worst;
    }
}

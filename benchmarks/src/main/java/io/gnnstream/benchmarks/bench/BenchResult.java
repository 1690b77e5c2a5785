package io.gnnstream.benchmarks.bench;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One benchmark case as written to the JSON list: {@code {"what", "params": {...}, "unit",
 * "median", "min", "max", "baseline": {"name", "median", ...}, "ratio"}} where {@code ratio =
 * median / baseline.median} ({@code baseline} and {@code ratio} are null when there is nothing to
 * compare with). {@code extra} entries (e.g. the machine load during the run) become further
 * top-level fields.
 */
@JsonPropertyOrder({"what", "params", "unit", "median", "min", "max", "baseline", "ratio"})
@JsonInclude(JsonInclude.Include.ALWAYS)
public final class BenchResult {

    /**
     * The {@code extra} entry of a result that is a target: true when met, false when missed
     * ({@code bench} then exits 1).
     */
    public static final String MET = "met";

    private final String what;
    private final Map<String, Object> params;
    private final String unit;
    private final Stats stats;
    private final Baseline baseline;
    private final Map<String, Object> extra;

    public BenchResult(
            String what,
            Map<String, Object> params,
            String unit,
            Stats stats,
            Baseline baseline,
            Map<String, Object> extra) {
        this.what = Objects.requireNonNull(what, "what");
        this.params = Collections.unmodifiableMap(new LinkedHashMap<>(params));
        this.unit = Objects.requireNonNull(unit, "unit");
        this.stats = Objects.requireNonNull(stats, "stats");
        this.baseline = baseline;
        this.extra = Collections.unmodifiableMap(new LinkedHashMap<>(extra));
    }

    public BenchResult(
            String what, Map<String, Object> params, String unit, Stats stats, Baseline baseline) {
        this(what, params, unit, stats, baseline, Map.of());
    }

    public String getWhat() {
        return what;
    }

    public Map<String, Object> getParams() {
        return params;
    }

    public String getUnit() {
        return unit;
    }

    public double getMedian() {
        return stats.median();
    }

    public double getMin() {
        return stats.min();
    }

    public double getMax() {
        return stats.max();
    }

    public Baseline getBaseline() {
        return baseline;
    }

    /** {@code median / baseline.median}, or null without a baseline. */
    public Double getRatio() {
        return baseline == null ? null : stats.median() / baseline.getMedian();
    }

    @JsonAnyGetter
    public Map<String, Object> extra() {
        return extra;
    }

    /** This result compared with {@code baseline} (null: none). */
    public BenchResult withBaseline(Baseline baseline) {
        return new BenchResult(what, params, unit, stats, baseline, extra);
    }

    /** The sample statistics (not a JSON field of its own). */
    public Stats stats() {
        return stats;
    }
}

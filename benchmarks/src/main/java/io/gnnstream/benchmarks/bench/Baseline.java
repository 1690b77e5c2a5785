package io.gnnstream.benchmarks.bench;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The figure a result is compared with: {@code {"name", "median", ...details}}; details (e.g.
 * {@code best_known}) are written as further fields of the same JSON object.
 */
@JsonPropertyOrder({"name", "median"})
public final class Baseline {

    private final String name;
    private final double median;
    private final Map<String, Object> details;

    public Baseline(String name, double median) {
        this(name, median, Map.of());
    }

    public Baseline(String name, double median, Map<String, Object> details) {
        if (!(median > 0) || !Double.isFinite(median)) {
            throw new IllegalArgumentException(
                    "baseline median must be finite and > 0, got " + median);
        }
        this.name = Objects.requireNonNull(name, "name");
        this.median = median;
        this.details = Collections.unmodifiableMap(new LinkedHashMap<>(details));
    }

    public String getName() {
        return name;
    }

    public double getMedian() {
        return median;
    }

    @JsonAnyGetter
    public Map<String, Object> details() {
        return details;
    }
}

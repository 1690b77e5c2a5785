package io.gnnstream.benchmarks.bench;

import java.util.Arrays;
import java.util.Collection;

/**
 * Median, minimum and maximum of a sample; the median of an even count is the mean of the two
 * middle values.
 */
public record Stats(double median, double min, double max, int count) {

    /**
     * @throws IllegalArgumentException if {@code samples} is empty or holds NaN or an infinity
     */
    public static Stats of(double... samples) {
        if (samples.length == 0) {
            throw new IllegalArgumentException("no samples");
        }
        double[] sorted = samples.clone();
        for (double s : sorted) {
            if (!Double.isFinite(s)) {
                throw new IllegalArgumentException("sample is not finite: " + s);
            }
        }
        Arrays.sort(sorted);
        int n = sorted.length;
        double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
        return new Stats(median, sorted[0], sorted[n - 1], n);
    }

    public static Stats of(Collection<? extends Number> samples) {
        return of(samples.stream().mapToDouble(Number::doubleValue).toArray());
    }
}

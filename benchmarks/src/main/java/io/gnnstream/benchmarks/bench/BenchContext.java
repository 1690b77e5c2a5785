package io.gnnstream.benchmarks.bench;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.flink.configuration.MemorySize;

/**
 * What the {@code bench} command line asked for. Overrides are null when not given, so each
 * benchmark applies its own defaults.
 *
 * @param dataset {@code --dataset DIR}, or null
 * @param synthetic {@code --synthetic N,D,F,C}, or null (never both with {@code dataset})
 * @param repeat {@code --repeat R}, or null for the benchmark's {@link Benchmark#defaultRepeat()}
 * @param threads {@code --threads}, or null for the benchmark's cases
 * @param features {@code --features}, or null for the benchmark's cases
 * @param steps {@code --steps}: measured iterations per repeat of step-based cases, or null
 * @param warmup {@code --warmup}: unmeasured iterations before them, or null
 * @param fanouts {@code --fanouts}: neighbours per layer of the sampling cases ({@code -1} = all),
 *     or null
 * @param prefetch {@code --prefetch}: batches in flight per trainer in the sampling cases, or null
 * @param featureCache {@code --feature-cache}: the trainer's feature cache in the sampling cases,
 *     or null
 * @param trainers {@code --trainers}: data-parallel trainer counts to run, or null
 * @param hidden {@code --hidden}: hidden sizes to run, or null
 * @param partitionMap {@code --partition-map}: sample, pipeline also run with this
 *     vertex-to-partition map, or null
 * @param halo {@code --halo}: sample, pipeline: the halo settings to run ({@code none}, {@code
 *     features}), or null
 * @param removals {@code --removals}: ingest: the share of the edges removed again, each removal
 *     mixed into the edges topic after its edge, or null for none
 * @param checkpointInterval {@code --checkpoint-interval}: freshness: the resumed job's, or null
 *     for the default
 * @param minutes {@code --minutes}: soak: how long the change stream runs, or null for the default
 * @param rates {@code --rate}: freshness: graph changes per second, one phase each in ascending
 *     order, or null for the default
 * @param profile {@code --profile}: also print where the time went, where a benchmark can tell
 * @param log progress and profile output (the result table is printed separately)
 */
public record BenchContext(
        Path dataset,
        SyntheticSpec synthetic,
        Integer repeat,
        List<Integer> threads,
        List<Integer> features,
        Integer steps,
        Integer warmup,
        List<Integer> fanouts,
        Integer prefetch,
        MemorySize featureCache,
        List<Integer> trainers,
        List<Integer> hidden,
        Path partitionMap,
        List<String> halo,
        Double removals,
        List<Integer> rates,
        Duration checkpointInterval,
        Integer minutes,
        boolean profile,
        PrintStream log) {

    public BenchContext {
        requirePositive(minutes, "--minutes");
        requireAllPositive(rates, "--rate");
        if (checkpointInterval != null && checkpointInterval.toMillis() < 100) {
            throw new IllegalArgumentException(
                    "--checkpoint-interval must be at least 100 ms, got " + checkpointInterval);
        }
        if (removals != null && !(removals >= 0 && removals < 1)) {
            throw new IllegalArgumentException("--removals must be in [0, 1), got " + removals);
        }
        if (dataset != null && synthetic != null) {
            throw new IllegalArgumentException("--dataset and --synthetic are mutually exclusive");
        }
        requirePositive(repeat, "--repeat");
        requirePositive(steps, "--steps");
        if (warmup != null && warmup < 0) {
            throw new IllegalArgumentException("--warmup must be >= 0, got " + warmup);
        }
        requireAllPositive(threads, "--threads");
        requireAllPositive(features, "--features");
        requireAllPositive(trainers, "--trainers");
        requireAllPositive(hidden, "--hidden");
        requirePositive(prefetch, "--prefetch");
        if (fanouts != null) {
            for (Integer f : fanouts) {
                if (f == null || (f != -1 && f < 1)) {
                    throw new IllegalArgumentException(
                            "--fanouts entries must be >= 1 or -1 (all neighbours), got "
                                    + fanouts.stream()
                                            .map(String::valueOf)
                                            .collect(Collectors.joining(",")));
                }
            }
        }
        threads = threads == null || threads.isEmpty() ? null : List.copyOf(threads);
        features = features == null || features.isEmpty() ? null : List.copyOf(features);
        fanouts = fanouts == null || fanouts.isEmpty() ? null : List.copyOf(fanouts);
        trainers = trainers == null || trainers.isEmpty() ? null : List.copyOf(trainers);
        hidden = hidden == null || hidden.isEmpty() ? null : List.copyOf(hidden);
        halo = halo == null || halo.isEmpty() ? null : List.copyOf(halo);
        if (halo != null) {
            for (String h : halo) {
                if (!h.equals("none") && !h.equals("features")) {
                    throw new IllegalArgumentException(
                            "--halo entries must be none or features, got " + h);
                }
            }
        }
    }

    /** Without {@code --rate}. */
    public BenchContext(
            Path dataset,
            SyntheticSpec synthetic,
            Integer repeat,
            List<Integer> threads,
            List<Integer> features,
            Integer steps,
            Integer warmup,
            List<Integer> fanouts,
            Integer prefetch,
            MemorySize featureCache,
            List<Integer> trainers,
            List<Integer> hidden,
            Path partitionMap,
            List<String> halo,
            Double removals,
            boolean profile,
            PrintStream log) {
        this(
                dataset,
                synthetic,
                repeat,
                threads,
                features,
                steps,
                warmup,
                fanouts,
                prefetch,
                featureCache,
                trainers,
                hidden,
                partitionMap,
                halo,
                removals,
                null,
                null,
                null,
                profile,
                log);
    }

    /** Without {@code --partition-map}, {@code --halo} and {@code --removals}. */
    public BenchContext(
            Path dataset,
            SyntheticSpec synthetic,
            Integer repeat,
            List<Integer> threads,
            List<Integer> features,
            Integer steps,
            Integer warmup,
            List<Integer> fanouts,
            Integer prefetch,
            MemorySize featureCache,
            List<Integer> trainers,
            List<Integer> hidden,
            boolean profile,
            PrintStream log) {
        this(
                dataset,
                synthetic,
                repeat,
                threads,
                features,
                steps,
                warmup,
                fanouts,
                prefetch,
                featureCache,
                trainers,
                hidden,
                null,
                null,
                null,
                profile,
                log);
    }

    /** Without {@code --trainers} and {@code --hidden}. */
    public BenchContext(
            Path dataset,
            SyntheticSpec synthetic,
            Integer repeat,
            List<Integer> threads,
            List<Integer> features,
            Integer steps,
            Integer warmup,
            List<Integer> fanouts,
            Integer prefetch,
            MemorySize featureCache,
            boolean profile,
            PrintStream log) {
        this(
                dataset,
                synthetic,
                repeat,
                threads,
                features,
                steps,
                warmup,
                fanouts,
                prefetch,
                featureCache,
                null,
                null,
                profile,
                log);
    }

    /** Defaults everywhere, logging to stdout. */
    public static BenchContext defaults() {
        return new BenchContext(
                null, null, null, null, null, null, null, null, null, null, false, System.out);
    }

    public Duration checkpointIntervalOr(Duration fallback) {
        return checkpointInterval != null ? checkpointInterval : fallback;
    }

    public int minutesOr(int fallback) {
        return minutes != null ? minutes : fallback;
    }

    public List<Integer> ratesOr(List<Integer> fallback) {
        return rates != null ? rates : fallback;
    }

    public int repeatOr(int fallback) {
        return repeat != null ? repeat : fallback;
    }

    public int stepsOr(int fallback) {
        return steps != null ? steps : fallback;
    }

    public int warmupOr(int fallback) {
        return warmup != null ? warmup : fallback;
    }

    public List<Integer> threadsOr(List<Integer> fallback) {
        return threads != null ? threads : fallback;
    }

    public List<Integer> featuresOr(List<Integer> fallback) {
        return features != null ? features : fallback;
    }

    public List<Integer> fanoutsOr(List<Integer> fallback) {
        return fanouts != null ? fanouts : fallback;
    }

    public List<Integer> trainersOr(List<Integer> fallback) {
        return trainers != null ? trainers : fallback;
    }

    public List<Integer> hiddenOr(List<Integer> fallback) {
        return hidden != null ? hidden : fallback;
    }

    public int prefetchOr(int fallback) {
        return prefetch != null ? prefetch : fallback;
    }

    public double removalsOr(double fallback) {
        return removals != null ? removals : fallback;
    }

    public List<String> haloOr(List<String> fallback) {
        return halo != null ? halo : fallback;
    }

    public MemorySize featureCacheOr(MemorySize fallback) {
        return featureCache != null ? featureCache : fallback;
    }

    /**
     * Machine facts worth keeping next to a number measured on shared cores: the processor count,
     * the 1-minute load average (when the OS reports one) and the OpenBLAS kernel choice.
     */
    public static Map<String, Object> environment() {
        Map<String, Object> env = new LinkedHashMap<>();
        env.put("cpus", Runtime.getRuntime().availableProcessors());
        String coretype = System.getenv("OPENBLAS_CORETYPE");
        env.put("openblas_coretype", coretype == null || coretype.isEmpty() ? "auto" : coretype);
        double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        if (load >= 0) {
            env.put("load_avg_1m", Math.round(load * 100) / 100.0);
        }
        return env;
    }

    private static void requireAllPositive(List<Integer> values, String flag) {
        if (values != null) {
            for (Integer v : values) {
                if (v == null) {
                    throw new IllegalArgumentException(flag + " has an empty entry");
                }
                requirePositive(v, flag);
            }
        }
    }

    private static void requirePositive(Integer v, String flag) {
        if (v != null && v < 1) {
            throw new IllegalArgumentException(flag + " must be >= 1, got " + v);
        }
    }
}

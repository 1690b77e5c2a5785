package io.gnnstream.benchmarks.bench;

import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/** The registry of {@code bench} cases: add one line per {@link Benchmark} implementation. */
public final class Benchmarks {

    /** All benchmarks, in {@code --help} order. */
    public static final List<Benchmark> ALL =
            List.of(
                    new IngestBenchmark(),
                    new SampleBenchmark(),
                    new TrainBenchmark(),
                    new PipelineBenchmark(),
                    new AllReduceBenchmark(),
                    new ScaleBenchmark(),
                    new DeleteBenchmark(),
                    new FreshnessBenchmark(),
                    new SoakBenchmark(),
                    new ClusterScaleBenchmark());

    private Benchmarks() {}

    public static Optional<Benchmark> find(String name) {
        return ALL.stream().filter(b -> b.name().equals(name)).findFirst();
    }

    /**
     * The benchmark called {@code name}, or an {@link IllegalArgumentException} naming the choices.
     */
    public static Benchmark require(String name) {
        return find(name)
                .orElseThrow(
                        () ->
                                new IllegalArgumentException(
                                        "unknown benchmark '" + name + "'; available: " + names()));
    }

    public static String names() {
        return ALL.stream().map(Benchmark::name).collect(Collectors.joining(", "));
    }
}

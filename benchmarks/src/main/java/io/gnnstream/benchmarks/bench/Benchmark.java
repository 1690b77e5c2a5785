package io.gnnstream.benchmarks.bench;

import java.util.List;

/**
 * One {@code bin/gnnstream bench <what>} case family. To add one, implement this interface and add
 * an instance to {@link Benchmarks#ALL}; the command, table and JSON output need no changes.
 */
public interface Benchmark {

    /** The {@code <what>} argument, e.g. {@code train}. */
    String name();

    /** One line for {@code --help}. */
    String description();

    /**
     * Default repeat count when {@code --repeat} is not given (3 for whole-pipeline cases;
     * step-based cases may use 1 repeat of many measured steps).
     */
    default int defaultRepeat() {
        return 3;
    }

    /**
     * Runs every case and returns one result per case, each with median/min/max over the samples.
     * Progress may be printed to {@link BenchContext#log()}; the table is printed by the caller.
     */
    List<BenchResult> run(BenchContext context) throws Exception;
}

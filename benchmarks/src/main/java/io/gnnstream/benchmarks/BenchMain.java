package io.gnnstream.benchmarks;

import io.gnnstream.cli.GnnstreamCli;
import picocli.CommandLine;

/**
 * Entry point of {@code bin/gnnstream bench}, {@code plot} and the usage that lists every command:
 * the {@code gnnstream} command line with the benchmark commands, run from this module's classpath
 * ({@code benchmarks/target/runtime-classpath.txt}), so that the other commands run without JMH and
 * Flink's test jars.
 */
public final class BenchMain {

    private BenchMain() {}

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** {@link GnnstreamCli#commandLine} with {@code bench} and {@code plot}. */
    public static CommandLine commandLine() {
        return GnnstreamCli.commandLine(new BenchCommand(), new PlotCommand());
    }
}

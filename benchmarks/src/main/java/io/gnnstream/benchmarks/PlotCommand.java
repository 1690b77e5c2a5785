package io.gnnstream.benchmarks;

import io.gnnstream.benchmarks.bench.ScalingPlot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** Turns benchmark results of several graph sizes into scaling plots and a table. */
@Command(
        name = "plot",
        mixinStandardHelpOptions = true,
        description =
                "Draw scaling plots (PNG, one per benchmark figure) and a Markdown table from"
                        + " 'bench --json' results.")
final class PlotCommand implements Callable<Integer> {

    @Option(
            names = "--json",
            required = true,
            paramLabel = "FILE",
            description = "Results written by 'bench --json'.")
    Path json;

    @Option(
            names = "--out",
            defaultValue = "docs/benchmarks",
            paramLabel = "DIR",
            description = "Output directory (default: ${DEFAULT-VALUE}).")
    Path out;

    @Override
    public Integer call() throws Exception {
        if (!Files.isRegularFile(json)) {
            throw new IllegalArgumentException("no results file " + json);
        }
        for (Path written : ScalingPlot.write(json, out)) {
            System.out.println("wrote " + written);
        }
        return 0;
    }
}

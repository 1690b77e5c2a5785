package io.gnnstream.cli;

import io.gnnstream.tools.SyntheticGraph;
import io.gnnstream.tools.SyntheticGraphOptions;
import io.gnnstream.tools.SyntheticGraphStats;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Writes a synthetic dataset folder; the model is described in {@link SyntheticGraph}. Defaults are
 * the library's constants, so {@code --help} and the README's command line agree.
 */
@Command(
        name = "generate",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Write a synthetic graph dataset folder (nodes.jsonl + edges.csv + README.md, the"
                + " format of data/cora): planted classes, features correlated with them, power-law"
                + " in-degrees, mostly same-class edges. Streams to disk: memory grows with the"
                + " vertices, not the edges.",
            "Example: gnnstream generate --vertices 1000000 --avg-degree 10 --features 128"
                    + " --classes 10 --out work/gen-1m"
        })
final class GenerateCommand implements Callable<Integer> {

    @Option(
            names = "--vertices",
            required = true,
            paramLabel = "N",
            description = "Number of vertices; ids are 0..N-1.")
    int vertices;

    @Option(
            names = "--avg-degree",
            required = true,
            paramLabel = "D",
            description = "Mean in-degree (edges per vertex).")
    double avgDegree;

    @Option(
            names = "--features",
            required = true,
            paramLabel = "F",
            description = "Feature dimension.")
    int features;

    @Option(
            names = "--classes",
            required = true,
            paramLabel = "C",
            description = "Number of planted classes (labels).")
    int classes;

    @Option(
            names = "--out",
            required = true,
            paramLabel = "DIR",
            description = "Output folder, created if missing.")
    Path out;

    @Option(
            names = "--homophily",
            paramLabel = "H",
            defaultValue = "" + SyntheticGraphOptions.DEFAULT_HOMOPHILY,
            description =
                    "Expected fraction of edges within a class, 0..1 (default: ${DEFAULT-VALUE}).")
    double homophily;

    @Option(
            names = "--degree-exponent",
            paramLabel = "A",
            defaultValue = "" + SyntheticGraphOptions.DEFAULT_DEGREE_EXPONENT,
            description =
                    "Power-law exponent of the in-degrees, > 2; smaller means bigger hubs "
                            + "(default: ${DEFAULT-VALUE}).")
    double degreeExponent;

    @Option(
            names = "--seed",
            paramLabel = "S",
            defaultValue = "" + SyntheticGraphOptions.DEFAULT_SEED,
            description =
                    "Random seed; the same arguments give byte-identical files (default:"
                            + " ${DEFAULT-VALUE}).")
    long seed;

    @Option(
            names = "--train-fraction",
            paramLabel = "P",
            defaultValue = "" + SyntheticGraphOptions.DEFAULT_TRAIN_FRACTION,
            description = "Fraction of vertices in the train split (default: ${DEFAULT-VALUE}).")
    double trainFraction;

    @Option(
            names = "--val-fraction",
            paramLabel = "P",
            defaultValue = "" + SyntheticGraphOptions.DEFAULT_VAL_FRACTION,
            description = "Fraction of vertices in the val split (default: ${DEFAULT-VALUE}).")
    double valFraction;

    @Option(
            names = "--test-fraction",
            paramLabel = "P",
            defaultValue = "" + SyntheticGraphOptions.DEFAULT_TEST_FRACTION,
            description =
                    "Fraction of vertices in the test split; the rest is 'none' (default:"
                            + " ${DEFAULT-VALUE}).")
    double testFraction;

    @Option(
            names = "--class-separation",
            paramLabel = "R",
            defaultValue = "" + SyntheticGraphOptions.DEFAULT_CLASS_SEPARATION,
            description =
                    "Norm of each class centroid in units of the per-feature noise; larger makes"
                            + " features alone more predictive (default: ${DEFAULT-VALUE}).")
    double classSeparation;

    @Option(
            names = "--feature-decimals",
            paramLabel = "K",
            defaultValue = "" + SyntheticGraphOptions.DEFAULT_FEATURE_DECIMALS,
            description =
                    "Decimal places written per feature value, 0..9 (default: ${DEFAULT-VALUE}).")
    int featureDecimals;

    @Option(
            names = "--overwrite",
            description = "Replace nodes.jsonl, edges.csv and README.md if --out already has them.")
    boolean overwrite;

    @Override
    public Integer call() throws Exception {
        long started = System.nanoTime();
        SyntheticGraphOptions options =
                SyntheticGraphOptions.builder()
                        .vertices(vertices)
                        .avgDegree(avgDegree)
                        .features(features)
                        .classes(classes)
                        .homophily(homophily)
                        .degreeExponent(degreeExponent)
                        .seed(seed)
                        .splits(trainFraction, valFraction, testFraction)
                        .classSeparation(classSeparation)
                        .featureDecimals(featureDecimals)
                        .build();
        SyntheticGraphStats stats = new SyntheticGraph(options).overwrite(overwrite).write(out);
        System.out.println(
                String.format(
                        Locale.ROOT,
                        "Generated %s: %s; %.1f MB, %.0f s",
                        out,
                        stats,
                        (stats.nodesBytes() + stats.edgesBytes()) / 1e6,
                        (System.nanoTime() - started) / 1e9));
        return 0;
    }
}

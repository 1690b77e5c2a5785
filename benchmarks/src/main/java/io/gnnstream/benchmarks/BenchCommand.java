package io.gnnstream.benchmarks;

import io.gnnstream.benchmarks.bench.BenchContext;
import io.gnnstream.benchmarks.bench.BenchReport;
import io.gnnstream.benchmarks.bench.BenchResult;
import io.gnnstream.benchmarks.bench.Benchmark;
import io.gnnstream.benchmarks.bench.Benchmarks;
import io.gnnstream.benchmarks.bench.SyntheticSpec;
import io.gnnstream.cli.DatasetFormatOptions;
import io.gnnstream.cli.MemorySizeConverter;
import io.gnnstream.tools.Directories;
import io.gnnstream.tools.formats.DatasetFormat;
import io.gnnstream.tools.formats.DatasetReaders;
import io.gnnstream.tools.formats.FormatOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.apache.flink.configuration.MemorySize;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** Runs one benchmark family from {@link Benchmarks}, prints a table and optionally writes JSON. */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        modelTransformer = BenchCommand.ListBenchmarks.class,
        description =
                "Measure a part of gnnstream: prints median, min and max over the repeats and "
                        + "the ratio to a baseline, and writes/appends the results as a JSON list."
                        + " Exits 1 when a benchmark with targets (soak) misses one.")
final class BenchCommand implements Callable<Integer> {

    @Parameters(
            index = "0",
            paramLabel = "<what>",
            completionCandidates = Names.class,
            description = "Benchmark to run: ${COMPLETION-CANDIDATES}.")
    String what;

    @ArgGroup(exclusive = true)
    Input input;

    @Mixin DatasetFormatOptions format = new DatasetFormatOptions();

    static final class Input {
        @Option(
                names = "--dataset",
                paramLabel = "DIR",
                description =
                        "Dataset folder the cases use, in any --format (other layouts are"
                                + " written once as nodes.jsonl + edges.csv under"
                                + " work/bench/).")
        Path dataset;

        @Option(
                names = "--synthetic",
                paramLabel = "N,D,F,C",
                description = "Generated graph: N nodes, average degree D, F features, C classes.")
        String synthetic;
    }

    @Option(
            names = "--repeat",
            paramLabel = "R",
            description =
                    "Repeats per case (default: 3 for whole-pipeline cases, allreduce: 10 windows; "
                            + "train: 1 repeat of --steps steps).")
    Integer repeat;

    @Option(
            names = "--json",
            paramLabel = "FILE",
            description =
                    "Write the results as a JSON list, or append them if FILE already holds one.")
    Path json;

    @Option(
            names = "--threads",
            split = ",",
            paramLabel = "T",
            description =
                    "Thread counts to run, e.g. 1,2 (default: the benchmark's cases); allreduce:"
                            + " one value, the graph parallelism (default: 1).")
    List<Integer> threads;

    @Option(
            names = "--features",
            split = ",",
            paramLabel = "F",
            description =
                    "Feature dimensions to run, e.g. 128,602 (default: the benchmark's cases).")
    List<Integer> features;

    @Option(
            names = "--steps",
            paramLabel = "S",
            description = "Measured steps per repeat of step-based cases (train: 50).")
    Integer steps;

    @Option(
            names = "--warmup",
            paramLabel = "W",
            description =
                    "Unmeasured steps before them (train: 5); sample, pipeline: unmeasured 10-step "
                            + "windows once the graph is in state (20), lasting 15 s at least; "
                            + "freshness: unmeasured seconds at the start of each phase (20).")
    Integer warmup;

    @Option(
            names = "--fanouts",
            split = ",",
            paramLabel = "K",
            description =
                    "sample, pipeline: neighbours per layer from the seeds outwards, -1 = all "
                            + "(default: ${DEFAULT-VALUE}).")
    List<Integer> fanouts;

    @Option(
            names = "--prefetch",
            paramLabel = "N",
            description =
                    "sample, pipeline: batches in flight per trainer (credits) (default:"
                            + " ${DEFAULT-VALUE}).")
    Integer prefetch;

    @Option(
            names = "--feature-cache",
            converter = MemorySizeConverter.class,
            paramLabel = "SIZE",
            description =
                    "sample, pipeline: heap of the trainer's feature cache, 0 = off (default: "
                            + "the job's default, 1gb).")
    MemorySize featureCache;

    @Option(
            names = "--trainers",
            split = ",",
            paramLabel = "T",
            description =
                    "allreduce: data-parallel trainer counts to compare, each rank on max(T)/T "
                            + "ND4J/BLAS threads (default: 1,2).")
    List<Integer> trainers;

    @Option(
            names = "--hidden",
            split = ",",
            paramLabel = "H",
            description =
                    "allreduce: hidden sizes whose all-reduce seconds per step to measure at the "
                            + "largest T, e.g. 64,256,1024 (default: none).")
    List<Integer> hidden;

    @Option(
            names = "--partition-map",
            paramLabel = "MAP",
            description =
                    "sample, pipeline: also run with this map from `partition` (of the same graph),"
                            + " besides hash partitioning; with --halo features also with"
                            + " --local-batches, and then every case with one trainer rank per"
                            + " GraphStore subtask.")
    Path partitionMap;

    @Option(
            names = "--halo",
            split = ",",
            paramLabel = "H",
            description =
                    "sample, pipeline: halo settings to run, none and/or features (default: none).")
    List<String> halo;

    @Option(
            names = "--removals",
            paramLabel = "SHARE",
            description =
                    "ingest: also remove this share of the edges (0.1: one in ten), each removal"
                            + " mixed into the edges topic after its edge (default: none).")
    Double removals;

    @Option(
            names = "--rate",
            split = ",",
            paramLabel = "R",
            description =
                    "freshness: graph changes per second sent to the trained job, one phase per"
                            + " value in ascending order, e.g. 100,200,400 (default: 1000); soak:"
                            + " one rate (default: 1000).")
    List<Integer> rate;

    @Option(
            names = "--checkpoint-interval",
            paramLabel = "DURATION",
            converter = io.gnnstream.cli.DurationConverter.class,
            description =
                    "freshness: the checkpoint interval of the measured job, e.g. 2s; exactly-once"
                        + " predictions become visible at checkpoints (default: the job's, 10 s).")
    java.time.Duration checkpointInterval;

    @Option(
            names = "--minutes",
            paramLabel = "N",
            description =
                    "soak: minutes of the change stream on the trained job, sampled every 30 s (60"
                        + " s from 10 minutes on); the targets' verdicts need 30 (default: 30).")
    Integer minutes;

    @Option(names = "--profile", description = "Also print where the time went, per phase.")
    boolean profile;

    @Spec CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        Benchmark benchmark = Benchmarks.require(what);
        List<BenchResult> results = benchmark.run(context(dataset()));
        System.out.println();
        BenchReport.printTable(results, System.out);
        if (json != null) {
            BenchReport.writeJson(json, results);
            System.out.println("Results appended to " + json);
        }
        List<String> missed =
                results.stream()
                        .filter(r -> Boolean.FALSE.equals(r.extra().get(BenchResult.MET)))
                        .map(r -> String.valueOf(r.getParams().get("figure")))
                        .toList();
        if (!missed.isEmpty()) {
            System.out.println("Targets missed: " + String.join(", ", missed));
            return 1;
        }
        return 0;
    }

    /**
     * What the command line asked for. {@code --trainers} and {@code --hidden} share their names
     * with job flags, whose defaults (1 trainer, hidden 256) the CLI fills in; a benchmark gets
     * them only when they were given, so that it applies its own cases otherwise.
     */
    BenchContext context() {
        return context(input == null ? null : input.dataset);
    }

    /**
     * {@code --dataset} as a folder of the project's format: itself, or the other layout written
     * once to {@code work/bench/<name>-<format>/} (kept, as generated graphs are).
     */
    private Path dataset() throws IOException {
        if (input == null || input.dataset == null) {
            return null;
        }
        FormatOptions options = format.toOptions();
        DatasetFormat f =
                options.format() == DatasetFormat.AUTO
                        ? DatasetFormat.detect(input.dataset)
                        : options.format();
        if (f == DatasetFormat.GNNSTREAM) {
            return input.dataset;
        }
        Path target = Path.of("work", "bench", input.dataset.getFileName() + "-" + f.wireName());
        Path done = target.resolve(".written");
        if (!Files.isRegularFile(done) || !Files.readString(done).equals(options.toString())) {
            System.out.println("Writing " + input.dataset + " (" + f.wireName() + ") to " + target);
            Directories.deleteRecursively(target);
            DatasetReaders.materialise(input.dataset, options.withFormat(f), target);
            Files.writeString(done, options.toString());
        }
        return target;
    }

    private BenchContext context(Path dataset) {
        CommandLine.ParseResult parsed = spec.commandLine().getParseResult();
        return new BenchContext(
                dataset,
                input == null || input.synthetic == null
                        ? null
                        : SyntheticSpec.parse(input.synthetic),
                repeat,
                threads,
                features,
                steps,
                warmup,
                fanouts,
                prefetch,
                featureCache,
                parsed.hasMatchedOption("--trainers") ? trainers : null,
                parsed.hasMatchedOption("--hidden") ? hidden : null,
                partitionMap,
                halo,
                removals,
                rate,
                checkpointInterval,
                minutes,
                profile,
                System.out);
    }

    /** The registered benchmark names, for {@code <what>}'s description and completion. */
    static final class Names implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return Benchmarks.ALL.stream().map(Benchmark::name).iterator();
        }
    }

    /** Lists every benchmark with its description at the end of {@code --help}. */
    static final class ListBenchmarks implements CommandLine.IModelTransformer {
        @Override
        public CommandLine.Model.CommandSpec transform(CommandLine.Model.CommandSpec spec) {
            int width = Benchmarks.ALL.stream().mapToInt(b -> b.name().length()).max().orElse(0);
            String list =
                    Benchmarks.ALL.stream()
                            .map(
                                    b ->
                                            String.format(
                                                            Locale.ROOT,
                                                            "  %-" + width + "s  %s",
                                                            b.name(),
                                                            b.description())
                                                    .replace("%", "%%"))
                            .collect(Collectors.joining("%n"));
            spec.usageMessage().footer("%nBenchmarks:%n" + list);
            return spec;
        }
    }
}

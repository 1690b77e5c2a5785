package io.gnnstream.benchmarks.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gnnstream.state.records.Split;
import io.gnnstream.tools.DatasetInfo;
import io.gnnstream.tools.SyntheticGraph;
import io.gnnstream.tools.SyntheticGraphOptions;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * {@code bench scale}: the products-size run end to end as a user runs it. A synthetic graph of
 * ogbn-products' size (2,449,029 vertices, average in-degree 25, 100 signed features, 47 classes; 8
 * % train, 2 % validation, 90 % test) is generated once into {@code work/bench} and kept; then, per
 * trainer count T (at parallelism T), {@code demo} runs in a child JVM with the default heap
 * ({@link ScaleRun}): load into the local broker, ingestion, training with {@code --batch-size 1024
 * --fanouts 15,10 --hidden 256} for {@code --steps} steps (400) and the final evaluation round,
 * predictions of every vertex included (give {@code --fanouts 15,10} and {@code --hidden 256}: the
 * command line fills in the job's own defaults otherwise). Each figure of a run at T > 1 is
 * compared with the run at T = 1 of the same invocation.
 */
final class ScaleBenchmark implements Benchmark {

    static final SyntheticSpec PRODUCTS = new SyntheticSpec(2_449_029, 25, 100, 47);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration RUN_TIMEOUT = Duration.ofMinutes(60);

    @Override
    public String name() {
        return "scale";
    }

    @Override
    public String description() {
        return "demo on a generated graph of ogbn-products' size (--synthetic to change it) at"
                + " --trainers 1 and 2 (parallelism = trainers): load, ingestion, warm-up,"
                + " steady seeds/s, epoch, inference round per layer, checkpoints, RocksDB on"
                + " disk, peak RSS of job and broker, test accuracy";
    }

    @Override
    public int defaultRepeat() {
        return 1;
    }

    @Override
    public List<BenchResult> run(BenchContext context) throws Exception {
        PrintStream log = context.log();
        SyntheticSpec spec = context.synthetic() != null ? context.synthetic() : PRODUCTS;
        Path data = context.dataset() != null ? context.dataset() : generated(spec, log);
        DatasetInfo info = DatasetInfo.scan(data);
        int steps = context.stepsOr(400);
        List<Integer> fanouts = context.fanoutsOr(List.of(15, 10));
        int hidden = context.hiddenOr(List.of(256)).get(0);
        List<BenchResult> results = new ArrayList<>();
        Map<String, Double> baseline = null;
        for (int trainers : context.trainersOr(List.of(1, 2))) {
            Path dir = BenchData.WORK.resolve("scale-run-t" + trainers);
            io.gnnstream.tools.Directories.deleteRecursively(dir);
            List<String> args =
                    List.of(
                            "--dataset",
                            data.toString(),
                            "--work-dir",
                            dir.resolve("demo").toString(),
                            "--batch-size",
                            "1024",
                            "--fanouts",
                            fanouts.stream().map(String::valueOf).collect(Collectors.joining(",")),
                            "--hidden",
                            Integer.toString(hidden),
                            "--max-steps",
                            Integer.toString(steps),
                            "--eval-every",
                            Integer.toString(steps),
                            "--trainers",
                            Integer.toString(trainers),
                            "--parallelism",
                            Integer.toString(trainers),
                            "--metrics-out",
                            dir.resolve("metrics.jsonl").toString());
            log.println("scale: demo " + String.join(" ", args));
            ScaleRun run = new ScaleRun(dir).run(args, RUN_TIMEOUT, log);
            if (run.exitCode != 0) {
                String error = run.lastLine("error");
                throw new IllegalStateException(
                        "demo at "
                                + trainers
                                + " trainers exited with "
                                + run.exitCode
                                + (error == null ? "" : ": " + error)
                                + " (output in "
                                + dir
                                + ")");
            }
            Map<String, Double> figures = figures(run, info, dir.resolve("metrics.jsonl"));
            Map<String, Object> params = new LinkedHashMap<>();
            params.put("vertices", info.nodes());
            params.put("edges", info.edges());
            params.put("trainers", trainers);
            params.put("parallelism", trainers);
            params.put("batch_size", 1024);
            params.put("fanouts", fanouts);
            params.put("hidden", hidden);
            params.put("steps", steps);
            for (Map.Entry<String, Double> f : figures.entrySet()) {
                Baseline base =
                        baseline == null || !baseline.containsKey(f.getKey())
                                ? null
                                : new Baseline("trainers 1", baseline.get(f.getKey()));
                Map<String, Object> p = new LinkedHashMap<>(params);
                p.put("figure", f.getKey());
                results.add(
                        new BenchResult(
                                "scale", p, unit(f.getKey()), Stats.of(f.getValue()), base));
            }
            if (baseline == null) {
                baseline = figures;
            }
        }
        return results;
    }

    /** The run's figures, by name (the unit follows from the name's suffix). */
    private static Map<String, Double> figures(ScaleRun run, DatasetInfo info, Path metrics)
            throws Exception {
        List<JsonNode> lines = new ArrayList<>();
        for (String line : Files.readAllLines(metrics)) {
            lines.add(JSON.readTree(line));
        }
        Map<String, Double> f = new LinkedHashMap<>();
        double produced = run.secondsAt("Produced");
        double submitted = run.secondsAt("Submitted job");
        double trainingStarts = run.secondsAt("Training starts");
        f.put("load_s", produced - run.secondsAt("Kafka broker on"));
        f.put("ingest_edges_per_s", info.edges() / (trainingStarts - submitted));
        List<JsonNode> train =
                lines.stream()
                        .filter(
                                l ->
                                        !l.has("val_acc")
                                                && !l.path("final").asBoolean(false)
                                                && l.path("seeds_per_s").asDouble() > 0)
                        .collect(Collectors.toList());
        List<Double> late =
                train.subList(train.size() / 2, train.size()).stream()
                        .map(l -> l.path("seeds_per_s").asDouble())
                        .collect(Collectors.toList());
        double steady = Stats.of(late).median();
        f.put("steady_seeds_per_s", steady);
        double warmup = Double.NaN;
        for (JsonNode l : train) {
            if (l.path("seeds_per_s").asDouble() >= 0.8 * steady) {
                warmup = l.path("step").asDouble();
                break;
            }
        }
        f.put("warmup_steps", warmup);
        f.put("epoch_s", info.splitCount(Split.TRAIN) / steady);
        double[] round = run.roundSeconds();
        if (round != null) {
            f.put("round_s", round[0]);
            for (int l = 1; l < round.length; l++) {
                f.put("round_layer_" + l + "_s", round[l]);
            }
        }
        JsonNode last = lines.get(lines.size() - 1);
        f.put("test_acc", last.path("test_acc").asDouble());
        f.put("checkpoint_bytes", (double) run.checkpointBytes);
        f.put("checkpoint_full_bytes", (double) run.checkpointFullBytes);
        f.put("checkpoint_s", run.checkpointSeconds);
        f.put("local_disk_bytes", (double) run.peakLocalDiskBytes);
        f.put("peak_rss_job_bytes", (double) run.peakRss);
        f.put("heap_committed_bytes", (double) run.heapCommitted);
        f.put("jvm_non_heap_bytes", (double) (run.jvmCommitted - run.heapCommitted));
        f.put(
                "native_outside_jvm_bytes",
                (double) Math.max(0, run.rssAtAccounting - run.jvmCommitted));
        f.put("peak_rss_broker_bytes", (double) run.peakBrokerRss);
        return f;
    }

    static String unit(String figure) {
        if (figure.endsWith("_bytes")) {
            return "bytes";
        }
        if (figure.endsWith("_per_s")) {
            return figure.startsWith("ingest") ? "edges/s" : "seeds/s";
        }
        if (figure.endsWith("_s")) {
            return "s";
        }
        return figure.equals("warmup_steps") ? "steps" : "fraction";
    }

    /**
     * The graph, generated once per spec (8 % train, 2 % validation, 90 % test, as ogbn-products).
     */
    static Path generated(SyntheticSpec spec, PrintStream log) throws Exception {
        Path dir =
                BenchData.WORK.resolve(
                        "scale-"
                                + spec.nodes()
                                + "-"
                                + spec.degree()
                                + "-"
                                + spec.features()
                                + "-"
                                + spec.classes());
        if (!Files.isRegularFile(dir.resolve("README.md"))) {
            log.println("Generating " + dir);
            new SyntheticGraph(
                            SyntheticGraphOptions.builder()
                                    .vertices(Math.toIntExact(spec.nodes()))
                                    .avgDegree(spec.degree())
                                    .features(spec.features())
                                    .classes(spec.classes())
                                    .splits(0.08, 0.02, 0.9)
                                    .build())
                    .overwrite(true)
                    .write(dir);
        }
        return dir;
    }
}

package io.gnnstream.benchmarks.gpu;

import io.gnnstream.benchmarks.bench.BatchFile;
import io.gnnstream.benchmarks.bench.FullExpansionBatch;
import io.gnnstream.benchmarks.bench.Stats;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.model.GnnModel;
import io.gnnstream.operators.model.ModelConfig;
import io.gnnstream.operators.model.NpyFile;
import io.gnnstream.operators.model.gpu.GpuUnavailableException;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * The device check of the CUDA backend, run on the GPU host by {@code gpu/check.sh} from the bundle
 * {@code gpu/bundle.sh} builds (a jlink'd runtime of java.base and jdk.unsupported, and one jar):
 * compares {@link io.gnnstream.operators.model.GpuModel} with the CPU references of {@link
 * GpuReference}, checks two ranks on one GPU, and times the step next to the plain-PyTorch peer on
 * the same GPU. {@link CheckOptions#usage()} lists the sections and options. Reaches no ND4J, Flink
 * or JSON-library class.
 */
public final class GpuCheck {

    /** Steps timed phase by phase after the timed steps (each phase waits for the device). */
    static final int PHASE_STEPS = 10;

    /** The timing batch's seed: the batch of {@code bench train}. */
    static final long TIMING_BATCH_SEED = 20240601L;

    /** The seed of the rank check's batches (batch {@code s} uses this plus {@code s}). */
    static final long RANK_BATCH_SEED = 1000;

    private final CheckOptions options;
    private final ModelBackend backend;
    private final CheckReport report;
    private final List<String> sectionResults = new ArrayList<>();

    private GpuCheck(CheckOptions options, ModelBackend backend, CheckReport report) {
        this.options = options;
        this.backend = backend;
        this.report = report;
    }

    public static void main(String[] args) throws IOException {
        CheckOptions o;
        try {
            o = CheckOptions.parse(args, System.getenv("OUT"));
        } catch (IllegalArgumentException e) {
            System.err.println("GpuCheck: " + e.getMessage());
            System.err.print(CheckOptions.usage());
            System.exit(2);
            return;
        }
        if (o.help) {
            System.out.print(CheckOptions.usage());
            return;
        }
        System.exit(run(o, new CudaBackend(o.device), System.out));
    }

    /** Runs the check with {@code backend}'s models; returns the exit status. */
    static int run(CheckOptions o, ModelBackend backend, PrintStream console) throws IOException {
        try (CheckReport report = new CheckReport(console, o.out)) {
            GpuCheck check = new GpuCheck(o, backend, report);
            report.line("gnnstream GPU check, " + Instant.now());
            report.line(
                    "java "
                            + System.getProperty("java.version")
                            + " ("
                            + System.getProperty("java.home")
                            + "), "
                            + Runtime.getRuntime().availableProcessors()
                            + " CPUs, heap max "
                            + Runtime.getRuntime().maxMemory() / (1 << 20)
                            + " MiB");
            report.put("started", Instant.now().toString());
            report.put("java", System.getProperty("java.version"));
            report.put("options", o.toJson());
            if (o.dryRun) {
                check.dryRun();
            } else {
                check.all();
            }
            report.line(
                    report.failures() == 0
                            ? "PASSED" + (o.dryRun ? " (dry run)" : "")
                            : "FAILED: " + report.failures() + " failure(s)");
            return report.failures() == 0 ? 0 : 1;
        }
    }

    private void all() {
        report.line("== (a) device");
        String kind;
        try {
            kind = backend.deviceKind();
        } catch (GpuUnavailableException e) {
            report.fail("no usable GPU: " + e.getMessage());
            return;
        } catch (RuntimeException | LinkageError e) {
            report.fail("opening the device: " + describe(e));
            return;
        }
        report.line("device: " + kind);
        report.put("device", kind);
        if (options.references) {
            references();
        }
        if (options.ranks) {
            ranks();
        }
        List<Map<String, Object>> rows = options.timing ? timing() : List.of();
        summary(kind, rows);
    }

    /** (b): every reference model. */
    private void references() {
        report.line("== (b) against the CPU references in " + options.reference);
        Map<String, Object> results = new LinkedHashMap<>();
        try {
            Path root = options.reference;
            Properties index = readIndex(root);
            int steps = Integer.parseInt(index.getProperty("steps", "0").trim());
            MiniBatch batch = BatchFile.read(root.resolve(ReferenceFolder.BATCH)).batch();
            report.printf(
                    "  batch: %s nodes, F=%d; %d steps",
                    Arrays.toString(batch.nodeCounts), batch.featureDim, steps);
            for (String model : index.getProperty("models", "").split(",")) {
                int before = report.failures();
                try {
                    results.put(
                            model,
                            ReferenceCheck.run(
                                    root, model, batch, steps, backend, options.tolerance, report));
                } catch (IOException | RuntimeException | LinkageError e) {
                    report.fail(model + ": " + describe(e));
                    results.put(model, Map.of("passed", false, "error", String.valueOf(e)));
                }
                section("reference " + model, before);
            }
        } catch (IOException | RuntimeException e) {
            report.fail("references: " + describe(e));
            results.put("error", String.valueOf(e));
            section("reference", -1);
        }
        report.put("reference", results);
    }

    /** (c): two ranks on the device. */
    private void ranks() {
        report.printf(
                "== (c) two ranks on device %d: %d steps, batches of %d seeds, fanouts %s, F=%d,"
                        + " hidden %d",
                options.device,
                options.rankSteps,
                options.rankSeeds,
                Arrays.toString(options.rankFanouts),
                options.rankFeatures,
                options.rankHidden);
        int before = report.failures();
        try {
            List<MiniBatch> batches = new ArrayList<>();
            for (int s = 0; s < options.rankSteps; s++) {
                batches.add(
                        FullExpansionBatch.build(
                                options.rankSeeds,
                                options.rankFanouts,
                                options.rankFeatures,
                                options.classes,
                                RANK_BATCH_SEED + s));
            }
            ModelConfig config =
                    ModelConfig.builder()
                            .inFeatures(options.rankFeatures)
                            .hidden(options.rankHidden)
                            .numClasses(options.classes)
                            .numLayers(options.rankFanouts.length)
                            .seed(3)
                            .build();
            report.put("ranks", RankCheck.run(backend, config, batches, report));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            report.fail("ranks: interrupted");
        } catch (RuntimeException | LinkageError e) {
            report.fail("ranks: " + describe(e));
            report.put("ranks", Map.of("passed", false, "error", String.valueOf(e)));
        }
        section("ranks", before);
    }

    /** (d) and (e): per feature width, our step and then the PyTorch peer's. */
    private List<Map<String, Object>> timing() {
        boolean checksFailed = report.failures() > 0;
        report.printf(
                "== (d) timing: %d seeds, fanouts %s, hidden %d, %d classes; %d warm-up and %d"
                        + " timed steps%s",
                options.seeds,
                Arrays.toString(options.fanouts),
                options.hidden,
                options.classes,
                options.warmup,
                options.steps,
                checksFailed ? " (checks FAILED above: these time a model that is not right)" : "");
        List<Map<String, Object>> rows = new ArrayList<>();
        TorchCudaPeer peer =
                options.torch
                        ? new TorchCudaPeer(options.python, options.torchScript, options.device)
                        : null;
        for (int f : options.features) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("features", f);
            rows.add(row);
            MiniBatch batch;
            try {
                long t0 = System.nanoTime();
                batch =
                        FullExpansionBatch.build(
                                options.seeds,
                                options.fanouts,
                                f,
                                options.classes,
                                TIMING_BATCH_SEED);
                report.printf(
                        "  F=%d: batch %s nodes built in %.1f s",
                        f, Arrays.toString(batch.nodeCounts), (System.nanoTime() - t0) / 1e9);
            } catch (RuntimeException e) {
                report.fail("timing F=" + f + ": building the batch: " + describe(e));
                continue;
            }
            row.put("gnnstream", ours(batch, f));
            if (peer != null) {
                row.put("pytorch", torch(peer, batch, f));
            }
            double a = rate(row.get("gnnstream"));
            double b = rate(row.get("pytorch"));
            row.put("ratio", a / b);
            report.put("timing", rows);
        }
        return rows;
    }

    private Map<String, Object> ours(MiniBatch batch, int f) {
        ModelConfig config =
                ModelConfig.builder()
                        .inFeatures(f)
                        .hidden(options.hidden)
                        .numClasses(options.classes)
                        .numLayers(options.fanouts.length)
                        .dropout(0.5)
                        .learningRate(0.003)
                        .seed(1)
                        .build();
        Map<String, Object> m = new LinkedHashMap<>();
        try (GnnModel model = backend.open(config)) {
            double[] seconds = StepTiming.time(model, batch, options.warmup, options.steps);
            Stats s = Stats.of(seconds);
            double rate = batch.numSeeds() / s.median();
            m.put("seeds_per_s", rate);
            m.put("median_s", s.median());
            m.put("min_s", s.min());
            m.put("max_s", s.max());
            m.put("step_s", seconds);
            report.printf(
                    "  F=%d: gnnstream %s: median %.2f ms (min %.2f, max %.2f) -> %.0f seeds/s",
                    f, model.deviceKind(), s.median() * 1e3, s.min() * 1e3, s.max() * 1e3, rate);
            Map<String, Double> phases =
                    StepTiming.phases(model, batch, Math.min(PHASE_STEPS, options.steps));
            m.put("phase_ms", phases);
            StringBuilder line = new StringBuilder();
            phases.entrySet().stream()
                    .limit(8)
                    .forEach(e -> line.append(String.format(" %s %.2f", e.getKey(), e.getValue())));
            report.printf("  F=%d: phases, ms per step with a wait at each:%s", f, line);
        } catch (RuntimeException | LinkageError e) {
            report.fail("timing F=" + f + ": " + describe(e));
            m.put("error", String.valueOf(e));
        }
        return m;
    }

    private Map<String, Object> torch(TorchCudaPeer peer, MiniBatch batch, int f) {
        Map<String, Object> m = new LinkedHashMap<>();
        Path file = null;
        try {
            file = Files.createTempFile("gnnstream-gpu-batch", ".bin");
            BatchFile.write(batch, options.classes, file);
            TorchCudaPeer.Result r =
                    peer.run(
                            file,
                            options.hidden,
                            options.steps,
                            options.warmup,
                            options.torchTimeoutSeconds);
            double median = Stats.of(r.seedsPerSecond()).median();
            m.put("seeds_per_s", median);
            m.put("torch", r.torch());
            m.put("device_name", r.deviceName());
            m.put("step_seeds_per_s", r.seedsPerSecond());
            report.printf(
                    "  F=%d: PyTorch %s CUDA on %s: median %.0f seeds/s (min %.0f, max %.0f)",
                    f,
                    r.torch(),
                    r.deviceName(),
                    median,
                    Stats.of(r.seedsPerSecond()).min(),
                    Stats.of(r.seedsPerSecond()).max());
        } catch (IOException | RuntimeException e) {
            // The peer is the yardstick, not the subject: its failure is reported, not counted.
            report.line("  F=" + f + ": PyTorch peer unavailable: " + e.getMessage());
            m.put("error", String.valueOf(e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            m.put("error", "interrupted");
        } finally {
            if (file != null) {
                try {
                    Files.deleteIfExists(file);
                } catch (IOException e) {
                    report.line("  cannot delete " + file + ": " + e.getMessage());
                }
            }
        }
        return m;
    }

    private static double rate(Object section) {
        if (section instanceof Map<?, ?> m && m.get("seeds_per_s") instanceof Double d) {
            return d;
        }
        return Double.NaN;
    }

    /** (f): the table and the sections' outcomes. */
    private void summary(String kind, List<Map<String, Object>> rows) {
        report.line("== (f) summary");
        if (!rows.isEmpty()) {
            report.line("device: " + kind);
            report.printf(
                    "%-5s %22s %22s %7s",
                    "F", "gnnstream GPU seeds/s", "PyTorch CUDA seeds/s", "ratio");
            for (Map<String, Object> row : rows) {
                report.printf(
                        "%-5s %22s %22s %7s",
                        row.get("features"),
                        number(rate(row.get("gnnstream")), "%,.0f"),
                        number(rate(row.get("pytorch")), "%,.0f"),
                        number((Double) row.getOrDefault("ratio", Double.NaN), "%.2f"));
            }
        }
        for (String s : sectionResults) {
            report.line(s);
        }
    }

    private static String number(double v, String format) {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, format, v);
    }

    private void section(String name, int failuresBefore) {
        sectionResults.add(
                name
                        + ": "
                        + (failuresBefore >= 0 && report.failures() == failuresBefore
                                ? "PASS"
                                : "FAIL"));
    }

    private static Properties readIndex(Path root) throws IOException {
        Path file = root.resolve(ReferenceFolder.INDEX);
        if (!Files.isRegularFile(file)) {
            throw new IOException(
                    "no reference at "
                            + root
                            + " (no "
                            + ReferenceFolder.INDEX
                            + "): gpu/bundle.sh writes it with GpuReference");
        }
        Properties index = ReferenceFolder.load(file);
        String format = index.getProperty("format");
        if (!ReferenceFolder.FORMAT.equals(format)) {
            throw new IOException(
                    file + ": format " + format + ", this check reads " + ReferenceFolder.FORMAT);
        }
        return index;
    }

    /**
     * When the check runs from a jar (the bundle), initializes every gnnstream class of the GPU
     * model in it, so that a class whose JDK module the bundle's runtime lacks fails here rather
     * than on the GPU host.
     */
    private void initializeBundledClasses() {
        ClassLoader loader = GpuCheck.class.getClassLoader();
        try {
            Path source =
                    Path.of(
                            GpuCheck.class
                                    .getProtectionDomain()
                                    .getCodeSource()
                                    .getLocation()
                                    .toURI());
            if (!Files.isRegularFile(source)) {
                return;
            }
            int count = 0;
            try (JarFile jar = new JarFile(source.toFile())) {
                for (String entry :
                        jar.stream()
                                .map(JarEntry::getName)
                                .filter(n -> n.startsWith("io/gnnstream/operators/model/"))
                                .filter(n -> n.endsWith(".class"))
                                .sorted()
                                .toList()) {
                    String name = entry.substring(0, entry.length() - 6).replace('/', '.');
                    try {
                        Class.forName(name, true, loader);
                        count++;
                    } catch (ClassNotFoundException | LinkageError e) {
                        report.fail("class " + name + ": " + e);
                    }
                }
            }
            report.line("  model classes initialized from " + source.getFileName() + ": " + count);
        } catch (IOException | URISyntaxException | RuntimeException e) {
            report.fail("bundled classes: " + describe(e));
        }
    }

    /** Without a GPU: the references, the classes and the batch files. */
    private void dryRun() {
        report.line("== dry run: no GPU is opened");
        int before = report.failures();
        for (String name :
                List.of(
                        "io.gnnstream.operators.model.GpuModel",
                        "io.gnnstream.operators.model.GnnModel",
                        "io.gnnstream.operators.model.ModelParameters",
                        "io.gnnstream.operators.model.gpu.CudaKernels",
                        "io.gnnstream.operators.model.gpu.CudaLibrary",
                        "io.gnnstream.operators.model.gpu.GpuUnavailableException",
                        "io.gnnstream.operators.messages.MiniBatch")) {
            try {
                Class.forName(name, true, GpuCheck.class.getClassLoader());
            } catch (ClassNotFoundException | LinkageError e) {
                report.fail("class " + name + ": " + e);
            }
        }
        initializeBundledClasses();
        boolean nd4j;
        try {
            Class.forName("org.nd4j.linalg.factory.Nd4j", false, GpuCheck.class.getClassLoader());
            nd4j = true;
        } catch (ClassNotFoundException e) {
            nd4j = false;
        }
        report.line("  ND4J on the class path: " + (nd4j ? "yes" : "no (as in the bundle)"));
        report.line("  CUDA library: " + io.gnnstream.operators.model.gpu.CudaLibrary.location());
        try {
            Path root = options.reference;
            Properties index = readIndex(root);
            int steps = Integer.parseInt(index.getProperty("steps", "0").trim());
            BatchFile.Contents batch = BatchFile.read(root.resolve(ReferenceFolder.BATCH));
            report.printf(
                    "  reference batch: %s nodes, F=%d, %d classes",
                    Arrays.toString(batch.batch().nodeCounts),
                    batch.batch().featureDim,
                    batch.classes());
            for (String model : index.getProperty("models", "").split(",")) {
                Path dir = root.resolve(model);
                ModelConfig config = ReferenceFolder.readConfig(dir);
                List<String> stages =
                        new ArrayList<>(List.of(ReferenceFolder.INITIAL, ReferenceFolder.GRADIENT));
                for (int k = 1; k <= steps; k++) {
                    stages.add(ReferenceFolder.step(k));
                }
                Map<String, Integer> first = null;
                for (String stage : stages) {
                    Map<String, Integer> sizes = tensorSizes(dir.resolve(stage));
                    int total = sizes.values().stream().mapToInt(Integer::intValue).sum();
                    if (total != config.numParameters()) {
                        report.fail(
                                model
                                        + " "
                                        + stage
                                        + ": "
                                        + total
                                        + " floats, the config has "
                                        + config.numParameters()
                                        + " parameters");
                    }
                    if (first != null && !first.equals(sizes)) {
                        report.fail(model + " " + stage + ": other tensors than " + stages.get(0));
                    }
                    first = first == null ? sizes : first;
                }
                report.printf(
                        "  reference %s: %s, %d tensors in %d stages",
                        model, config, first == null ? 0 : first.size(), stages.size());
            }
        } catch (IOException | RuntimeException e) {
            report.fail("references: " + describe(e));
        }
        try {
            MiniBatch b =
                    FullExpansionBatch.build(
                            options.rankSeeds,
                            options.rankFanouts,
                            options.rankFeatures,
                            options.classes,
                            RANK_BATCH_SEED);
            Path file = Files.createTempFile("gnnstream-gpu-batch", ".bin");
            try {
                BatchFile.write(b, options.classes, file);
                MiniBatch back = BatchFile.read(file).batch();
                if (!Arrays.equals(
                                back.features,
                                0,
                                back.features.length,
                                b.features,
                                0,
                                back.features.length)
                        || !Arrays.equals(back.indices, b.indices)) {
                    report.fail("batch file round trip: the batch read back differs");
                }
                report.printf(
                        "  batch file: %d bytes for %s nodes, read back",
                        Files.size(file), Arrays.toString(b.nodeCounts));
            } finally {
                Files.deleteIfExists(file);
            }
        } catch (IOException | RuntimeException e) {
            report.fail("batch file: " + describe(e));
        }
        if (options.torch && !Files.isRegularFile(options.torchScript)) {
            report.line("  note: no PyTorch peer script at " + options.torchScript);
        }
        section("dry run", before);
        for (String s : sectionResults) {
            report.line(s);
        }
    }

    /** Tensor name to float count of every {@code .npy} file in {@code dir}, sorted. */
    private static Map<String, Integer> tensorSizes(Path dir) throws IOException {
        Map<String, Integer> sizes = new TreeMap<>();
        if (!Files.isDirectory(dir)) {
            throw new IOException("missing " + dir);
        }
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : (Iterable<Path>) s.sorted()::iterator) {
                String n = p.getFileName().toString();
                if (n.endsWith(".npy")) {
                    int[] shape = NpyFile.shape(p);
                    int count = NpyFile.read(p, shape).length;
                    sizes.put(n.substring(0, n.length() - 4), count);
                }
            }
        }
        return sizes;
    }

    /** An exception and where it came from (a GPU session is one shot: say enough to fix it). */
    static String describe(Throwable e) {
        StringBuilder s = new StringBuilder(String.valueOf(e));
        StackTraceElement[] trace = e.getStackTrace();
        for (int i = 0; i < Math.min(6, trace.length); i++) {
            s.append("\n      at ").append(trace[i]);
        }
        if (e.getCause() != null && e.getCause() != e) {
            s.append("\n    caused by ").append(e.getCause());
        }
        return s.toString();
    }
}

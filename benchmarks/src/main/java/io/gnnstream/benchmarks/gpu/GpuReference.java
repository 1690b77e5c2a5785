package io.gnnstream.benchmarks.gpu;

import io.gnnstream.benchmarks.bench.BatchFile;
import io.gnnstream.benchmarks.bench.FullExpansionBatch;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.model.GnnModel;
import io.gnnstream.operators.model.Gradients;
import io.gnnstream.operators.model.ModelConfig;
import io.gnnstream.operators.model.ModelType;
import io.gnnstream.operators.model.ParamInfo;
import io.gnnstream.operators.model.TrainResult;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * Writes the reference results of the GPU check ({@link ReferenceFolder} describes the layout): on
 * the CPU, with the ND4J models ({@link GnnModel#create}), for each model type, the initial
 * parameters, the gradient of the first {@link GnnModel#computeGradients} on a small synthetic
 * batch, and the parameters after each of a few {@link GnnModel#trainStep}s on it. {@code
 * gpu/bundle.sh} runs it; {@link GpuCheck} compares the CUDA backend with what it writes.
 *
 * <p>The parameters after a step are ill-conditioned where a parameter's total gradient (with
 * weight decay) lies within a few times Adam's epsilon of zero: there the update {@code lr g / (|g|
 * + eps)} swings by a large share of {@code lr} for a change of {@code g} at the level of float
 * rounding, and a correct GPU model would fail the check's tolerance. So each model's seed is the
 * first from {@link #MODEL_SEED} whose run stays within a tenth of the tolerance when every
 * gradient is perturbed by {@link #PROBE_NOISE} times its tensor's largest entry (a generous model
 * of a GPU's different summation order); the seed and the probe's result are kept in {@code
 * outcomes.properties}.
 */
public final class GpuReference {

    /** The models with GPU kernels: the ones the device check compares. */
    static final List<ModelType> GPU_TYPES =
            Arrays.stream(ModelType.values())
                    .filter(t -> t.architecture().gpuKernels())
                    .collect(Collectors.toList());

    /** The batch: 64 seeds, fanouts 5, 5 (1,984 nodes), 100 features (not a multiple of 32). */
    static final Shape DEFAULT = new Shape(64, new int[] {5, 5}, 100, 64, 7, 5);

    static final long BATCH_SEED = 7;

    /** The first model seed tried. */
    static final long MODEL_SEED = 42;

    /** The probe's gradient noise, per tensor, as a share of the tensor's largest entry. */
    static final double PROBE_NOISE = 1e-7;

    /** The probe's largest max|d| / max|ref| of the parameters: a tenth of the check's default. */
    static final double PROBE_LIMIT = 1e-5;

    static final int SEEDS_TRIED = 50;
    static final double LEARNING_RATE = 0.003;
    static final double WEIGHT_DECAY = 5e-4;

    /** Cosine decay over 10 steps, so that the steps' learning rates differ. */
    static final long DECAY_STEPS = 10;

    /**
     * Shapes of the reference batch and models.
     *
     * @param steps the training steps whose parameters are kept
     */
    record Shape(int seeds, int[] fanouts, int features, int hidden, int classes, int steps) {}

    private GpuReference() {}

    public static void main(String[] args) throws IOException {
        Path out = Path.of("gpu/bundle/reference");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--out" -> {
                    if (i + 1 >= args.length) {
                        usage(System.err, "--out needs a folder");
                        System.exit(2);
                    }
                    out = Path.of(args[++i]);
                }
                case "-h", "--help" -> {
                    usage(System.out, null);
                    return;
                }
                default -> {
                    usage(System.err, "unknown argument " + args[i]);
                    System.exit(2);
                }
            }
        }
        long t0 = System.nanoTime();
        write(out, DEFAULT, System.out);
        System.out.printf(
                "GpuReference: wrote %s (%.1f KiB) in %.1f s%n",
                out, size(out) / 1024.0, (System.nanoTime() - t0) / 1e9);
    }

    private static void usage(PrintStream out, String error) {
        if (error != null) {
            out.println("GpuReference: " + error);
        }
        out.println("usage: GpuReference [--out DIR]   (default gpu/bundle/reference)");
        out.println("Writes the CPU (ND4J) reference results that GpuCheck compares the CUDA");
        out.println("backend with: a small batch, and per model type (sage, gcn) its config, the");
        out.println("initial parameters, the first gradient and the parameters after each step.");
    }

    /** The config of the reference model of {@code type} with model seed {@code seed}. */
    static ModelConfig config(ModelType type, Shape shape, long seed) {
        return ModelConfig.builder()
                .modelType(type)
                .inFeatures(shape.features())
                .hidden(shape.hidden())
                .numClasses(shape.classes())
                .numLayers(shape.fanouts().length)
                .dropout(0.5)
                .learningRate(LEARNING_RATE)
                .weightDecay(WEIGHT_DECAY)
                .seed(seed)
                .decaySteps(DECAY_STEPS)
                .build();
    }

    /**
     * Writes the references of every model type into {@code out}, replacing an earlier reference
     * there.
     *
     * @throws IOException if {@code out} holds something other than a reference, or on a write
     *     error
     */
    static void write(Path out, Shape shape, PrintStream log) throws IOException {
        clear(out);
        Files.createDirectories(out);
        MiniBatch batch =
                FullExpansionBatch.build(
                        shape.seeds(),
                        shape.fanouts(),
                        shape.features(),
                        shape.classes(),
                        BATCH_SEED);
        BatchFile.write(batch, shape.classes(), out.resolve(ReferenceFolder.BATCH));
        for (ModelType type : GPU_TYPES) {
            writeModel(out.resolve(type.id()), type, shape, batch, log);
        }
        Properties index = new Properties();
        index.setProperty("format", ReferenceFolder.FORMAT);
        index.setProperty(
                "models", GPU_TYPES.stream().map(ModelType::id).collect(Collectors.joining(",")));
        index.setProperty("steps", Integer.toString(shape.steps()));
        index.setProperty("batch.seeds", Integer.toString(shape.seeds()));
        index.setProperty(
                "batch.fanouts",
                IntStream.of(shape.fanouts())
                        .mapToObj(Integer::toString)
                        .collect(Collectors.joining(",")));
        index.setProperty("batch.nodeCounts", Arrays.toString(batch.nodeCounts));
        index.setProperty("batch.features", Integer.toString(shape.features()));
        index.setProperty("batch.classes", Integer.toString(shape.classes()));
        index.setProperty("batch.seed", Long.toString(BATCH_SEED));
        index.setProperty("writer", "GpuReference, ND4J CPU models");
        // Last: a reference with an index is complete.
        ReferenceFolder.store(out.resolve(ReferenceFolder.INDEX), index, "GPU check reference");
    }

    private static void writeModel(
            Path dir, ModelType type, Shape shape, MiniBatch batch, PrintStream log)
            throws IOException {
        int steps = shape.steps();
        ModelConfig config = null;
        double probe = Double.NaN;
        for (long seed = MODEL_SEED; seed < MODEL_SEED + SEEDS_TRIED && config == null; seed++) {
            ModelConfig candidate = config(type, shape, seed);
            probe = probe(candidate, batch, steps);
            if (probe <= PROBE_LIMIT) {
                config = candidate;
            } else {
                log.printf(
                        "GpuReference: %s seed %d: gradient noise of %.0e moves the parameters by"
                                + " up to %.3g of their largest (limit %.0e); next seed%n",
                        type.id(), seed, PROBE_NOISE, probe, PROBE_LIMIT);
            }
        }
        if (config == null) {
            throw new IllegalStateException(
                    type.id()
                            + ": no model seed from "
                            + MODEL_SEED
                            + " to "
                            + (MODEL_SEED + SEEDS_TRIED - 1)
                            + " gives steps that rounding cannot swing beyond "
                            + PROBE_LIMIT);
        }
        Files.createDirectories(dir);
        ReferenceFolder.writeConfig(dir, config);
        Properties outcomes = new Properties();
        outcomes.setProperty("probe.noise", Double.toString(PROBE_NOISE));
        outcomes.setProperty("probe.worstRatio", Double.toString(probe));
        outcomes.setProperty("probe.limit", Double.toString(PROBE_LIMIT));
        outcomes.setProperty("probe.seedsTried", Long.toString(config.seed() - MODEL_SEED + 1));
        try (GnnModel model = GnnModel.create(config)) {
            List<ParamInfo> initial = model.parameters();
            ReferenceFolder.writeTensors(dir.resolve(ReferenceFolder.INITIAL), initial);
            outcomes.setProperty("initial.checksum", Long.toString(model.checksum()));
            Gradients g = model.computeGradients(batch);
            ReferenceFolder.writeTensors(
                    dir.resolve(ReferenceFolder.GRADIENT),
                    ReferenceFolder.slice(initial, g.grad()));
            outcomes.setProperty("gradient.loss", Double.toString(g.loss()));
            outcomes.setProperty("gradient.correct", Integer.toString(g.correct()));
            outcomes.setProperty("gradient.numSeeds", Integer.toString(g.numSeeds()));
            for (int k = 1; k <= steps; k++) {
                TrainResult r = model.trainStep(batch);
                String step = ReferenceFolder.step(k);
                ReferenceFolder.writeTensors(dir.resolve(step), model.parameters());
                outcomes.setProperty(step + ".loss", Double.toString(r.loss()));
                outcomes.setProperty(step + ".correct", Integer.toString(r.correct()));
                outcomes.setProperty(step + ".checksum", Long.toString(model.checksum()));
            }
            log.printf(
                    "GpuReference: %s: seed %d, %d parameters in %d tensors, first loss %.6f,"
                            + " after %d steps %s; gradient noise of %.0e moves the parameters by"
                            + " up to %.3g of their largest%n",
                    type.id(),
                    config.seed(),
                    config.numParameters(),
                    initial.size(),
                    g.loss(),
                    steps,
                    outcomes.getProperty(ReferenceFolder.step(steps) + ".loss"),
                    PROBE_NOISE,
                    probe);
        }
        ReferenceFolder.store(
                dir.resolve(ReferenceFolder.OUTCOMES), outcomes, "losses of the reference steps");
    }

    /**
     * The largest max|d| / max|ref| over the tensors and steps between a run of {@code config} and
     * one whose gradients get uniform noise of {@link #PROBE_NOISE} times each tensor's largest
     * gradient entry.
     */
    static double probe(ModelConfig config, MiniBatch batch, int steps) {
        SplittableRandom random = new SplittableRandom(config.seed());
        double worst = 0;
        try (GnnModel exact = GnnModel.create(config);
                GnnModel noisy = GnnModel.create(config)) {
            List<ParamInfo> layout = exact.parameters();
            for (int k = 1; k <= steps; k++) {
                exact.trainStep(batch);
                float[] g = noisy.computeGradients(batch).grad().clone();
                int offset = 0;
                for (ParamInfo p : layout) {
                    int n = p.values().length;
                    float max = 0;
                    for (int i = offset; i < offset + n; i++) {
                        max = Math.max(max, Math.abs(g[i]));
                    }
                    for (int i = offset; i < offset + n; i++) {
                        g[i] += (float) (PROBE_NOISE * max * (2 * random.nextDouble() - 1));
                    }
                    offset += n;
                }
                noisy.applyGradients(g);
                List<ParamInfo> want = exact.parameters();
                List<ParamInfo> got = noisy.parameters();
                for (int t = 0; t < want.size(); t++) {
                    TensorCheck c =
                            TensorCheck.compare(
                                    "probe",
                                    want.get(t).name(),
                                    got.get(t).values(),
                                    want.get(t).values(),
                                    PROBE_LIMIT);
                    worst = Math.max(worst, Double.isNaN(c.ratio()) ? Double.MAX_VALUE : c.ratio());
                }
            }
        }
        return worst;
    }

    /** Deletes an earlier reference at {@code out}; refuses a folder that is not one. */
    private static void clear(Path out) throws IOException {
        if (!Files.exists(out)) {
            return;
        }
        boolean empty;
        try (Stream<Path> s = Files.list(out)) {
            empty = s.findAny().isEmpty();
        }
        if (!empty
                && !Files.isRegularFile(out.resolve(ReferenceFolder.INDEX))
                && !Files.isRegularFile(out.resolve(ReferenceFolder.BATCH))) {
            throw new IOException(
                    out + " exists and is not a GPU check reference; not replacing it");
        }
        try (Stream<Path> s = Files.walk(out)) {
            s.sorted(Comparator.reverseOrder())
                    .forEach(
                            p -> {
                                try {
                                    Files.delete(p);
                                } catch (IOException e) {
                                    throw new UncheckedIOException(e);
                                }
                            });
        }
    }

    private static long size(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile)
                    .mapToLong(
                            p -> {
                                try {
                                    return Files.size(p);
                                } catch (IOException e) {
                                    throw new UncheckedIOException(e);
                                }
                            })
                    .sum();
        }
    }
}

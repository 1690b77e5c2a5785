package io.gnnstream.benchmarks.gpu;

import io.gnnstream.operators.model.ModelConfig;
import io.gnnstream.operators.model.ModelType;
import io.gnnstream.operators.model.NpyFile;
import io.gnnstream.operators.model.ParamInfo;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * The layout of the reference results {@link GpuReference} writes and {@link GpuCheck} reads, in
 * one root folder: {@code reference.properties} (the format, the models and the shapes), {@code
 * batch.bin} (the batch, a {@link io.gnnstream.benchmarks.bench.BatchFile}) and one folder per
 * model type ({@code sage}, {@code gcn}) holding {@code config.properties} (the {@link
 * ModelConfig}), {@code outcomes.properties} (losses and correct counts), and the tensors as {@code
 * <name>.npy} files (named by {@link ParamInfo#name()}) in {@code initial/}, {@code gradient/} and
 * {@code step-1/} to {@code step-N/}.
 */
final class ReferenceFolder {

    static final String FORMAT = "gnnstream-gpu-reference/1";
    static final String INDEX = "reference.properties";
    static final String BATCH = "batch.bin";
    static final String CONFIG = "config.properties";
    static final String OUTCOMES = "outcomes.properties";
    static final String INITIAL = "initial";
    static final String GRADIENT = "gradient";

    private ReferenceFolder() {}

    /** The folder of the parameters after step {@code k} (1-based). */
    static String step(int k) {
        return "step-" + k;
    }

    /** Writes {@code config} as {@code config.properties} in {@code dir}. */
    static void writeConfig(Path dir, ModelConfig config) throws IOException {
        Properties p = new Properties();
        for (Map.Entry<String, Object> e : config.toMap().entrySet()) {
            p.setProperty(e.getKey(), String.valueOf(e.getValue()));
        }
        store(dir.resolve(CONFIG), p, "ModelConfig of the reference model");
    }

    /**
     * The config in {@code dir}'s {@code config.properties}.
     *
     * @throws IOException if the file is missing, lacks a field or holds an invalid value
     */
    static ModelConfig readConfig(Path dir) throws IOException {
        Path file = dir.resolve(CONFIG);
        Properties p = load(file);
        try {
            return new ModelConfig(
                    ModelType.parse(field(p, "model", file)),
                    Integer.parseInt(field(p, "inFeatures", file)),
                    Integer.parseInt(field(p, "hidden", file)),
                    Integer.parseInt(field(p, "numClasses", file)),
                    Integer.parseInt(field(p, "numLayers", file)),
                    Double.parseDouble(field(p, "dropout", file)),
                    Double.parseDouble(field(p, "learningRate", file)),
                    Double.parseDouble(field(p, "weightDecay", file)),
                    Long.parseLong(field(p, "seed", file)),
                    Long.parseLong(field(p, "decaySteps", file)));
        } catch (IllegalArgumentException e) {
            throw new IOException(file + ": " + e.getMessage(), e);
        }
    }

    /** Writes every tensor of {@code params} as {@code <name>.npy} into {@code dir}. */
    static void writeTensors(Path dir, List<ParamInfo> params) throws IOException {
        Files.createDirectories(dir);
        for (ParamInfo p : params) {
            NpyFile.write(dir.resolve(p.name() + ".npy"), p.shape(), p.values());
        }
    }

    /**
     * Cuts {@code flat} (in {@code layout}'s order, as a gradient or parameter vector) into tensors
     * named and shaped as {@code layout}'s.
     */
    static List<ParamInfo> slice(List<ParamInfo> layout, float[] flat) {
        List<ParamInfo> out = new ArrayList<>();
        int offset = 0;
        for (ParamInfo p : layout) {
            int n = p.values().length;
            if (offset + n > flat.length) {
                throw new IllegalArgumentException(
                        "a vector of "
                                + flat.length
                                + " floats is too short for tensor "
                                + p.name()
                                + " at "
                                + offset);
            }
            out.add(
                    new ParamInfo(
                            p.name(), p.shape(), Arrays.copyOfRange(flat, offset, offset + n)));
            offset += n;
        }
        if (offset != flat.length) {
            throw new IllegalArgumentException(
                    "a vector of " + flat.length + " floats for tensors of " + offset);
        }
        return out;
    }

    /** The values of tensor {@code like} (its name and shape) in {@code dir}. */
    static float[] readTensor(Path dir, ParamInfo like) throws IOException {
        return NpyFile.read(dir.resolve(like.name() + ".npy"), like.shape());
    }

    /**
     * Writes {@code p} sorted by key and without the date line {@link Properties#store} adds, so an
     * unchanged reference is rewritten byte for byte.
     */
    static void store(Path file, Properties p, String comment) throws IOException {
        StringBuilder out = new StringBuilder("# ").append(comment).append('\n');
        for (Map.Entry<Object, Object> e : new TreeMap<>(p).entrySet()) {
            out.append(escape(e.getKey().toString()))
                    .append('=')
                    .append(escape(e.getValue().toString()))
                    .append('\n');
        }
        Files.writeString(file, out, StandardCharsets.UTF_8);
    }

    private static String escape(String s) {
        return s.replace("\\", "\\\\").replace("\n", "\\n").replace("=", "\\=").replace(":", "\\:");
    }

    static Properties load(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new IOException("missing " + file);
        }
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        }
        return p;
    }

    static String field(Properties p, String key, Path file) throws IOException {
        String v = p.getProperty(key);
        if (v == null || v.isBlank()) {
            throw new IOException(file + ": no " + key);
        }
        return v.trim();
    }
}

package io.gnnstream.operators.model;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gnnstream.state.EvalNeighbourhood;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Reads a model back from an {@link NpyExport} directory: the manifest's config and type, the
 * parameters from the {@code .npy} files, and the step ({@link #load}), and the eval fanout ({@link
 * #evalFanout}). Reads formats {@link NpyExport#FORMAT} and {@link NpyExport#FORMAT_SAGE_V1}
 * (always SAGE).
 */
public final class ModelExports {

    private ModelExports() {}

    /**
     * The model exported to {@code dir}: its config, parameters and step as written, Adam moments
     * zero (an export does not hold them). The parameters are checked against the manifest's
     * checksum.
     *
     * @throws IOException if the manifest or a tensor file is missing, unreadable or inconsistent
     *     with the manifest (format, config, tensor names, shapes, dtype, size or checksum)
     */
    public static GnnModel load(Path dir) throws IOException {
        Path manifestPath = dir.resolve(NpyExport.MANIFEST);
        if (!Files.isRegularFile(manifestPath)) {
            throw new IOException(
                    "no " + NpyExport.MANIFEST + " in " + dir + " (not a complete model export)");
        }
        JsonNode manifest;
        try {
            manifest = new ObjectMapper().readTree(manifestPath.toFile());
        } catch (JsonProcessingException e) {
            throw new IOException(
                    "corrupt manifest " + manifestPath + ": " + e.getOriginalMessage(), e);
        }
        if (manifest == null || !manifest.isObject()) {
            throw new IOException("corrupt manifest " + manifestPath + ": not a JSON object");
        }
        ModelConfig config = config(manifest, manifestPath);
        JsonNode stepNode = manifest.path("step");
        long step =
                stepNode.isIntegralNumber() && stepNode.canConvertToLong() ? stepNode.asLong() : -1;
        if (step < 0) {
            throw new IOException(
                    manifestPath + ": step must be an integer >= 0, got " + manifest.get("step"));
        }
        List<ParamInfo> expected = GnnModel.create(config).parameters();
        JsonNode tensors = manifest.path("parameters");
        if (!tensors.isArray() || tensors.size() != expected.size()) {
            throw new IOException(
                    manifestPath
                            + ": a "
                            + config.modelType().id()
                            + " model of "
                            + config.numLayers()
                            + " layers has "
                            + expected.size()
                            + " tensors, the manifest lists "
                            + (tensors.isArray() ? tensors.size() : "none"));
        }
        ModelState state = new ModelState();
        state.step = step;
        state.params = new float[expected.size()][];
        state.adamM = new float[expected.size()][];
        state.adamV = new float[expected.size()][];
        for (int t = 0; t < expected.size(); t++) {
            ParamInfo want = expected.get(t);
            JsonNode entry = tensors.get(t);
            String name = entry.path("name").asText();
            if (!want.name().equals(name)) {
                throw new IOException(
                        manifestPath
                                + ": tensor "
                                + t
                                + " must be "
                                + want.name()
                                + ", got '"
                                + name
                                + "'");
            }
            if (!entry.path("dtype").asText("<f4").equals("<f4")) {
                throw new IOException(
                        manifestPath
                                + ": tensor "
                                + name
                                + " has dtype "
                                + entry.get("dtype")
                                + ", only <f4 is supported");
            }
            int[] listed = shape(entry.path("shape"));
            if (!Arrays.equals(want.shape(), listed)) {
                throw new IOException(
                        manifestPath
                                + ": tensor "
                                + name
                                + " must have shape "
                                + Arrays.toString(want.shape())
                                + ", the manifest lists "
                                + Arrays.toString(listed));
            }
            state.params[t] = NpyFile.read(tensorFile(dir, entry, name), want.shape());
            state.adamM[t] = new float[want.values().length];
            state.adamV[t] = new float[want.values().length];
        }
        GnnModel model = GnnModel.restore(config, state);
        JsonNode checksum = manifest.get("checksum");
        if (checksum != null
                && checksum.canConvertToLong()
                && checksum.asLong() != model.checksum()) {
            model.close();
            throw new IOException(
                    dir
                            + ": the parameters do not match the manifest's checksum "
                            + checksum.asLong()
                            + " (got "
                            + model.checksum()
                            + "); a tensor file is corrupt or from another export");
        }
        return model;
    }

    /**
     * The eval fanout the model exported to {@code dir} was evaluated with ({@link
     * NpyExport#EVAL_FANOUT}); {@link EvalNeighbourhood#DEFAULT_FANOUT} for an export without it.
     *
     * @throws IOException if the manifest is missing or unreadable, or the fanout is neither
     *     positive nor -1
     */
    public static int evalFanout(Path dir) throws IOException {
        Path path = dir.resolve(NpyExport.MANIFEST);
        JsonNode manifest;
        try {
            manifest = new ObjectMapper().readTree(path.toFile());
        } catch (JsonProcessingException e) {
            throw new IOException("corrupt manifest " + path + ": " + e.getOriginalMessage(), e);
        }
        JsonNode c = manifest == null ? null : manifest.path("config");
        if (c == null || !c.has(NpyExport.EVAL_FANOUT)) {
            return EvalNeighbourhood.DEFAULT_FANOUT;
        }
        int fanout = intField(c, NpyExport.EVAL_FANOUT, path);
        if (fanout < 1 && fanout != -1) {
            throw new IOException(
                    path
                            + ": config."
                            + NpyExport.EVAL_FANOUT
                            + " must be positive or -1, got "
                            + fanout);
        }
        return fanout;
    }

    /**
     * The feature normalisation recorded with the model exported to {@code dir} ({@link
     * NpyExport#FEATURE_NORMALIZATION}: {@code "sum"} or {@code "none"}), or null for an export
     * without it.
     *
     * @throws IOException if the manifest is missing or unreadable, or the entry is another value
     */
    public static String featureNormalization(Path dir) throws IOException {
        Path path = dir.resolve(NpyExport.MANIFEST);
        JsonNode manifest;
        try {
            manifest = new ObjectMapper().readTree(path.toFile());
        } catch (JsonProcessingException e) {
            throw new IOException("corrupt manifest " + path + ": " + e.getOriginalMessage(), e);
        }
        JsonNode v =
                manifest == null
                        ? null
                        : manifest.path("config").get(NpyExport.FEATURE_NORMALIZATION);
        if (v == null || v.isNull()) {
            return null;
        }
        String s = v.asText();
        if (!s.equals("sum") && !s.equals("none")) {
            throw new IOException(
                    path
                            + ": config."
                            + NpyExport.FEATURE_NORMALIZATION
                            + " must be \"sum\" or \"none\", got "
                            + v);
        }
        return s;
    }

    /** The config under {@code "config"}, of the type the format and {@code "model"} name. */
    private static ModelConfig config(JsonNode manifest, Path path) throws IOException {
        String format = manifest.path("format").asText(null);
        ModelType type;
        if (NpyExport.FORMAT_SAGE_V1.equals(format)) {
            type = ModelType.SAGE;
        } else if (NpyExport.FORMAT.equals(format)) {
            type = parseType(manifest.path("model").asText(null), path);
        } else {
            throw new IOException(
                    path
                            + ": unsupported format "
                            + (format == null ? "(none)" : "'" + format + "'")
                            + ", expected "
                            + NpyExport.FORMAT
                            + " or "
                            + NpyExport.FORMAT_SAGE_V1);
        }
        JsonNode c = manifest.path("config");
        if (!c.isObject()) {
            throw new IOException(path + ": no config object");
        }
        if (c.has("model") && parseType(c.get("model").asText(null), path) != type) {
            throw new IOException(
                    path
                            + ": config model "
                            + c.get("model")
                            + " contradicts model type "
                            + type.id());
        }
        try {
            ModelConfig read =
                    new ModelConfig(
                            type,
                            intField(c, "inFeatures", path),
                            intField(c, "hidden", path),
                            intField(c, "numClasses", path),
                            intField(c, "numLayers", path),
                            number(c, "dropout", path),
                            number(c, "learningRate", path),
                            number(c, "weightDecay", path),
                            longField(c, "seed", path),
                            c.has("decaySteps") ? longField(c, "decaySteps", path) : 0L,
                            c.has("heads") ? intField(c, "heads", path) : 1,
                            c.has("outHeads") ? intField(c, "outHeads", path) : 1,
                            c.has("attentionDropout") ? number(c, "attentionDropout", path) : 0.0);
            return c.has("gcnNorm")
                    ? read.withGcnNorm(GcnNorm.parse(c.get("gcnNorm").asText()))
                    : read;
        } catch (IllegalArgumentException e) {
            throw new IOException(path + ": invalid config: " + e.getMessage(), e);
        }
    }

    private static ModelType parseType(String name, Path path) throws IOException {
        try {
            return ModelType.parse(name);
        } catch (IllegalArgumentException e) {
            throw new IOException(path + ": " + e.getMessage(), e);
        }
    }

    private static JsonNode field(JsonNode c, String name, Path path) throws IOException {
        JsonNode v = c.get(name);
        if (v == null || !v.isNumber()) {
            throw new IOException(path + ": config." + name + " must be a number, got " + v);
        }
        return v;
    }

    private static int intField(JsonNode c, String name, Path path) throws IOException {
        JsonNode v = field(c, name, path);
        if (!v.canConvertToInt() || !v.isIntegralNumber()) {
            throw new IOException(path + ": config." + name + " must be an int, got " + v);
        }
        return v.asInt();
    }

    private static long longField(JsonNode c, String name, Path path) throws IOException {
        JsonNode v = field(c, name, path);
        if (!v.canConvertToLong() || !v.isIntegralNumber()) {
            throw new IOException(path + ": config." + name + " must be an integer, got " + v);
        }
        return v.asLong();
    }

    private static double number(JsonNode c, String name, Path path) throws IOException {
        return field(c, name, path).asDouble();
    }

    private static int[] shape(JsonNode node) {
        if (!node.isArray()) {
            return null;
        }
        int[] shape = new int[node.size()];
        for (int d = 0; d < shape.length; d++) {
            shape[d] = node.get(d).canConvertToInt() ? node.get(d).asInt() : -1;
        }
        return shape;
    }

    /** The tensor's file, which must lie inside {@code dir}. */
    private static Path tensorFile(Path dir, JsonNode entry, String name) throws IOException {
        String file = entry.path("file").asText(name + ".npy");
        Path base = dir.toAbsolutePath().normalize();
        Path path = base.resolve(file).normalize();
        if (!path.startsWith(base) || path.equals(base)) {
            throw new IOException(
                    "tensor " + name + " names file '" + file + "' outside the export " + dir);
        }
        return path;
    }
}

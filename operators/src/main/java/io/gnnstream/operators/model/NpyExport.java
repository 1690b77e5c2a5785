package io.gnnstream.operators.model;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.gnnstream.state.EvalNeighbourhood;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Exports a model's parameters as NumPy {@code .npy} files (format 1.0, {@code <f4}, C order) plus
 * a {@code manifest.json}, so PyTorch/PyG can load them for cross-checking and inference and {@link
 * ModelExports#load} can read them back. The manifest holds {@code format} ({@link #FORMAT}),
 * {@code model} (the {@link ModelType#id()}), {@code description}, {@code config} ({@link
 * ModelConfig#toMap()} and the eval fanout, {@link #EVAL_FANOUT}), {@code step}, {@code checksum},
 * {@code parameters} (name, shape, dtype and file of every tensor, in {@link GnnModel#parameters()}
 * order), {@code extra} and {@code pyg}, the manifest of the same model as {@code
 * torch_geometric.nn} loads it ({@link PygExport}, in the subfolder {@value PygExport#FOLDER}).
 */
public final class NpyExport {

    public static final String MANIFEST = "manifest.json";

    /** The format this class writes. */
    public static final String FORMAT = "gnnstream-npy/2";

    /**
     * The earlier format, SAGE only, whose {@code model} field is a description; still readable.
     */
    public static final String FORMAT_SAGE_V1 = "gnnstream-sage-npy/1";

    /**
     * The config entry of the eval fanout the model was evaluated with ({@code --eval-fanout}); an
     * export without it means {@link EvalNeighbourhood#DEFAULT_FANOUT}.
     */
    public static final String EVAL_FANOUT = "evalFanout";

    /**
     * The config entry of the feature normalisation the job applied ({@code --normalize-features},
     * decided once per dataset): {@code "sum"} (rows divided by their sums) or {@code "none"}; an
     * export without it leaves the decision to the reader's dataset scan.
     */
    public static final String FEATURE_NORMALIZATION = "featureNormalization";

    private NpyExport() {}

    /** {@link #export(GnnModel, Path, int, Map)} under the default eval fanout. */
    public static Path export(GnnModel model, Path dir, Map<String, Object> extra)
            throws IOException {
        return export(model, dir, EvalNeighbourhood.DEFAULT_FANOUT, extra);
    }

    /**
     * Writes {@code <name>.npy} for every tensor, the PyG form ({@link PygExport}) and then the
     * manifest (last, so a present manifest means a complete export) into {@code dir}, creating it
     * if needed. The job's {@code evalFanout} goes into the config ({@value #EVAL_FANOUT}), {@code
     * extra} entries (may be empty) under {@code "extra"}. Returns the manifest path.
     */
    public static Path export(GnnModel model, Path dir, int evalFanout, Map<String, Object> extra)
            throws IOException {
        return export(model, dir, evalFanout, null, extra);
    }

    /**
     * {@link #export(GnnModel, Path, int, Map)} with the job's feature normalisation ({@code "sum"}
     * or {@code "none"}; null: not recorded) in the config ({@value #FEATURE_NORMALIZATION}).
     */
    public static Path export(
            GnnModel model,
            Path dir,
            int evalFanout,
            String featureNormalization,
            Map<String, Object> extra)
            throws IOException {
        if (featureNormalization != null
                && !featureNormalization.equals("sum")
                && !featureNormalization.equals("none")) {
            throw new IllegalArgumentException(
                    "featureNormalization must be sum, none or null, got " + featureNormalization);
        }
        Files.createDirectories(dir);
        List<Map<String, Object>> tensors = new ArrayList<>();
        for (ParamInfo p : model.parameters()) {
            String file = p.name() + ".npy";
            NpyFile.write(dir.resolve(file), p.shape(), p.values());
            Map<String, Object> t = new LinkedHashMap<>();
            t.put("name", p.name());
            t.put("shape", p.shape());
            t.put("dtype", "<f4");
            t.put("file", file);
            tensors.add(t);
        }
        PygExport.export(model, dir, evalFanout, featureNormalization);
        Map<String, Object> manifest = new LinkedHashMap<>();
        manifest.put("format", FORMAT);
        ModelType type = model.config().modelType();
        manifest.put("model", type.id());
        manifest.put("description", type.description());
        Map<String, Object> config = model.config().toMap();
        config.put(EVAL_FANOUT, evalFanout);
        if (featureNormalization != null) {
            config.put(FEATURE_NORMALIZATION, featureNormalization);
        }
        manifest.put("config", config);
        manifest.put("step", model.step());
        manifest.put("checksum", model.checksum());
        manifest.put("parameters", tensors);
        manifest.put("extra", new LinkedHashMap<>(extra));
        manifest.put("pyg", PygExport.FOLDER + "/" + MANIFEST);
        Path path = dir.resolve(MANIFEST);
        new ObjectMapper()
                .enable(SerializationFeature.INDENT_OUTPUT)
                .writeValue(path.toFile(), manifest);
        return path;
    }
}

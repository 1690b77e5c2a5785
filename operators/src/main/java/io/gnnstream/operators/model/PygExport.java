package io.gnnstream.operators.model;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes a model as {@code torch_geometric.nn} loads it ({@link Architecture#pyg}) into the folder
 * {@value #FOLDER} of an export: one {@code .npy} file ({@code <f4}, C order) per {@code
 * state_dict} entry, named by its PyG key, and a {@code manifest.json} (format {@value #FORMAT})
 * with the PyG class and its constructor arguments ({@code class}, {@code kwargs}; {@code class}
 * null where no {@code BasicGNN} class builds the model), each layer's conv ({@code convs}), the
 * activation ({@code act}), the GCN edge weights ({@code edgeWeights}), the eval fanout and feature
 * normalisation the loader applies, the step and the tensors. {@code docs/load_in_pyg.py} loads it.
 */
public final class PygExport {

    /** The export's subfolder. */
    public static final String FOLDER = "pyg";

    /** The format this class writes. */
    public static final String FORMAT = "gnnstream-pyg/1";

    private PygExport() {}

    /**
     * Writes {@code model} into {@code exportDir/}{@value #FOLDER}, its tensors first and the
     * manifest last; {@code featureNormalization} is {@code "sum"}, {@code "none"} or null (not
     * recorded). Returns the manifest path.
     */
    public static Path export(
            GnnModel model, Path exportDir, int evalFanout, String featureNormalization)
            throws IOException {
        PygModel pyg = model.config().architecture().pyg(model.config());
        Map<String, ParamInfo> ours = new HashMap<>();
        for (ParamInfo p : model.parameters()) {
            ours.put(p.name(), p);
        }
        if (ours.size() != pyg.tensors().size()) {
            throw new IllegalStateException(
                    "the PyG form names "
                            + pyg.tensors().size()
                            + " tensors, the model has "
                            + ours.size());
        }
        Path dir = exportDir.resolve(FOLDER);
        Files.createDirectories(dir);
        List<Map<String, Object>> tensors = new ArrayList<>();
        for (PygModel.Entry e : pyg.tensors()) {
            ParamInfo p = ours.get(e.name());
            if (p == null) {
                throw new IllegalStateException("the model has no tensor " + e.name());
            }
            String file = e.pygName() + ".npy";
            int[] shape = e.pygShape(p.shape());
            NpyFile.write(dir.resolve(file), shape, e.pygValues(p.shape(), p.values()));
            Map<String, Object> t = new LinkedHashMap<>();
            t.put("name", e.pygName());
            t.put("shape", shape);
            t.put("dtype", "<f4");
            t.put("file", file);
            tensors.add(t);
        }
        Map<String, Object> manifest = new LinkedHashMap<>();
        manifest.put("format", FORMAT);
        manifest.put("model", model.config().modelType().id());
        manifest.put("class", pyg.className());
        manifest.put("kwargs", pyg.kwargs());
        List<Map<String, Object>> convs = new ArrayList<>();
        for (PygModel.Conv c : pyg.convs()) {
            Map<String, Object> conv = new LinkedHashMap<>();
            conv.put("class", c.className());
            conv.put("kwargs", c.kwargs());
            convs.add(conv);
        }
        manifest.put("convs", convs);
        manifest.put("act", pyg.act());
        manifest.put("edgeWeights", pyg.edgeWeights());
        manifest.put(NpyExport.EVAL_FANOUT, evalFanout);
        manifest.put(NpyExport.FEATURE_NORMALIZATION, featureNormalization);
        manifest.put("step", model.step());
        manifest.put("tensors", tensors);
        Path path = dir.resolve(NpyExport.MANIFEST);
        new ObjectMapper()
                .enable(SerializationFeature.INDENT_OUTPUT)
                .writeValue(path.toFile(), manifest);
        return path;
    }
}

package io.gnnstream.operators.model;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
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
 * ModelConfig#toMap()}), {@code step}, {@code checksum}, {@code parameters} (name, shape, dtype and
 * file of every tensor, in {@link GnnModel#parameters()} order) and {@code extra}.
 */
public final class NpyExport {

    public static final String MANIFEST = "manifest.json";

    /** The format this class writes. */
    public static final String FORMAT = "gnnstream-npy/2";

    /**
     * The earlier format, SAGE only, whose {@code model} field is a description; still readable.
     */
    public static final String FORMAT_SAGE_V1 = "gnnstream-sage-npy/1";

    static final byte[] MAGIC = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};

    private NpyExport() {}

    /**
     * Writes {@code <name>.npy} for every tensor and then the manifest (last, so a present manifest
     * means a complete export) into {@code dir}, creating it if needed. {@code extra} entries (may
     * be empty) are stored under {@code "extra"}. Returns the manifest path.
     */
    public static Path export(GnnModel model, Path dir, Map<String, Object> extra)
            throws IOException {
        Files.createDirectories(dir);
        List<Map<String, Object>> tensors = new ArrayList<>();
        for (ParamInfo p : model.parameters()) {
            String file = p.name() + ".npy";
            Files.write(dir.resolve(file), encode(p.shape(), p.values()));
            Map<String, Object> t = new LinkedHashMap<>();
            t.put("name", p.name());
            t.put("shape", p.shape());
            t.put("dtype", "<f4");
            t.put("file", file);
            tensors.add(t);
        }
        Map<String, Object> manifest = new LinkedHashMap<>();
        manifest.put("format", FORMAT);
        ModelType type = model.config().modelType();
        manifest.put("model", type.id());
        manifest.put("description", type.description());
        manifest.put("config", model.config().toMap());
        manifest.put("step", model.step());
        manifest.put("checksum", model.checksum());
        manifest.put("parameters", tensors);
        manifest.put("extra", new LinkedHashMap<>(extra));
        Path path = dir.resolve(MANIFEST);
        new ObjectMapper()
                .enable(SerializationFeature.INDENT_OUTPUT)
                .writeValue(path.toFile(), manifest);
        return path;
    }

    /** The complete {@code .npy} file contents for a float32 C-order array. */
    static byte[] encode(int[] shape, float[] values) {
        StringBuilder dims = new StringBuilder();
        for (int d : shape) {
            dims.append(d).append(", ");
        }
        String shapeText =
                shape.length == 1
                        ? "(" + shape[0] + ",)"
                        : "(" + dims.substring(0, Math.max(0, dims.length() - 2)) + ")";
        String dict = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shapeText + ", }";
        // Magic (8) + header length (2) + dict + padding + '\n' must be a multiple of 64.
        int unpadded = MAGIC.length + 2 + dict.length() + 1;
        int headerLen = dict.length() + 1 + (64 - unpadded % 64) % 64;
        String header = dict + " ".repeat(headerLen - dict.length() - 1) + "\n";
        ByteBuffer out =
                ByteBuffer.allocate(MAGIC.length + 2 + headerLen + 4 * values.length)
                        .order(ByteOrder.LITTLE_ENDIAN);
        out.put(MAGIC).putShort((short) headerLen).put(header.getBytes(StandardCharsets.US_ASCII));
        out.asFloatBuffer().put(values);
        return out.array();
    }
}

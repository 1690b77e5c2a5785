package io.gnnstream.operators.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reads the export back with an independent .npy parser and checks the manifest. */
class NpyExportTest {

    private static final Pattern HEADER =
            Pattern.compile(
                    "\\{'descr': '<f4', 'fortran_order': False, 'shape': \\(([0-9, ]*)\\), \\}"
                            + " *\n");

    @Test
    void parametersRoundTripThroughNpyAndManifest(@TempDir Path dir) throws Exception {
        ModelConfig cfg =
                ModelConfig.builder()
                        .inFeatures(7)
                        .hidden(9)
                        .numClasses(3)
                        .numLayers(2)
                        .seed(3)
                        .build();
        SageModel model = new SageModel(cfg);
        model.trainStep(
                TestGraphs.sample(
                        TestGraphs.random(50, 7, 3, 4, 4, 2),
                        new int[] {1, 2, 3, 5},
                        new int[] {3, 3},
                        true,
                        4));
        Path manifestPath =
                NpyExport.export(
                        model, dir.resolve("out"), Map.of("dataset", "planted", "epoch", 3));

        JsonNode manifest = new ObjectMapper().readTree(manifestPath.toFile());
        assertEquals(NpyExport.FORMAT, manifest.get("format").asText());
        assertEquals(1, manifest.get("step").asLong());
        assertEquals(model.checksum(), manifest.get("checksum").asLong());
        assertEquals(9, manifest.get("config").get("hidden").asInt());
        assertEquals(3L, manifest.get("config").get("seed").asLong());
        assertEquals("planted", manifest.get("extra").get("dataset").asText());
        assertEquals(3, manifest.get("extra").get("epoch").asInt());

        List<ParamInfo> params = model.parameters();
        JsonNode tensors = manifest.get("parameters");
        assertEquals(6, params.size());
        assertEquals(params.size(), tensors.size());
        for (int t = 0; t < params.size(); t++) {
            ParamInfo p = params.get(t);
            JsonNode entry = tensors.get(t);
            assertEquals(p.name(), entry.get("name").asText());
            assertEquals("<f4", entry.get("dtype").asText());
            int[] shape = new int[entry.get("shape").size()];
            for (int d = 0; d < shape.length; d++) {
                shape[d] = entry.get("shape").get(d).asInt();
            }
            assertArrayEquals(p.shape(), shape, p.name());
            byte[] bytes =
                    Files.readAllBytes(dir.resolve("out").resolve(entry.get("file").asText()));
            assertArrayEquals(p.values(), readNpy(bytes, p.shape()), p.name());
        }
        assertEquals("layers.0.lin_root.weight", params.get(0).name());
        assertArrayEquals(new int[] {7, 9}, params.get(1).shape());
        assertEquals("layers.1.bias", params.get(5).name());
        assertArrayEquals(new int[] {3}, params.get(5).shape());
    }

    /** Minimal .npy 1.0 reader: validates magic, alignment and header, returns the data. */
    private static float[] readNpy(byte[] bytes, int[] expectedShape) {
        ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        byte[] magic = new byte[8];
        in.get(magic);
        assertArrayEquals(new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0}, magic);
        int headerLen = in.getShort() & 0xFFFF;
        assertEquals(0, (10 + headerLen) % 64, "data must start 64-byte aligned");
        String header = new String(bytes, 10, headerLen, StandardCharsets.US_ASCII);
        Matcher m = HEADER.matcher(header);
        assertTrue(m.matches(), "header: " + header);
        String[] dims = m.group(1).split(",");
        int count = 1;
        int rank = 0;
        for (String d : dims) {
            if (!d.isBlank()) {
                assertEquals(expectedShape[rank++], Integer.parseInt(d.trim()));
                count *= Integer.parseInt(d.trim());
            }
        }
        assertEquals(expectedShape.length, rank);
        if (rank == 1) {
            assertTrue(m.group(1).endsWith(","), "1-D shapes need a trailing comma");
        }
        assertEquals(10 + headerLen + 4 * count, bytes.length);
        float[] values = new float[count];
        in.position(10 + headerLen);
        in.asFloatBuffer().get(values);
        return values;
    }
}

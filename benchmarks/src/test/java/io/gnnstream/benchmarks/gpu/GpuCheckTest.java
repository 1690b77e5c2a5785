package io.gnnstream.benchmarks.gpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.operators.model.GnnModel;
import io.gnnstream.operators.model.ModelConfig;
import io.gnnstream.operators.model.ModelType;
import io.gnnstream.operators.model.NpyFile;
import io.gnnstream.operators.model.ParamInfo;
import io.gnnstream.operators.model.gpu.GpuUnavailableException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The GPU check end to end without a GPU: the ND4J models stand in for the CUDA backend, so a
 * reference written by {@link GpuReference} must pass, and a changed reference or model must fail.
 */
class GpuCheckTest {

    private static final GpuReference.Shape SMALL =
            new GpuReference.Shape(8, new int[] {3, 2}, 12, 8, 4, 2);

    @TempDir static Path shared;
    private static Path reference;

    @BeforeAll
    static void writeReference() throws IOException {
        reference = shared.resolve("reference");
        GpuReference.write(reference, SMALL, new PrintStream(new ByteArrayOutputStream()));
    }

    private static CheckOptions small(Path ref, Path out) {
        CheckOptions o = CheckOptions.parse(new String[0], null);
        o.reference = ref;
        o.out = out;
        o.rankSteps = 3;
        o.rankSeeds = 8;
        o.rankFanouts = new int[] {3, 2};
        o.rankFeatures = 6;
        o.rankHidden = 5;
        o.seeds = 8;
        o.fanouts = new int[] {3, 2};
        o.features = new int[] {6};
        o.hidden = 5;
        o.classes = 4;
        o.steps = 3;
        o.warmup = 1;
        o.torch = false;
        return o;
    }

    private record Run(int rc, String console) {}

    private static Run run(CheckOptions o, ModelBackend backend) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int rc = GpuCheck.run(o, backend, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        return new Run(rc, bytes.toString(StandardCharsets.UTF_8));
    }

    @Test
    void theReferenceWritesEveryStageOfTheModelsWithGpuKernels() throws IOException {
        assertFalse(
                Files.exists(reference.resolve(ModelType.GAT.id())),
                "no reference for a model without GPU kernels");
        for (ModelType type : GpuReference.GPU_TYPES) {
            Path dir = reference.resolve(type.id());
            ModelConfig config = ReferenceFolder.readConfig(dir);
            assertEquals(GpuReference.config(type, SMALL, config.seed()), config);
            assertTrue(config.seed() >= GpuReference.MODEL_SEED);
            try (GnnModel m = GnnModel.create(config)) {
                for (String stage : List.of("initial", "gradient", "step-1", "step-2")) {
                    for (ParamInfo p : m.parameters()) {
                        assertArrayEquals(
                                p.shape(),
                                NpyFile.shape(dir.resolve(stage).resolve(p.name() + ".npy")));
                    }
                }
                ParamInfo first = m.parameters().get(0);
                assertArrayEquals(
                        first.values(), ReferenceFolder.readTensor(dir.resolve("initial"), first));
            }
        }
        assertTrue(Files.isRegularFile(reference.resolve(ReferenceFolder.INDEX)));
        // Rewriting replaces the reference; anything else at the path is kept.
        GpuReference.write(reference, SMALL, new PrintStream(new ByteArrayOutputStream()));
        Path other = shared.resolve("other");
        Files.createDirectories(other);
        Files.writeString(other.resolve("keep.txt"), "x");
        assertThrows(
                IOException.class,
                () ->
                        GpuReference.write(
                                other, SMALL, new PrintStream(new ByteArrayOutputStream())));
        assertTrue(Files.exists(other.resolve("keep.txt")));
    }

    @Test
    void theNd4jModelsPassAgainstTheirOwnReference(@TempDir Path out) throws IOException {
        Run r = run(small(reference, out), new CpuBackend());
        assertEquals(0, r.rc(), r.console());
        assertTrue(r.console().contains("ranks: 2 contexts, 3 steps each"), r.console());
        assertTrue(r.console().contains("sage initial   6 tensors"), r.console());
        assertTrue(r.console().contains("bit-identical: yes"), r.console());
        assertTrue(r.console().contains("PASSED"), r.console());
        assertEquals(r.console(), Files.readString(out.resolve(CheckReport.TEXT)), "the text file");
        Map<?, ?> json =
                new com.fasterxml.jackson.databind.ObjectMapper()
                        .readValue(Files.readString(out.resolve(CheckReport.JSON)), Map.class);
        assertEquals(true, json.get("passed"));
        assertEquals("cpu", json.get("device"));
        Map<?, ?> sage = (Map<?, ?>) ((Map<?, ?>) json.get("reference")).get("sage");
        assertEquals(true, sage.get("passed"));
        assertEquals(6 * 4, ((List<?>) sage.get("tensors")).size());
        assertEquals(true, ((Map<?, ?>) json.get("ranks")).get("passed"));
        Map<?, ?> row = (Map<?, ?>) ((List<?>) json.get("timing")).get(0);
        assertTrue((Double) ((Map<?, ?>) row.get("gnnstream")).get("seeds_per_s") > 0);
        assertTrue(r.console().contains("n/a"), "no PyTorch column: " + r.console());
    }

    @Test
    void aChangedTensorFailsWithItsName(@TempDir Path tmp) throws IOException {
        Path ref = copy(reference, tmp.resolve("ref"));
        Path dir = ref.resolve("gcn").resolve("step-2");
        ParamInfo like;
        try (GnnModel m = GnnModel.create(ReferenceFolder.readConfig(ref.resolve("gcn")))) {
            like = m.parameters().get(0);
        }
        float[] v = ReferenceFolder.readTensor(dir, like);
        v[3] *= 1.01f;
        NpyFile.write(dir.resolve(like.name() + ".npy"), like.shape(), v);
        CheckOptions o = small(ref, null);
        o.ranks = false;
        o.timing = false;
        Run r = run(o, new CpuBackend());
        assertEquals(1, r.rc(), r.console());
        assertTrue(
                r.console().contains("FAIL gcn step-2 " + like.name() + ": max|d| "), r.console());
        assertTrue(r.console().contains("(flat index 3: "), r.console());
        assertTrue(r.console().contains("reference sage: PASS"), r.console());
        assertTrue(r.console().contains("reference gcn: FAIL"), r.console());
    }

    @Test
    void anotherInitializationFailsBitForBit() throws IOException {
        CheckOptions o = small(reference, null);
        o.ranks = false;
        o.timing = false;
        Run r =
                run(
                        o,
                        new CpuBackend(
                                c ->
                                        new ModelConfig(
                                                c.modelType(),
                                                c.inFeatures(),
                                                c.hidden(),
                                                c.numClasses(),
                                                c.numLayers(),
                                                c.dropout(),
                                                c.learningRate(),
                                                c.weightDecay(),
                                                c.seed() + 1,
                                                c.decaySteps())));
        assertEquals(1, r.rc());
        assertTrue(r.console().contains("(must be bit-identical)"), r.console());
        assertTrue(r.console().contains("bit-identical: NO"), r.console());
    }

    @Test
    void noGpuFailsCleanlyAndAMissingReferenceSaysHowToMakeIt(@TempDir Path tmp)
            throws IOException {
        ModelBackend none =
                new ModelBackend() {
                    @Override
                    public String deviceKind() {
                        throw new GpuUnavailableException("--device cuda: no GPU here");
                    }

                    @Override
                    public GnnModel open(ModelConfig config) {
                        throw new AssertionError("not reached");
                    }
                };
        Run r = run(small(reference, null), none);
        assertEquals(1, r.rc());
        assertTrue(r.console().contains("FAIL no usable GPU: --device cuda: no GPU here"));
        assertFalse(r.console().contains("== (b)"), r.console());

        CheckOptions o = small(tmp.resolve("absent"), null);
        o.ranks = false;
        o.timing = false;
        r = run(o, new CpuBackend());
        assertEquals(1, r.rc());
        assertTrue(r.console().contains("gpu/bundle.sh writes it with GpuReference"), r.console());
    }

    @Test
    void aModelThatThrowsFailsEachSectionAndTheRestStillRuns() throws IOException {
        ModelBackend unfinished =
                new ModelBackend() {
                    @Override
                    public String deviceKind() {
                        return "cuda test";
                    }

                    @Override
                    public GnnModel open(ModelConfig config) {
                        return (GnnModel)
                                Proxy.newProxyInstance(
                                        GnnModel.class.getClassLoader(),
                                        new Class<?>[] {GnnModel.class},
                                        (proxy, method, args) -> {
                                            if (method.getName().equals("close")) {
                                                return null;
                                            }
                                            throw new UnsupportedOperationException();
                                        });
                    }
                };
        Run r = run(small(reference, null), unfinished);
        assertEquals(1, r.rc());
        assertTrue(
                r.console().contains("FAIL sage: java.lang.UnsupportedOperationException"),
                r.console());
        assertTrue(r.console().contains("FAIL gcn: java.lang.UnsupportedOperationException"));
        assertTrue(r.console().contains("FAIL ranks: a rank failed: java.lang.Unsupported"));
        assertTrue(r.console().contains("FAIL timing F=6: java.lang.Unsupported"));
        assertTrue(r.console().contains("(checks FAILED above"), r.console());
        assertTrue(r.console().contains("== (f) summary"), r.console());
        assertTrue(r.console().contains("FAILED: 4 failure(s)"), r.console());
    }

    @Test
    void theDryRunReadsTheReferenceWithoutABackend() throws IOException {
        CheckOptions o = small(reference, null);
        o.dryRun = true;
        Run r = run(o, null);
        assertEquals(0, r.rc(), r.console());
        assertTrue(r.console().contains("reference gcn: ModelConfig{model=gcn"), r.console());
    }

    @Test
    void optionsParseAndRefuseBadValues() {
        CheckOptions o =
                CheckOptions.parse(
                        new String[] {
                            "--features",
                            "64,602",
                            "--rank-shape",
                            "16:4,3:32:8",
                            "--no-torch",
                            "--tolerance",
                            "1e-5",
                            "--device",
                            "1"
                        },
                        "/tmp/out");
        assertArrayEquals(new int[] {64, 602}, o.features);
        assertArrayEquals(new int[] {4, 3}, o.rankFanouts);
        assertEquals(16, o.rankSeeds);
        assertEquals(8, o.rankHidden);
        assertFalse(o.torch);
        assertEquals(1e-5, o.tolerance);
        assertEquals(1, o.device);
        assertEquals(Path.of("/tmp/out"), o.out);
        assertTrue(CheckOptions.parse(new String[] {"--help"}, null).help);
        for (String[] bad :
                List.of(
                        new String[] {"--steps", "0"},
                        new String[] {"--features", "1,x"},
                        new String[] {"--rank-shape", "1:2:3"},
                        new String[] {"--device"},
                        new String[] {"--what", "1"},
                        new String[] {"stray"})) {
            assertThrows(
                    IllegalArgumentException.class,
                    () -> CheckOptions.parse(bad, null),
                    String.join(" ", bad));
        }
        assertTrue(CheckOptions.usage().contains("Exit status"));
    }

    private static Path copy(Path from, Path to) throws IOException {
        try (var s = Files.walk(from)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
        return to;
    }
}

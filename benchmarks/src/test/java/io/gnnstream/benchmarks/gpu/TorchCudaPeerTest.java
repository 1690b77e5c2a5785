package io.gnnstream.benchmarks.gpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The peer's process and output handling, with a shell script standing in for torch_sage.py. */
class TorchCudaPeerTest {

    private static final String JSON =
            "{\"torch\": \"2.9.0\", \"threads\": 1, \"device\": \"cuda\", \"device_name\":"
                    + " \"NVIDIA H200\", \"pinned_sparse\": true, \"median_seeds_per_s\": 200.0,"
                    + " \"seeds_per_s\": [100.0, 200.0, 300.0]}";

    @Test
    void parsesTheScriptsJsonLine() throws IOException {
        TorchCudaPeer.Result r = TorchCudaPeer.parse("a warning\n" + JSON + "\n");
        assertEquals("2.9.0", r.torch());
        assertEquals("NVIDIA H200", r.deviceName());
        assertArrayEquals(new double[] {100, 200, 300}, r.seedsPerSecond());
        assertEquals(200, r.median());
        assertThrows(IOException.class, () -> TorchCudaPeer.parse("Traceback ..."));
        assertThrows(IOException.class, () -> TorchCudaPeer.parse("{\"torch\": 1}"));
    }

    @Test
    void runsTheScriptAndReportsItsFailures(@TempDir Path dir) throws Exception {
        Path batch = dir.resolve("b.bin");
        Files.writeString(batch, "x");
        Path ok = script(dir, "ok.sh", "echo \"$@\" >&2; echo '" + JSON + "'");
        TorchCudaPeer.Result r = new TorchCudaPeer("sh", ok, 0).run(batch, 16, 3, 1, 60);
        assertEquals(200, r.median());

        Path fails = script(dir, "fails.sh", "echo 'RuntimeError: CUDA out of memory' >&2; exit 3");
        IOException e =
                assertThrows(
                        IOException.class,
                        () -> new TorchCudaPeer("sh", fails, 0).run(batch, 16, 3, 1, 60));
        assertTrue(e.getMessage().contains("exit 3"), e.getMessage());
        assertTrue(e.getMessage().contains("CUDA out of memory"), e.getMessage());

        Path args = script(dir, "args.sh", "echo \"$@\" >&2; exit 1");
        e =
                assertThrows(
                        IOException.class,
                        () -> new TorchCudaPeer("sh", args, 2).run(batch, 16, 3, 1, 60));
        assertTrue(
                e.getMessage()
                        .contains(
                                "--device cuda:2 --batch "
                                        + batch
                                        + " --hidden 16"
                                        + " --steps 3 --warmup 1"),
                e.getMessage());
    }

    @Test
    void theCheckPrintsTheRatioWithThePeer(@TempDir Path dir) throws Exception {
        Path ok = script(dir, "ok.sh", "echo '" + JSON + "'");
        CheckOptions o = CheckOptions.parse(new String[0], null);
        o.references = false;
        o.ranks = false;
        o.seeds = 4;
        o.fanouts = new int[] {2};
        o.features = new int[] {3};
        o.hidden = 4;
        o.classes = 3;
        o.steps = 2;
        o.warmup = 0;
        o.python = "sh";
        o.torchScript = ok;
        var bytes = new java.io.ByteArrayOutputStream();
        int rc = GpuCheck.run(o, new CpuBackend(), new java.io.PrintStream(bytes, true));
        String out = bytes.toString();
        assertEquals(0, rc, out);
        assertTrue(out.contains("PyTorch 2.9.0 CUDA on NVIDIA H200: median 200 seeds/s"), out);
        assertTrue(out.matches("(?s).*\\n3 +[0-9,]+ +200 +[0-9.]+\\n.*"), out);
    }

    private static Path script(Path dir, String name, String body) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, body + "\n");
        return p;
    }
}

package io.gnnstream.benchmarks.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The plain-PyTorch peer of {@code bench train}, run in the same invocation on the same batch:
 * {@code docs/benchmarks/torch_sage.py} under the first Python that imports torch (Debian's {@code
 * python3-torch}; {@code GNNSTREAM_TORCH_PYTHON} names another). The batch goes to it as a file
 * (the layout is in the script's docstring), written by {@link BatchFile}.
 */
final class TorchPeer {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> PYTHONS = List.of("python3", "/usr/bin/python3");

    private final String python;
    private final String version;
    private final Path script;

    private TorchPeer(String python, String version, Path script) {
        this.python = python;
        this.version = version;
        this.script = script;
    }

    /** The peer, or null when no Python with torch or no script is found (the reason logged). */
    static TorchPeer find(Path home, java.io.PrintStream log) {
        Path script = home.resolve("docs/benchmarks/torch_sage.py");
        if (!Files.isRegularFile(script)) {
            log.println("train: no PyTorch peer: " + script + " not found");
            return null;
        }
        List<String> candidates = new ArrayList<>();
        String named = System.getenv("GNNSTREAM_TORCH_PYTHON");
        if (named != null && !named.isBlank()) {
            candidates.add(named);
        }
        candidates.addAll(PYTHONS);
        for (String python : candidates) {
            String version = torchVersion(python);
            if (version != null) {
                return new TorchPeer(python, version, script);
            }
        }
        log.println(
                "train: no PyTorch peer: none of "
                        + candidates
                        + " imports torch (install Debian's python3-torch, or set"
                        + " GNNSTREAM_TORCH_PYTHON)");
        return null;
    }

    String name(int threads) {
        return "pytorch-" + version + "-cpu-" + threads + "t";
    }

    String version() {
        return version;
    }

    /** Seeds/s of each measured step of the script on {@code batchFile}. */
    double[] run(Path batchFile, int threads, int steps, int warmup) throws Exception {
        ProcessBuilder pb =
                new ProcessBuilder(
                        python,
                        script.toString(),
                        "--batch",
                        batchFile.toString(),
                        "--threads",
                        Integer.toString(threads),
                        "--steps",
                        Integer.toString(steps),
                        "--warmup",
                        Integer.toString(warmup));
        Map<String, String> env = pb.environment();
        env.put("OMP_NUM_THREADS", Integer.toString(threads));
        pb.redirectError(ProcessBuilder.Redirect.INHERIT);
        Process p = pb.start();
        try {
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(30, TimeUnit.MINUTES) || p.exitValue() != 0) {
                throw new IllegalStateException(
                        "the PyTorch peer failed (exit " + p.exitValue() + ")");
            }
            JsonNode result = JSON.readTree(out);
            JsonNode rates = result.get("seeds_per_s");
            double[] r = new double[rates.size()];
            for (int i = 0; i < r.length; i++) {
                r[i] = rates.get(i).asDouble();
            }
            return r;
        } finally {
            p.destroyForcibly();
        }
    }

    private static String torchVersion(String python) {
        try {
            Process p =
                    new ProcessBuilder(python, "-c", "import torch; print(torch.__version__)")
                            .redirectErrorStream(true)
                            .start();
            String out = new String(p.getInputStream().readAllBytes()).trim();
            boolean ok = p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0;
            p.destroyForcibly();
            return ok && !out.isEmpty() ? out.lines().reduce((a, b) -> b).orElse(out) : null;
        } catch (IOException | InterruptedException e) {
            return null;
        }
    }
}

package io.gnnstream.benchmarks.gpu;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The plain-PyTorch peer on the GPU: {@code docs/benchmarks/torch_sage.py --device cuda} on a batch
 * file ({@link io.gnnstream.benchmarks.bench.BatchFile}), in the same command as the check, on the
 * same device. Parses the one JSON object the script prints.
 */
final class TorchCudaPeer {

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * What the script reports.
     *
     * @param torch the torch version
     * @param deviceName {@code torch.cuda.get_device_name()}
     * @param seedsPerSecond per timed step
     * @param median the median of {@code seedsPerSecond}, as the script computed it
     */
    record Result(String torch, String deviceName, double[] seedsPerSecond, double median) {}

    private final String python;
    private final Path script;
    private final int device;

    TorchCudaPeer(String python, Path script, int device) {
        this.python = python;
        this.script = script;
        this.device = device;
    }

    /**
     * Runs the script on {@code batchFile} with a model of {@code hidden} hidden units.
     *
     * @throws IOException if it cannot start, fails, runs past {@code timeoutSeconds} or prints no
     *     JSON object (the message ends with the tail of its stderr)
     */
    Result run(Path batchFile, int hidden, int steps, int warmup, long timeoutSeconds)
            throws IOException, InterruptedException {
        if (!Files.isRegularFile(script)) {
            throw new IOException("no PyTorch peer script " + script);
        }
        List<String> cmd =
                List.of(
                        python,
                        script.toString(),
                        "--device",
                        device == 0 ? "cuda" : "cuda:" + device,
                        "--batch",
                        batchFile.toString(),
                        "--hidden",
                        Integer.toString(hidden),
                        "--steps",
                        Integer.toString(steps),
                        "--warmup",
                        Integer.toString(warmup));
        Path err = Files.createTempFile("gnnstream-torch", ".err");
        try {
            Process p =
                    new ProcessBuilder(cmd)
                            .redirectError(err.toFile())
                            .redirectInput(ProcessBuilder.Redirect.from(nullFile()))
                            .start();
            String out;
            try {
                out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                    throw new IOException(
                            "the PyTorch peer ran past " + timeoutSeconds + " s" + tail(err));
                }
            } finally {
                p.destroyForcibly();
            }
            if (p.exitValue() != 0) {
                throw new IOException(
                        "the PyTorch peer failed (exit " + p.exitValue() + ")" + tail(err));
            }
            return parse(out);
        } finally {
            Files.deleteIfExists(err);
        }
    }

    /** The result in the script's output (its last line that starts a JSON object). */
    static Result parse(String stdout) throws IOException {
        String json = null;
        for (String line : stdout.split("\n")) {
            if (line.trim().startsWith("{")) {
                json = line.trim();
            }
        }
        if (json == null) {
            throw new IOException("the PyTorch peer printed no JSON object: " + abbreviate(stdout));
        }
        try {
            Map<?, ?> m = JSON.readValue(json, Map.class);
            List<?> rates = (List<?>) m.get("seeds_per_s");
            double[] r = new double[rates.size()];
            for (int i = 0; i < r.length; i++) {
                r[i] = ((Number) rates.get(i)).doubleValue();
            }
            Object median = m.get("median_seeds_per_s");
            return new Result(
                    String.valueOf(m.get("torch")),
                    String.valueOf(m.get("device_name")),
                    r,
                    median instanceof Number n ? n.doubleValue() : Double.NaN);
        } catch (JsonProcessingException
                | IllegalArgumentException
                | ClassCastException
                | NullPointerException e) {
            throw new IOException("unexpected PyTorch peer output " + abbreviate(json) + ": " + e);
        }
    }

    private static java.io.File nullFile() {
        return new java.io.File("/dev/null");
    }

    private static String tail(Path err) throws IOException {
        List<String> lines =
                new String(Files.readAllBytes(err), StandardCharsets.UTF_8).lines().toList();
        if (lines.isEmpty()) {
            return "";
        }
        List<String> last = lines.subList(Math.max(0, lines.size() - 15), lines.size());
        return "; its stderr ends:\n    " + String.join("\n    ", last);
    }

    private static String abbreviate(String s) {
        String t = s.strip();
        return t.length() <= 300 ? "'" + t + "'" : "'" + t.substring(0, 300) + "...'";
    }
}

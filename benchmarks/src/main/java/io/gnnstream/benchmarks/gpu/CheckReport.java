package io.gnnstream.benchmarks.gpu;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the GPU check prints, kept as it goes: every line to the console and, with an output folder,
 * to {@code gpu-check.txt} there (flushed per line, so a check cut short still leaves what it got),
 * and the results as {@code gpu-check.json}, rewritten after each section. Counts the failures.
 */
final class CheckReport implements AutoCloseable {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    static final String TEXT = "gpu-check.txt";
    static final String JSON = "gpu-check.json";

    private final PrintStream console;
    private final Path dir;
    private final Writer text;
    private final Map<String, Object> results = new LinkedHashMap<>();
    private final List<String> failures = new ArrayList<>();

    /** A report to {@code console} and, when {@code dir} is not null, into files in {@code dir}. */
    CheckReport(PrintStream console, Path dir) throws IOException {
        this.console = console;
        this.dir = dir;
        if (dir != null) {
            Files.createDirectories(dir);
            text = Files.newBufferedWriter(dir.resolve(TEXT), StandardCharsets.UTF_8);
        } else {
            text = null;
        }
        results.put("format", "gnnstream-gpu-check/1");
    }

    /** Prints {@code line}. */
    void line(String line) {
        console.println(line);
        if (text != null) {
            try {
                text.write(line);
                text.write('\n');
                text.flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** Prints a formatted line ({@link java.util.Locale#ROOT}). */
    void printf(String format, Object... args) {
        line(String.format(java.util.Locale.ROOT, format, args));
    }

    /** Prints {@code what} as a failed check and counts it. */
    void fail(String what) {
        failures.add(what);
        line("FAIL " + what);
    }

    int failures() {
        return failures.size();
    }

    /** Sets a top-level entry of the JSON results and rewrites them. */
    void put(String key, Object value) {
        results.put(key, value);
        writeJson();
    }

    Map<String, Object> results() {
        return results;
    }

    private void writeJson() {
        if (dir == null) {
            return;
        }
        results.put("failures", List.copyOf(failures));
        try {
            Files.writeString(
                    dir.resolve(JSON),
                    MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(results) + "\n",
                    StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes the final JSON with {@code passed} and closes the text file. */
    @Override
    public void close() throws IOException {
        results.put("passed", failures.isEmpty());
        writeJson();
        if (text != null) {
            text.close();
        }
    }
}

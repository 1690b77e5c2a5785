package io.gnnstream.benchmarks.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/** Prints results as an aligned table and writes or appends them to a JSON list. */
public final class BenchReport {

    private static final ObjectMapper JSON =
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private static final Set<String> RIGHT_ALIGNED =
            Set.of("median", "min", "max", "base median", "ratio");

    private BenchReport() {}

    /**
     * Prints one line per result. Params that are equal in all rows are printed once above the
     * table; params that differ get a column each.
     */
    public static void printTable(List<BenchResult> results, PrintStream out) {
        if (results.isEmpty()) {
            out.println("(no results)");
            return;
        }
        Set<String> keys = new LinkedHashSet<>();
        results.forEach(r -> keys.addAll(r.getParams().keySet()));
        List<String> varying = new ArrayList<>();
        Map<String, String> constant = new LinkedHashMap<>();
        for (String k : keys) {
            Set<String> values =
                    results.stream()
                            .map(r -> render(r.getParams().get(k)))
                            .collect(Collectors.toSet());
            if (values.size() == 1
                    && results.stream().allMatch(r -> r.getParams().containsKey(k))) {
                constant.put(k, values.iterator().next());
            } else {
                varying.add(k);
            }
        }
        if (!constant.isEmpty()) {
            out.println(
                    constant.entrySet().stream()
                            .map(e -> e.getKey() + "=" + e.getValue())
                            .collect(Collectors.joining(" ")));
        }
        List<String> header = new ArrayList<>(List.of("what"));
        header.addAll(varying);
        header.addAll(List.of("unit", "median", "min", "max", "baseline", "base median", "ratio"));
        List<List<String>> rows = new ArrayList<>();
        rows.add(header);
        for (BenchResult r : results) {
            List<String> row = new ArrayList<>(List.of(r.getWhat()));
            for (String k : varying) {
                row.add(render(r.getParams().get(k)));
            }
            Baseline b = r.getBaseline();
            row.addAll(
                    List.of(
                            r.getUnit(),
                            number(r.getMedian()),
                            number(r.getMin()),
                            number(r.getMax()),
                            b == null ? "-" : b.getName(),
                            b == null ? "-" : number(b.getMedian()),
                            r.getRatio() == null
                                    ? "-"
                                    : String.format(Locale.ROOT, "%.2fx", r.getRatio())));
            rows.add(row);
        }
        int[] widths = new int[header.size()];
        for (List<String> row : rows) {
            for (int c = 0; c < row.size(); c++) {
                widths[c] = Math.max(widths[c], row.get(c).length());
            }
        }
        for (List<String> row : rows) {
            StringBuilder line = new StringBuilder();
            for (int c = 0; c < row.size(); c++) {
                String cell = row.get(c);
                String pad = " ".repeat(widths[c] - cell.length());
                line.append(c == 0 ? "" : "  ")
                        .append(RIGHT_ALIGNED.contains(header.get(c)) ? pad + cell : cell + pad);
            }
            out.println(line.toString().stripTrailing());
        }
    }

    /**
     * Writes {@code results} as a JSON list to {@code file}, or appends them when the file already
     * holds a JSON list (so several {@code bench} runs can share one file). The file is replaced
     * atomically where the file system allows.
     *
     * @throws IllegalArgumentException if the existing file is not a JSON list
     */
    public static void writeJson(Path file, List<BenchResult> results) throws IOException {
        ArrayNode list = JSON.createArrayNode();
        if (Files.exists(file) && Files.size(file) > 0) {
            JsonNode existing;
            try {
                existing = JSON.readTree(file.toFile());
            } catch (IOException e) {
                throw new IllegalArgumentException(
                        file + " exists but is not JSON: " + e.getMessage());
            }
            if (!existing.isArray()) {
                throw new IllegalArgumentException(
                        file + " exists but is not a JSON list; not appending to it");
            }
            list.addAll((ArrayNode) existing);
        }
        for (BenchResult r : results) {
            list.add(toJson(r));
        }
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Path tmp = Files.createTempFile(parent, file.getFileName().toString(), ".tmp");
        try {
            JSON.writeValue(tmp.toFile(), list);
            try {
                Files.move(
                        tmp,
                        file,
                        StandardCopyOption.REPLACE_EXISTING,
                        StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** The JSON object of one result. */
    public static JsonNode toJson(BenchResult result) {
        return JSON.valueToTree(result);
    }

    /** Thousands separators at 100 and above, else three significant digits. */
    static String number(double v) {
        if (Math.abs(v) >= 100) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        return String.format(Locale.ROOT, "%.3g", v);
    }

    private static String render(Object value) {
        if (value instanceof List<?> list) {
            return list.stream().map(BenchReport::render).collect(Collectors.joining(","));
        }
        if (value instanceof int[] a) {
            return java.util.Arrays.stream(a)
                    .mapToObj(String::valueOf)
                    .collect(Collectors.joining(","));
        }
        return Objects.toString(value, "-");
    }
}

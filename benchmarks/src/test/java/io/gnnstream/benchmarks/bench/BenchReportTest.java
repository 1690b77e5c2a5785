package io.gnnstream.benchmarks.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchReportTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static BenchResult result(int threads, double... samples) {
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("features", 128);
        params.put("threads", threads);
        params.put("fanouts", List.of(25, 10));
        Baseline base = new Baseline("pytorch", 2000, Map.of("best_known", 4560.0));
        return new BenchResult(
                "train",
                params,
                "seeds/s",
                Stats.of(samples),
                base,
                Map.of("env", Map.of("cpus", 2)));
    }

    @Test
    void jsonObjectHasTheDocumentedShape() {
        JsonNode o = BenchReport.toJson(result(2, 3000, 5000, 4000));
        List<String> fields = new ArrayList<>();
        o.fieldNames().forEachRemaining(fields::add);
        assertEquals(
                List.of(
                        "what",
                        "params",
                        "unit",
                        "median",
                        "min",
                        "max",
                        "baseline",
                        "ratio",
                        "env"),
                fields);
        assertEquals("train", o.get("what").asText());
        assertEquals(128, o.get("params").get("features").asInt());
        assertEquals(2, o.get("params").get("threads").asInt());
        assertTrue(o.get("params").get("fanouts").isArray());
        assertEquals("seeds/s", o.get("unit").asText());
        assertEquals(4000.0, o.get("median").asDouble());
        assertEquals(3000.0, o.get("min").asDouble());
        assertEquals(5000.0, o.get("max").asDouble());
        assertEquals("pytorch", o.get("baseline").get("name").asText());
        assertEquals(2000.0, o.get("baseline").get("median").asDouble());
        assertEquals(4560.0, o.get("baseline").get("best_known").asDouble());
        assertEquals(2.0, o.get("ratio").asDouble(), 1e-12);
    }

    @Test
    void withoutBaselineBaselineAndRatioAreNull() {
        BenchResult r =
                new BenchResult(
                        "ingest", Map.of("parallelism", 1), "records/s", Stats.of(1, 2), null);
        JsonNode o = BenchReport.toJson(r);
        assertTrue(o.has("baseline") && o.get("baseline").isNull());
        assertTrue(o.has("ratio") && o.get("ratio").isNull());
    }

    @Test
    void writesAListAndAppendsToIt(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("sub/bench.json");
        BenchReport.writeJson(file, List.of(result(1, 1), result(2, 2)));
        JsonNode first = JSON.readTree(file.toFile());
        assertTrue(first.isArray());
        assertEquals(2, first.size());
        BenchReport.writeJson(file, List.of(result(1, 3)));
        JsonNode both = JSON.readTree(file.toFile());
        assertEquals(3, both.size());
        assertEquals(1.0, both.get(0).get("median").asDouble());
        assertEquals(3.0, both.get(2).get("median").asDouble());
        try (var files = Files.list(dir.resolve("sub"))) {
            assertEquals(1, files.count(), "no temporary files left behind");
        }
    }

    @Test
    void refusesToAppendToSomethingElse(@TempDir Path dir) throws Exception {
        Path object = dir.resolve("object.json");
        Files.writeString(object, "{\"a\": 1}");
        assertThrows(
                IllegalArgumentException.class,
                () -> BenchReport.writeJson(object, List.of(result(1, 1))));
        assertEquals("{\"a\": 1}", Files.readString(object), "the file is left alone");
        Path garbage = dir.resolve("garbage.json");
        Files.writeString(garbage, "not json [");
        assertThrows(
                IllegalArgumentException.class,
                () -> BenchReport.writeJson(garbage, List.of(result(1, 1))));
        Path empty = dir.resolve("empty.json");
        Files.writeString(empty, "");
        BenchReport.writeJson(empty, List.of(result(1, 1)));
        assertEquals(1, JSON.readTree(empty.toFile()).size());
    }

    @Test
    void tableShowsConstantParamsOnceAndAlignsColumns() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BenchReport.printTable(
                List.of(result(1, 2900, 3100, 3000), result(2, 12345.6)),
                new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String[] lines = bytes.toString(StandardCharsets.UTF_8).split("\n");
        assertEquals("features=128 fanouts=25,10", lines[0]);
        assertTrue(lines[1].startsWith("what   threads  unit"), lines[1]);
        assertFalse(lines[1].contains("features"), "constant params get no column");
        assertTrue(lines[2].contains("3,000") && lines[2].contains("1.50x"), lines[2]);
        assertTrue(lines[3].contains("12,346") && lines[3].contains("6.17x"), lines[3]);
        // Right-aligned numbers: the medians end in the same column.
        int end = lines[1].indexOf("median") + "median".length();
        assertEquals(lines[2].indexOf("3,000") + 5, end);
        assertEquals(lines[3].indexOf("12,346") + 6, end);
    }

    @Test
    void numbersAreFormattedForReading() {
        assertEquals("4,560", BenchReport.number(4560.4));
        assertEquals("100", BenchReport.number(99.99));
        assertEquals("1.23", BenchReport.number(1.234));
        assertEquals("0.0123", BenchReport.number(0.012345));
    }

    @Test
    void resultsKeepParamOrder() {
        Iterator<String> names = BenchReport.toJson(result(1, 1)).get("params").fieldNames();
        assertEquals("features", names.next());
        assertEquals("threads", names.next());
        assertEquals("fanouts", names.next());
    }
}

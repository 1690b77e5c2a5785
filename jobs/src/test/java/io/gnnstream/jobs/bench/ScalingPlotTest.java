package io.gnnstream.jobs.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class ScalingPlotTest {

    @Test
    void drawsOnePngPerFigureAndATable() throws Exception {
        Path dir = Path.of("target", "scaling-plot-test");
        Files.createDirectories(dir);
        Path json = dir.resolve("results.json");
        Files.writeString(json, "["
                + row("ingest", "edges/s", 10_000, 100_000, 1, 1000, 4000) + ","
                + row("ingest", "edges/s", 100_000, 1_000_000, 1, 900, 4100) + ","
                + row("ingest", "edges/s", 100_000, 5_000_000, 1, 800, 4200) + ","
                + row("sample", "batches/s", 10_000, 100_000, 2, 10, 400) + ","
                + "{\"what\":\"train\",\"params\":{\"features\":128},\"unit\":\"seeds/s\",\"median\":1,"
                + "\"min\":1,\"max\":1,\"baseline\":{\"name\":\"x\",\"median\":1},\"ratio\":1}]");
        List<Path> written = ScalingPlot.write(json, dir.resolve("out"));
        assertEquals(3, written.size(), "two figures with a size parameter plus the table: " + written);
        for (Path p : written) {
            assertTrue(Files.size(p) > 0, p.toString());
        }
        String table = Files.readString(dir.resolve("out").resolve("scaling.md"));
        assertTrue(table.contains("avg degree 50, parallelism 1"), table);
        assertEquals(2 + 4, table.split("\n").length, table);
    }

    private static String row(String what, String unit, long vertices, long edges, int parallelism, double median,
            double baseline) {
        return "{\"what\":\"" + what + "\",\"params\":{\"vertices\":" + vertices + ",\"edges\":" + edges
                + ",\"parallelism\":" + parallelism + "},\"unit\":\"" + unit + "\",\"median\":" + median
                + ",\"min\":" + median + ",\"max\":" + median + ",\"baseline\":{\"name\":\"b\",\"median\":"
                + baseline + "},\"ratio\":" + (median / baseline) + "}";
    }
}

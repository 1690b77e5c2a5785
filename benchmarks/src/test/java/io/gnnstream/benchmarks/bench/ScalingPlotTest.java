package io.gnnstream.benchmarks.bench;

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
        Files.writeString(
                json,
                "["
                        + row("ingest", "edges/s", 10_000, 100_000, 1, 1000, 4000)
                        + ","
                        + row("ingest", "edges/s", 100_000, 1_000_000, 1, 900, 4100)
                        + ","
                        + row("ingest", "edges/s", 100_000, 5_000_000, 1, 800, 4200)
                        + ","
                        + row("sample", "batches/s", 10_000, 100_000, 2, 10, 400)
                        + ",{\"what\":\"train\",\"params\":{\"features\":128},"
                        + "\"unit\":\"seeds/s\",\"median\":1,\"min\":1,\"max\":1,"
                        + "\"baseline\":{\"name\":\"x\",\"median\":1},\"ratio\":1}]");
        List<Path> written = ScalingPlot.write(json, dir.resolve("out"));
        assertEquals(
                3, written.size(), "two figures with a size parameter plus the table: " + written);
        for (Path p : written) {
            assertTrue(Files.size(p) > 0, p.toString());
        }
        String table = Files.readString(dir.resolve("out").resolve("scaling.md"));
        assertTrue(table.contains("avg degree 50, parallelism 1"), table);
        assertEquals(2 + 4, table.split("\n").length, table);
    }

    @Test
    void memoryFiguresGetTheirOwnPlotsAndTableRows() throws Exception {
        Path dir = Path.of("target", "scaling-plot-memory-test");
        Files.createDirectories(dir);
        Path json = dir.resolve("results.json");
        Files.writeString(
                json,
                "["
                        + row("ingest", "edges/s", 10_000, 100_000, 1, 1000, 4000)
                        + ","
                        + row(
                                "ingest",
                                "edges/s",
                                10_000,
                                100_000,
                                1,
                                "\"window\":\"10-90%\"",
                                1500,
                                4000.0)
                        + ","
                        + row("ingest", "peak RSS MiB", 10_000, 100_000, 1, 450, 250)
                        + ","
                        + row("ingest", "peak RSS MiB", 100_000, 1_000_000, 1, 900, 260)
                        + ","
                        + row("ingest", "RocksDB MiB", 10_000, 100_000, 1, 2.07, 0.93)
                        + ","
                        + row("ingest", "RocksDB bytes/edge", 10_000, 100_000, 1, 21.7, 16)
                        + ","
                        + row("ingest", "RocksDB bytes/edge", 100_000, 1_000_000, 1, 19.2, 16)
                        + ","
                        + row(
                                "sample",
                                "batches/s",
                                10_000,
                                100_000,
                                1,
                                "\"fanouts\":[25,10]",
                                10,
                                400.0)
                        + ","
                        + row(
                                "sample",
                                "batches/s",
                                10_000,
                                100_000,
                                1,
                                "\"fanouts\":[10,5]",
                                30,
                                null)
                        + ","
                        + row("pipeline", "busy share", 10_000, 100_000, 1, "", 0, 1.0)
                        + "]");
        List<Path> written = ScalingPlot.write(json, dir.resolve("out"));
        List<String> names = written.stream().map(p -> p.getFileName().toString()).toList();
        assertEquals(
                List.of(
                        "ingest-RocksDB-MiB.png",
                        "ingest-RocksDB-bytes-edge.png",
                        "ingest-edges-s.png",
                        "ingest-peak-RSS-MiB.png",
                        "pipeline-busy-share.png",
                        "sample-batches-s.png",
                        "scaling.md"),
                names);
        for (Path p : written) {
            assertTrue(Files.size(p) > 0, p.toString());
        }
        String table = Files.readString(dir.resolve("out").resolve("scaling.md"));
        String series = " | avg degree 10, parallelism 1 | ";
        assertTrue(
                table.contains(
                        "| ingest — peak RSS MiB" + series + "100,000 | 900 | 260 | 3.462 |"),
                table);
        assertTrue(
                table.contains(
                        "| ingest — RocksDB bytes/edge"
                                + series
                                + "10,000 | 21.7 | 16.0 | 1.356 |"),
                table);
        assertTrue(
                table.contains(
                        "| ingest — RocksDB MiB" + series + "10,000 | 2.07 | 0.930 | 2.226 |"),
                table);
        assertTrue(
                table.contains("avg degree 10, parallelism 1, window - | 10,000 | 1,000 |"), table);
        assertTrue(
                table.contains("avg degree 10, parallelism 1, window 10-90% | 10,000 | 1,500 |"),
                table);
        assertTrue(
                table.contains(
                        "avg degree 10, parallelism 1, fanouts 10,5 | 10,000 | 30.0 | - | - |"),
                table);
        assertTrue(
                table.contains(
                        "avg degree 10, parallelism 1, fanouts 25,10 | 10,000 | 10.0 | 400 | 0.025"
                                + " |"),
                table);
        assertEquals(2 + 10, table.split("\n").length, table);
    }

    private static String row(
            String what,
            String unit,
            long vertices,
            long edges,
            int parallelism,
            double median,
            double baseline) {
        return row(what, unit, vertices, edges, parallelism, "", median, baseline);
    }

    private static String row(
            String what,
            String unit,
            long vertices,
            long edges,
            int parallelism,
            String extraParams,
            double median,
            Double baseline) {
        return "{\"what\":\""
                + what
                + "\",\"params\":{\"vertices\":"
                + vertices
                + ",\"edges\":"
                + edges
                + ",\"parallelism\":"
                + parallelism
                + (extraParams.isEmpty() ? "" : "," + extraParams)
                + "},\"unit\":\""
                + unit
                + "\",\"median\":"
                + median
                + ",\"min\":"
                + median
                + ",\"max\":"
                + median
                + ",\"baseline\":"
                + (baseline == null ? "null" : "{\"name\":\"b\",\"median\":" + baseline + "}")
                + ",\"ratio\":"
                + (baseline == null ? "null" : median / baseline)
                + "}";
    }
}

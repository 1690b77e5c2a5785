package io.gnnstream.benchmarks.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Draws how each benchmark figure grows with graph size from a results JSON list: one PNG per
 * (benchmark, unit) — rates, memory (MiB) and bytes/edge alike — with x = vertices (log scale), one
 * series per average degree and parallelism, the same-run baseline as a dashed series in its colour
 * (so that each series is read against its own baseline), plus a Markdown table of the same points.
 * Parameters that differ between the rows of one figure (e.g. fanouts, prefetch, or the timing
 * window of newer ingest rows) also split the series, so that different settings are never drawn as
 * one line.
 */
public final class ScalingPlot {

    /**
     * Parameters that describe the graph size, i.e. the x axis, or follow from it (the ingest
     * benchmark's edge buffer is an eighth of the edges, at most the job's default), rather than a
     * setting.
     */
    private static final Set<String> SIZE_PARAMS =
            Set.of("graph", "vertices", "edges", "parallelism", "edge_buffer");

    private record Point(double median, Double baseline) {}

    private ScalingPlot() {}

    /** Writes the PNGs and {@code scaling.md} into {@code outDir}; returns the files written. */
    public static List<Path> write(Path resultsJson, Path outDir) throws IOException {
        Map<String, List<JsonNode>> rowsByChart = new TreeMap<>();
        for (JsonNode r : new ObjectMapper().readTree(resultsJson.toFile())) {
            if (r.path("params").has("vertices")) {
                rowsByChart
                        .computeIfAbsent(
                                r.path("what").asText() + " — " + r.path("unit").asText(),
                                c -> new ArrayList<>())
                        .add(r);
            }
        }
        Files.createDirectories(outDir);
        List<Path> written = new ArrayList<>();
        StringBuilder table =
                new StringBuilder(
                        "| figure | series | vertices | median | baseline | ratio |\n"
                                + "|---|---|---|---|---|---|\n");
        for (Map.Entry<String, List<JsonNode>> chart : rowsByChart.entrySet()) {
            Map<String, TreeMap<Long, Point>> series = series(chart.getValue());
            String unit = chart.getKey().substring(chart.getKey().indexOf('—') + 2);
            XYChart xy =
                    new XYChartBuilder()
                            .width(900)
                            .height(480 + 40 * series.size())
                            .title(chart.getKey())
                            .xAxisTitle("vertices")
                            .yAxisTitle(unit)
                            .build();
            xy.getStyler().setXAxisLogarithmic(true).setYAxisLogarithmic(spansDecades(series));
            xy.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
            Color[] colors = xy.getStyler().getSeriesColors();
            int index = 0;
            for (Map.Entry<String, TreeMap<Long, Point>> s : series.entrySet()) {
                Color color = colors[index++ % colors.length];
                List<Double> x = new ArrayList<>();
                List<Double> y = new ArrayList<>();
                List<Double> baseX = new ArrayList<>();
                List<Double> base = new ArrayList<>();
                for (Map.Entry<Long, Point> point : s.getValue().entrySet()) {
                    Point p = point.getValue();
                    x.add(point.getKey().doubleValue());
                    y.add(p.median);
                    if (p.baseline != null) {
                        baseX.add(point.getKey().doubleValue());
                        base.add(p.baseline);
                    }
                    table.append(
                            String.format(
                                    Locale.ROOT,
                                    "| %s | %s | %,d | %s | %s | %s |%n",
                                    chart.getKey(),
                                    s.getKey(),
                                    point.getKey(),
                                    BenchReport.number(p.median),
                                    p.baseline == null ? "-" : BenchReport.number(p.baseline),
                                    p.baseline == null
                                            ? "-"
                                            : String.format(
                                                    Locale.ROOT, "%.3f", p.median / p.baseline)));
                }
                XYSeries measured = xy.addSeries(s.getKey(), x, y);
                measured.setMarker(SeriesMarkers.CIRCLE);
                measured.setLineColor(color);
                measured.setMarkerColor(color);
                if (!base.isEmpty()) {
                    XYSeries baseline = xy.addSeries("baseline, " + s.getKey(), baseX, base);
                    baseline.setMarker(SeriesMarkers.DIAMOND);
                    baseline.setLineStyle(SeriesLines.DASH_DASH);
                    baseline.setLineColor(color);
                    baseline.setMarkerColor(color);
                }
            }
            Path png = outDir.resolve(chart.getKey().replaceAll("[^A-Za-z0-9]+", "-") + ".png");
            BitmapEncoder.saveBitmap(xy, png.toString(), BitmapEncoder.BitmapFormat.PNG);
            written.add(png);
        }
        Path md = outDir.resolve("scaling.md");
        Files.writeString(md, table.toString());
        written.add(md);
        return written;
    }

    /**
     * Whether the y axis should be logarithmic: only when all values are positive and span more
     * than a factor of 10, since a log axis labels powers of ten only and would show no label at
     * all for, e.g., 250 to 900 MiB.
     */
    private static boolean spansDecades(Map<String, TreeMap<Long, Point>> series) {
        double min = Double.POSITIVE_INFINITY;
        double max = 0;
        for (TreeMap<Long, Point> points : series.values()) {
            for (Point p : points.values()) {
                for (Double v : new Double[] {p.median, p.baseline}) {
                    if (v != null) {
                        min = Math.min(min, v);
                        max = Math.max(max, v);
                    }
                }
            }
        }
        return min > 0 && max / min > 10;
    }

    /**
     * The points of one figure by series label, then by vertices; a later row replaces an earlier
     * one.
     */
    private static Map<String, TreeMap<Long, Point>> series(List<JsonNode> rows) {
        Set<String> varying = varyingParams(rows);
        Map<String, TreeMap<Long, Point>> series = new TreeMap<>();
        for (JsonNode r : rows) {
            JsonNode params = r.path("params");
            StringBuilder label =
                    new StringBuilder(
                            String.format(
                                    Locale.ROOT,
                                    "avg degree %.0f, parallelism %d",
                                    params.path("edges").asDouble()
                                            / params.path("vertices").asDouble(),
                                    params.path("parallelism").asInt(1)));
            for (String key : varying) {
                label.append(", ").append(key).append(' ').append(render(params.get(key)));
            }
            JsonNode baseline = r.path("baseline").path("median");
            series.computeIfAbsent(label.toString(), s -> new TreeMap<>())
                    .put(
                            params.path("vertices").asLong(),
                            new Point(
                                    r.path("median").asDouble(),
                                    baseline.isNumber() ? baseline.asDouble() : null));
        }
        return series;
    }

    /** Keys other than the graph size whose values are not the same in every row. */
    private static Set<String> varyingParams(List<JsonNode> rows) {
        Set<String> keys = new TreeSet<>();
        rows.forEach(r -> r.path("params").fieldNames().forEachRemaining(keys::add));
        keys.removeAll(SIZE_PARAMS);
        Set<String> varying = new TreeSet<>();
        for (String key : keys) {
            Set<String> values = new HashSet<>();
            rows.forEach(r -> values.add(render(r.path("params").get(key))));
            if (values.size() > 1) {
                varying.add(key);
            }
        }
        return varying;
    }

    private static String render(JsonNode value) {
        if (value == null || value.isNull()) {
            return "-";
        }
        if (value.isArray()) {
            List<String> items = new ArrayList<>();
            value.forEach(v -> items.add(v.asText()));
            return String.join(",", items);
        }
        return value.asText();
    }
}

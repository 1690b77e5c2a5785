package io.gnnstream.jobs.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Draws how each benchmark figure grows with graph size from a results JSON list: one PNG per
 * (benchmark, unit), x = vertices (log scale), one series per average degree and parallelism, the
 * same-run baseline as a dashed series, plus a Markdown table of the same points.
 */
public final class ScalingPlot {

    private ScalingPlot() {}

    /** Writes the PNGs and {@code scaling.md} into {@code outDir}; returns the files written. */
    public static List<Path> write(Path resultsJson, Path outDir) throws IOException {
        JsonNode results = new ObjectMapper().readTree(resultsJson.toFile());
        Map<String, Map<String, TreeMap<Long, double[]>>> charts = new TreeMap<>();
        for (JsonNode r : results) {
            JsonNode params = r.path("params");
            if (!params.has("vertices")) {
                continue;
            }
            String chart = r.path("what").asText() + " — " + r.path("unit").asText();
            String series = String.format(Locale.ROOT, "avg degree %.0f, parallelism %d",
                    params.path("edges").asDouble() / params.path("vertices").asDouble(),
                    params.path("parallelism").asInt(1));
            charts.computeIfAbsent(chart, c -> new TreeMap<>())
                    .computeIfAbsent(series, s -> new TreeMap<>())
                    .put(params.path("vertices").asLong(),
                            new double[] {r.path("median").asDouble(), r.path("baseline").path("median").asDouble()});
        }
        Files.createDirectories(outDir);
        List<Path> written = new ArrayList<>();
        StringBuilder table = new StringBuilder("| figure | series | vertices | median | baseline | ratio |\n"
                + "|---|---|---|---|---|---|\n");
        for (Map.Entry<String, Map<String, TreeMap<Long, double[]>>> chart : charts.entrySet()) {
            XYChart xy = new XYChartBuilder().width(900).height(560).title(chart.getKey())
                    .xAxisTitle("vertices").yAxisTitle(chart.getKey().substring(chart.getKey().indexOf('—') + 2))
                    .build();
            xy.getStyler().setXAxisLogarithmic(true).setYAxisLogarithmic(true);
            for (Map.Entry<String, TreeMap<Long, double[]>> series : chart.getValue().entrySet()) {
                List<Double> x = new ArrayList<>();
                List<Double> y = new ArrayList<>();
                List<Double> base = new ArrayList<>();
                for (Map.Entry<Long, double[]> point : series.getValue().entrySet()) {
                    x.add(point.getKey().doubleValue());
                    y.add(point.getValue()[0]);
                    base.add(point.getValue()[1]);
                    table.append(String.format(Locale.ROOT, "| %s | %s | %,d | %,.1f | %,.1f | %.3f |%n",
                            chart.getKey(), series.getKey(), point.getKey(), point.getValue()[0],
                            point.getValue()[1], point.getValue()[0] / point.getValue()[1]));
                }
                xy.addSeries(series.getKey(), x, y).setMarker(SeriesMarkers.CIRCLE);
                xy.addSeries("baseline, " + series.getKey(), x, base).setMarker(SeriesMarkers.DIAMOND);
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
}

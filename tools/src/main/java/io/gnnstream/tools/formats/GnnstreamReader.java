package io.gnnstream.tools.formats;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** The project's own folder: the lines of {@code nodes.jsonl} and {@code edges.csv}, verbatim. */
final class GnnstreamReader implements DatasetReader {

    private final Path nodes;
    private final Path edges;

    GnnstreamReader(Path dir) {
        this.nodes = dir.resolve("nodes.jsonl");
        this.edges = dir.resolve("edges.csv");
    }

    @Override
    public DatasetFormat format() {
        return DatasetFormat.GNNSTREAM;
    }

    @Override
    public String nodesSource() {
        return nodes.toString();
    }

    @Override
    public String edgesSource() {
        return edges.toString();
    }

    @Override
    public void nodes(LineSink sink) throws IOException {
        lines(nodes, sink);
    }

    @Override
    public void edges(LineSink sink) throws IOException {
        lines(edges, sink);
    }

    private static void lines(Path file, LineSink sink) throws IOException {
        try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                sink.line(line);
            }
        }
    }
}

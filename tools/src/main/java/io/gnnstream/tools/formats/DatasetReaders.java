package io.gnnstream.tools.formats;

import io.gnnstream.tools.DatasetException;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Opens a dataset folder with the reader of its format. */
public final class DatasetReaders {

    private DatasetReaders() {}

    /** The reader for {@code dir}; {@link DatasetFormat#AUTO} detects the format. */
    public static DatasetReader open(Path dir, FormatOptions options) throws IOException {
        DatasetFormat.requireFolder(dir);
        DatasetFormat format =
                options.format() == DatasetFormat.AUTO
                        ? DatasetFormat.detect(dir)
                        : options.format();
        if (!format.matches(dir)) {
            throw new DatasetException(
                    "dataset folder "
                            + dir.toAbsolutePath()
                            + " is not in the "
                            + format.wireName()
                            + " format (expected "
                            + format.files()
                            + "); it holds "
                            + DatasetFormat.listing(dir));
        }
        switch (format) {
            case GNNSTREAM:
                return new GnnstreamReader(dir);
            case OGB:
                return new OgbReader(dir, options);
            case PLANETOID:
                return new PlanetoidReader(dir);
            case NPZ:
                return new NpzReader(dir, options);
            case DGL_CSV:
                return new DglCsvReader(dir);
            default:
                throw new IllegalStateException("unhandled format " + format);
        }
    }

    /**
     * {@code dir} in the project's own format: {@code dir} itself when it already is, else {@code
     * target} with {@code nodes.jsonl} and {@code edges.csv} written from the reader, for tools
     * that read the files directly (the partitioner, the benchmarks).
     */
    public static Path materialise(Path dir, FormatOptions options, Path target)
            throws IOException {
        DatasetReader reader = open(dir, options);
        if (reader.format() == DatasetFormat.GNNSTREAM) {
            return dir;
        }
        Files.createDirectories(target);
        write(target.resolve("nodes.jsonl"), reader, true);
        write(target.resolve("edges.csv"), reader, false);
        return target;
    }

    private static void write(Path file, DatasetReader reader, boolean nodes) throws IOException {
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            LineSink sink =
                    line -> {
                        w.write(line);
                        w.write('\n');
                    };
            if (nodes) {
                reader.nodes(sink);
            } else {
                reader.edges(sink);
            }
        }
    }
}

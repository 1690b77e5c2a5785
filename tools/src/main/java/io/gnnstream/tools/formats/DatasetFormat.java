package io.gnnstream.tools.formats;

import io.gnnstream.tools.DatasetException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The dataset layouts the tools read, each recognised by its files: the project's own folder, OGB's
 * raw node-property-prediction layout, Planetoid's pickles, the gnn-benchmark {@code .npz} and a
 * DGL {@code CSVDataset} folder.
 */
public enum DatasetFormat {
    /** Detect the format from the folder's files. */
    AUTO("auto", "detected from the folder's files"),
    /** {@code nodes.jsonl} + {@code edges.csv} ({@code data/cora/README.md}). */
    GNNSTREAM("gnnstream", "nodes.jsonl + edges.csv"),
    /** {@code raw/edge.csv.gz}, {@code raw/node-feat.csv.gz}, … and {@code split/<name>/}. */
    OGB("ogb", "raw/edge.csv.gz + raw/num-node-list.csv.gz (+ split/<name>/)"),
    /** {@code ind.<name>.{x,tx,allx,y,ty,ally,graph,test.index}}. */
    PLANETOID("planetoid", "ind.<name>.{tx,allx,y,ty,ally,graph,test.index}"),
    /** One {@code .npz} file of the gnn-benchmark (Amazon, Coauthor) sets. */
    NPZ("npz", "one .npz file (adj_*, attr_* or attr_matrix, labels)"),
    /** DGL {@code CSVDataset}: {@code meta.yaml}, node and edge CSV files. */
    DGL_CSV("dgl-csv", "meta.yaml + its node and edge CSV files");

    private final String wireName;
    private final String files;

    DatasetFormat(String wireName, String files) {
        this.wireName = wireName;
        this.files = files;
    }

    /** The name on the command line ({@code --format}). */
    public String wireName() {
        return wireName;
    }

    /** The files that identify the format, for messages. */
    public String files() {
        return files;
    }

    /** Reads a {@code --format} value, in any case. */
    public static DatasetFormat parse(String name) {
        String n = name.trim().toLowerCase(Locale.ROOT);
        for (DatasetFormat f : values()) {
            if (f.wireName.equals(n)) {
                return f;
            }
        }
        throw new IllegalArgumentException(
                "unknown dataset format '" + name + "', expected one of " + names());
    }

    /** All wire names, joined with {@code |}. */
    public static String names() {
        return Stream.of(values()).map(DatasetFormat::wireName).collect(Collectors.joining("|"));
    }

    /** Whether {@code dir}'s files are of this format (never true for {@link #AUTO}). */
    public boolean matches(Path dir) throws IOException {
        switch (this) {
            case GNNSTREAM:
                return Files.isRegularFile(dir.resolve("nodes.jsonl"))
                        && Files.isRegularFile(dir.resolve("edges.csv"));
            case OGB:
                return Files.isRegularFile(dir.resolve("raw/edge.csv.gz"))
                        && Files.isRegularFile(dir.resolve("raw/num-node-list.csv.gz"));
            case PLANETOID:
                return !PlanetoidReader.names(dir).isEmpty();
            case NPZ:
                return !NpzReader.files(dir).isEmpty();
            case DGL_CSV:
                return Files.isRegularFile(dir.resolve(DglCsvReader.META));
            default:
                return false;
        }
    }

    /**
     * The format of {@code dir}'s files; an error naming what the folder holds when no format, or
     * more than one, matches.
     */
    public static DatasetFormat detect(Path dir) throws DatasetException {
        requireFolder(dir);
        List<DatasetFormat> found = new ArrayList<>();
        try {
            for (DatasetFormat f : values()) {
                if (f.matches(dir)) {
                    found.add(f);
                }
            }
        } catch (IOException e) {
            throw new DatasetException("cannot list " + dir + ": " + e.getMessage(), e);
        }
        if (found.size() == 1) {
            return found.get(0);
        }
        boolean nodes = Files.isRegularFile(dir.resolve("nodes.jsonl"));
        boolean edges = Files.isRegularFile(dir.resolve("edges.csv"));
        if (found.isEmpty() && nodes != edges) {
            throw new DatasetException(
                    "dataset folder "
                            + dir.toAbsolutePath()
                            + " has no "
                            + (nodes ? "edges.csv" : "nodes.jsonl")
                            + " (expected nodes.jsonl and edges.csv)");
        }
        if (found.isEmpty()) {
            StringBuilder expected = new StringBuilder();
            for (DatasetFormat f : values()) {
                if (f != AUTO) {
                    expected.append("; ").append(f.wireName).append(": ").append(f.files);
                }
            }
            throw new DatasetException(
                    "dataset folder "
                            + dir.toAbsolutePath()
                            + " matches no known format: it holds "
                            + listing(dir)
                            + "; expected"
                            + expected.substring(1));
        }
        throw new DatasetException(
                "dataset folder "
                        + dir.toAbsolutePath()
                        + " matches several formats ("
                        + found.stream()
                                .map(DatasetFormat::wireName)
                                .collect(Collectors.joining(", "))
                        + "); choose one with --format");
    }

    /** A clear error if {@code dir} is not a folder. */
    static void requireFolder(Path dir) throws DatasetException {
        if (!Files.isDirectory(dir)) {
            throw new DatasetException(
                    "dataset folder "
                            + dir.toAbsolutePath()
                            + (Files.exists(dir) ? " is not a folder" : " does not exist"));
        }
    }

    /** Up to 12 names of the folder's entries (folders with a trailing slash). */
    static String listing(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            List<String> names =
                    s.map(p -> p.getFileName() + (Files.isDirectory(p) ? "/" : ""))
                            .sorted()
                            .collect(Collectors.toList());
            if (names.isEmpty()) {
                return "nothing";
            }
            String shown = String.join(", ", names.subList(0, Math.min(12, names.size())));
            return names.size() > 12 ? shown + ", … (" + names.size() + " entries)" : shown;
        } catch (IOException e) {
            return "unreadable entries (" + e.getMessage() + ")";
        }
    }
}

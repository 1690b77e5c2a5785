package io.gnnstream.tools.formats;

import static io.gnnstream.tools.formats.ReadGraph.RESOURCES;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.tools.DatasetException;
import io.gnnstream.tools.DatasetInfo;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;

/** Detection, and clear errors (file and reason) for malformed input of every format. */
class MalformedFormatsTest {

    @Test
    void detectionNamesWhatItFound() throws Exception {
        Path dir = fresh("unknown");
        Files.writeString(dir.resolve("graph.txt"), "1 2\n");
        Files.createDirectories(dir.resolve("raw"));
        String m = error(() -> DatasetInfo.scan(dir));
        assertTrue(m.contains("matches no known format: it holds graph.txt, raw/"), m);
        assertTrue(m.contains("ogb: raw/edge.csv.gz"), m);

        Path two = fresh("two");
        copy(RESOURCES.resolve("cora-npz"), two);
        copy(RESOURCES.resolve("cora-dgl"), two);
        m = error(() -> DatasetInfo.scan(two));
        assertTrue(
                m.contains("matches several formats (npz, dgl-csv); choose one with --format"), m);

        m =
                error(
                        () ->
                                DatasetInfo.scan(
                                        RESOURCES.resolve("cora-npz"),
                                        FormatOptions.of(DatasetFormat.OGB)));
        assertTrue(m.contains("is not in the ogb format (expected raw/edge.csv.gz"), m);
        assertTrue(m.contains("it holds cora.npz"), m);
        assertEquals(DatasetFormat.DGL_CSV, DatasetFormat.parse("DGL-CSV"));
        assertThrows(IllegalArgumentException.class, () -> DatasetFormat.parse("csv"));
    }

    @Test
    void ogbErrorsNameFileAndLine() throws Exception {
        Path dir = ogb("ogb-badfeat", List.of("0,1", "1,2"), List.of("1,0", "0.5,x"), "0\n1\n");
        String m = error(() -> DatasetInfo.scan(dir));
        assertTrue(m.contains("node-feat.csv.gz line 2: expected a number, got 'x'"), m);

        Path shortLabels = ogb("ogb-short", List.of("0,1"), List.of("1,0", "0,1"), "0\n");
        m = error(() -> DatasetInfo.scan(shortLabels));
        assertTrue(m.contains("node-label.csv.gz has 1 rows, raw/num-node-list.csv.gz says 2"), m);

        Path range = ogb("ogb-range", List.of("0,5"), List.of("1,0", "0,1"), "0\nnan\n");
        m = error(() -> DatasetInfo.scan(range));
        assertTrue(m.contains("edge.csv.gz line 1: node 5 out of range [0, 2)"), m);

        Path split = ogb("ogb-split", List.of("0,1"), List.of("1,0", "0,1"), "0\n1\n");
        gz(split.resolve("split/a/train.csv.gz"), "0\n");
        gz(split.resolve("split/a/valid.csv.gz"), "0\n");
        gz(split.resolve("split/a/test.csv.gz"), "1\n");
        m = error(() -> DatasetInfo.scan(split));
        assertTrue(m.contains("valid.csv.gz line 1: node 0 is already in the train split"), m);
        Files.createDirectories(split.resolve("split/b"));
        m = error(() -> DatasetInfo.scan(split));
        assertTrue(m.contains("has several splits (a, b); choose one with --split-name"), m);
        m =
                error(
                        () ->
                                DatasetInfo.scan(
                                        split,
                                        new FormatOptions(
                                                DatasetFormat.AUTO, "c", false, 0, 20, 30)));
        assertTrue(m.contains("has no split/c (--split-name); its splits: a, b"), m);

        Path unlabelled = ogb("ogb-nan", List.of("0,1"), List.of("1,0", "0,1"), "NaN\n\n");
        DatasetInfo info = DatasetInfo.scan(unlabelled);
        assertEquals(0, info.labelledNodes());
    }

    @Test
    void picklesAndNpzErrorsNameTheFile() throws Exception {
        Path dir = fresh("planetoid-bad");
        copy(RESOURCES.resolve("tiny-citeseer-planetoid"), dir);
        byte[] allx = Files.readAllBytes(dir.resolve("ind.citeseer.allx"));
        Files.write(dir.resolve("ind.citeseer.allx"), java.util.Arrays.copyOf(allx, 100));
        String m = error(() -> DatasetInfo.scan(dir));
        assertTrue(m.contains("ind.citeseer.allx: "), m);
        Files.write(dir.resolve("ind.citeseer.allx"), new byte[] {(byte) 0x80, 2, 'P', '.'});
        m = error(() -> DatasetInfo.scan(dir));
        assertTrue(m.contains("ind.citeseer.allx: unsupported pickle opcode 0x50 at offset 2"), m);
        Files.write(dir.resolve("ind.citeseer.allx"), new byte[] {(byte) 0x80, 2, 'N', '.'});
        m = error(() -> DatasetInfo.scan(dir));
        assertTrue(m.contains("expected a numpy array or a scipy csr_matrix, got None"), m);

        Path npz = fresh("npz-bad");
        Files.writeString(npz.resolve("x.npz"), "not a zip");
        m = error(() -> DatasetInfo.scan(npz));
        assertTrue(m.contains("x.npz is not a readable .npz"), m);
        try (ZipOutputStream z = new ZipOutputStream(Files.newOutputStream(npz.resolve("x.npz")))) {
            z.putNextEntry(new ZipEntry("labels.npy"));
            z.write("not npy".getBytes(StandardCharsets.US_ASCII));
        }
        m = error(() -> DatasetInfo.scan(npz));
        assertTrue(m.contains("x.npz has no adj_data/adj_indices/adj_indptr/adj_shape"), m);
        try (ZipOutputStream z = new ZipOutputStream(Files.newOutputStream(npz.resolve("x.npz")))) {
            z.putNextEntry(new ZipEntry("adj_data.npy"));
            z.write("\u0093NUMPY garbage".getBytes(StandardCharsets.ISO_8859_1));
            z.putNextEntry(new ZipEntry("adj_indices.npy"));
        }
        m = error(() -> DatasetInfo.scan(npz));
        assertTrue(m.contains("x.npz adj_data: unsupported .npy version 32"), m);
    }

    @Test
    void dglCsvErrorsNameFileAndLine() throws Exception {
        Path dir = fresh("dgl-bad");
        Files.writeString(
                dir.resolve("meta.yaml"),
                "dataset_name: t\n"
                        + "node_data:\n"
                        + "- file_name: n.csv\n"
                        + "edge_data:\n"
                        + "- file_name: e.csv\n");
        Files.writeString(dir.resolve("e.csv"), "src_id,dst_id\n0,1\n1,0\n");
        Files.writeString(
                dir.resolve("n.csv"),
                "node_id,label,train_mask,feat\n0,1,True,\"1,0\"\n1,0,yes,\"0,1\"\n");
        String m = error(() -> DatasetInfo.scan(dir));
        assertTrue(m.contains("n.csv line 3: train_mask must be True/False or 1/0, got 'yes'"), m);
        Files.writeString(dir.resolve("n.csv"), "node_id,label\n0,1\n");
        m = error(() -> DatasetInfo.scan(dir));
        assertTrue(m.contains("n.csv line 1: no 'feat' column"), m);
        Files.writeString(dir.resolve("n.csv"), "node_id,feat\n0,\"1,0\n");
        m = error(() -> DatasetInfo.scan(dir));
        assertTrue(m.contains("n.csv line 2: unclosed quoted field"), m);
        Files.writeString(dir.resolve("n.csv"), "node_id,feat\n0,\"1,0\"\n1,\"0,1\"\n");
        assertEquals(2, DatasetInfo.scan(dir).nodes());
        Files.writeString(
                dir.resolve("meta.yaml"),
                "node_data:\n"
                        + "- file_name: n.csv\n"
                        + "- file_name: m.csv\n"
                        + "edge_data:\n"
                        + "- file_name: e.csv\n");
        m = error(() -> DatasetInfo.scan(dir));
        assertTrue(m.contains("node_data must list exactly one file"), m);
    }

    private static Path ogb(String name, List<String> edges, List<String> feats, String labels)
            throws IOException {
        Path dir = fresh(name);
        gz(dir.resolve("raw/edge.csv.gz"), String.join("\n", edges) + "\n");
        gz(dir.resolve("raw/node-feat.csv.gz"), String.join("\n", feats) + "\n");
        gz(dir.resolve("raw/node-label.csv.gz"), labels);
        gz(dir.resolve("raw/num-node-list.csv.gz"), feats.size() + "\n");
        return dir;
    }

    private static void gz(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(file))) {
            out.write(text.getBytes(StandardCharsets.UTF_8));
        }
    }

    private interface Action {
        void run() throws Exception;
    }

    private static String error(Action action) {
        return assertThrows(DatasetException.class, action::run).getMessage();
    }

    private static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.list(from)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.copy(f, to.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    private static Path fresh(String name) throws IOException {
        Path dir = Path.of("target", "test-work", "formats", name).toAbsolutePath();
        if (Files.exists(dir)) {
            try (Stream<Path> paths = Files.walk(dir)) {
                for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                    Files.delete(p);
                }
            }
        }
        return Files.createDirectories(dir);
    }
}

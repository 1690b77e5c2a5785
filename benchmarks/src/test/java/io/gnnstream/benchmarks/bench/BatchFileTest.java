package io.gnnstream.benchmarks.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.operators.messages.MiniBatch;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BatchFileTest {

    @Test
    void roundTripKeepsBlocksLabelsAndFeatures(@TempDir Path dir) throws IOException {
        MiniBatch b = FullExpansionBatch.build(6, new int[] {3, 2}, 5, 4, 11);
        Path file = dir.resolve("batch.bin");
        BatchFile.write(b, 4, file);

        // The layout torch_sage.py reads: L, F, C, then the node counts.
        ByteBuffer head = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(2, head.getInt());
        assertEquals(5, head.getInt());
        assertEquals(4, head.getInt());
        long expected =
                4L * (3 + 3 + 2 + (6 + 1) + (24 + 1) + b.numEdges(1) + b.numEdges(2) + 6)
                        + 4L * 60 * 5;
        assertEquals(expected, Files.size(file));

        BatchFile.Contents back = BatchFile.read(file);
        assertEquals(4, back.classes());
        assertSameBatch(b, back.batch());
    }

    @Test
    void hopsWhoseOffsetsDoNotStartAtZeroAreWrittenFromZero(@TempDir Path dir) throws IOException {
        MiniBatch b = new MiniBatch();
        b.numLayers = 1;
        b.nodeCounts = new int[] {2, 4};
        // Destination 0 has sources 2, 3; destination 1 has source 1; two unused leading entries.
        b.setBlocks(new int[][] {{2, 4, 5}}, new int[][] {{9, 9, 2, 3, 1}});
        b.featureDim = 2;
        b.features = new float[] {1, 2, 3, 4, 5, 6, 7, 8, 99, 99};
        b.labels = new int[] {1, MiniBatch.NO_LABEL};
        Path file = dir.resolve("b.bin");
        BatchFile.write(b, 3, file);
        MiniBatch back = BatchFile.read(file).batch();
        assertArrayEquals(new int[] {0, 2, 3}, back.indptr);
        assertArrayEquals(new int[] {2, 3, 1}, back.indices);
        assertArrayEquals(new float[] {1, 2, 3, 4, 5, 6, 7, 8}, back.features);
        assertArrayEquals(new int[] {1, MiniBatch.NO_LABEL}, back.labels);
        assertEquals(MiniBatch.Kind.TRAIN, back.kind);
    }

    @Test
    void shortLongAndInconsistentFilesAreRefused(@TempDir Path dir) throws IOException {
        MiniBatch b = FullExpansionBatch.build(4, new int[] {2}, 3, 2, 5);
        Path file = dir.resolve("batch.bin");
        BatchFile.write(b, 2, file);
        byte[] good = Files.readAllBytes(file);

        Files.write(file, Arrays.copyOf(good, good.length - 2));
        assertMessage(file, "truncated");
        Files.write(file, Arrays.copyOf(good, good.length + 4));
        assertMessage(file, "longer than its header says");

        byte[] bad = good.clone();
        // The first source index of hop 1: after L, F, C (3), counts (2), nnz (1), indptr (5).
        ByteBuffer.wrap(bad).order(ByteOrder.LITTLE_ENDIAN).putInt(4 * 11, 1000);
        Files.write(file, bad);
        assertMessage(file, "source 1000 outside [0, 12)");

        bad = good.clone();
        ByteBuffer.wrap(bad).order(ByteOrder.LITTLE_ENDIAN).putInt(8, 1);
        Files.write(file, bad);
        assertMessage(file, "not a batch file");
    }

    private static void assertMessage(Path file, String part) {
        IOException e = assertThrows(IOException.class, () -> BatchFile.read(file));
        assertTrue(e.getMessage().contains(part), e.getMessage());
    }

    static void assertSameBatch(MiniBatch want, MiniBatch got) {
        assertEquals(want.numLayers, got.numLayers);
        assertArrayEquals(want.nodeCounts, got.nodeCounts);
        assertEquals(want.featureDim, got.featureDim);
        for (int h = 1; h <= want.numLayers; h++) {
            assertEquals(want.numEdges(h), got.numEdges(h), "edges of hop " + h);
            for (int i = 0; i < want.numDst(h); i++) {
                assertArrayEquals(
                        Arrays.copyOfRange(want.indices, want.edgeStart(h, i), want.edgeEnd(h, i)),
                        Arrays.copyOfRange(got.indices, got.edgeStart(h, i), got.edgeEnd(h, i)),
                        "sources of " + i + " in hop " + h);
            }
        }
        assertArrayEquals(Arrays.copyOf(want.labels, want.numSeeds()), got.labels);
        assertArrayEquals(
                Arrays.copyOf(want.features, want.numNodes() * want.featureDim), got.features);
    }
}

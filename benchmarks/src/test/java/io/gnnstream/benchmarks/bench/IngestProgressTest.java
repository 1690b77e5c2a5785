package io.gnnstream.benchmarks.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IngestProgressTest {

    @Test
    void eventsOfOnePublicationAreOneSampleOfTheSubtasksCount() {
        try (IngestProgress p = IngestProgress.register("test-burst", 1, 100, 60_000)) {
            p.stats(0, 0, 10);
            p.stats(0, 1, 5);
            p.stats(0, 0, 30);
            p.inputEnded();
            List<SteadyRate.Sample> s = p.samples();
            assertEquals(
                    List.of(35L, 100L),
                    counts(s),
                    "one publication (within half an interval), then the end");
        }
    }

    @Test
    void publicationsFurtherApartAreSeparateSamples() {
        try (IngestProgress p = IngestProgress.register("test-apart", 1, 100, 0)) {
            p.stats(0, 0, 10);
            p.stats(0, 1, 5);
            p.inputEnded();
            assertEquals(List.of(10L, 15L, 100L), counts(p.samples()));
        }
    }

    @Test
    void theEndIsKnownOnlyWhenEverySubtaskEnded() {
        try (IngestProgress p = IngestProgress.register("test-end", 2, 100, 200)) {
            p.stats(0, 0, 40);
            p.inputEnded();
            IllegalStateException e = assertThrows(IllegalStateException.class, p::samples);
            assertTrue(e.getMessage().contains("1 of 2 subtasks"), e.getMessage());
            p.inputEnded();
            List<SteadyRate.Sample> s = p.samples();
            assertEquals(100L, s.get(s.size() - 1).count());
        }
    }

    @Test
    void runIdsAreUniqueUntilClosed() {
        IngestProgress first = IngestProgress.register("test-id", 1, 1, 200);
        assertThrows(
                IllegalStateException.class, () -> IngestProgress.register("test-id", 1, 1, 200));
        first.close();
        IngestProgress.register("test-id", 1, 1, 200).close();
    }

    @Test
    void checkpointBytesCountEveryFileButTheMetadata(@TempDir Path dir) throws Exception {
        write(dir.resolve("chk-1").resolve("_metadata"), 1000);
        write(dir.resolve("chk-1").resolve("manifest"), 20);
        write(dir.resolve("shared").resolve("sst-a"), 300);
        write(dir.resolve("shared").resolve("sst-b"), 4000);
        Files.createDirectories(dir.resolve("taskowned"));
        assertEquals(4320, IngestProgress.checkpointBytes(dir));
    }

    @Test
    void onlyACheckpointAfterAllInputIsMeasured(@TempDir Path dir) throws Exception {
        write(dir.resolve("chk-1").resolve("_metadata"), 10);
        write(dir.resolve("shared").resolve("sst"), 700);
        try (IngestProgress p = IngestProgress.register("test-checkpoint", 2, 100, 200)) {
            p.inputEnded();
            p.checkpointCompleted(dir);
            assertThrows(
                    IllegalStateException.class, p::checkpointBytes, "one subtask still reads");
            p.inputEnded();
            p.checkpointCompleted(dir);
            write(dir.resolve("shared").resolve("later"), 50);
            p.checkpointCompleted(dir);
            assertEquals(700, p.checkpointBytes(), "the first checkpoint after all input counts");
        }
    }

    @Test
    void checkpointBytesNeedTheFinalCheckpointAlone(@TempDir Path dir) throws Exception {
        Files.createDirectories(dir.resolve("shared"));
        assertThrows(
                IllegalStateException.class,
                () -> IngestProgress.checkpointBytes(dir),
                "no checkpoint");
        write(dir.resolve("chk-1").resolve("_metadata"), 10);
        write(dir.resolve("chk-2").resolve("_metadata"), 10);
        assertThrows(
                IllegalStateException.class,
                () -> IngestProgress.checkpointBytes(dir),
                "two checkpoints");
    }

    private static void write(Path file, int bytes) throws Exception {
        Files.createDirectories(file.getParent());
        Files.write(file, new byte[bytes]);
    }

    private static List<Long> counts(List<SteadyRate.Sample> samples) {
        return samples.stream().map(SteadyRate.Sample::count).toList();
    }
}

package io.gnnstream.operators.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The protocol's roles import nothing of Flink (so they run in the simulator as they are). */
class FlinkFreeTest {

    @Test
    void noClassOfThePackageImportsFlink() throws IOException {
        Path dir = Path.of("src/main/java/io/gnnstream/operators/schedule");
        assertTrue(Files.isDirectory(dir), dir.toAbsolutePath().toString());
        List<String> offenders;
        try (Stream<Path> files = Files.list(dir)) {
            offenders =
                    files.filter(f -> f.toString().endsWith(".java"))
                            .filter(FlinkFreeTest::importsFlink)
                            .map(f -> f.getFileName().toString())
                            .toList();
        }
        assertEquals(List.of(), offenders);
    }

    private static boolean importsFlink(Path file) {
        try {
            return Files.readAllLines(file).stream()
                    .anyMatch(l -> l.startsWith("import org.apache.flink."));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}

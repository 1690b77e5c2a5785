package io.gnnstream.tools;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Fresh directories under {@code target/} (not {@code @TempDir}: brokers keep files open until they
 * exit).
 */
final class TestDirs {

    private TestDirs() {}

    static Path fresh(String name) throws IOException {
        Path dir = Path.of("target", "test-work", name).toAbsolutePath();
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

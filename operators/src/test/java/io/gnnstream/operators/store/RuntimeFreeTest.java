package io.gnnstream.operators.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The GraphStore core uses Flink's state interfaces only: no class of the package imports Flink's
 * runtime, streaming API or metrics, so it runs on any {@code KeyedStateStore}.
 */
class RuntimeFreeTest {

    private static final List<String> FORBIDDEN =
            List.of(
                    "import org.apache.flink.runtime.",
                    "import org.apache.flink.streaming.",
                    "import org.apache.flink.metrics.",
                    "import org.apache.flink.api.common.functions.");

    @Test
    void noClassOfThePackageImportsFlinksRuntime() throws IOException {
        Path dir = Path.of("src/main/java/io/gnnstream/operators/store");
        assertTrue(Files.isDirectory(dir), dir.toAbsolutePath().toString());
        List<String> offenders;
        try (Stream<Path> files = Files.list(dir)) {
            offenders =
                    files.filter(f -> f.toString().endsWith(".java"))
                            .filter(RuntimeFreeTest::importsRuntime)
                            .map(f -> f.getFileName().toString())
                            .toList();
        }
        assertEquals(List.of(), offenders);
    }

    private static boolean importsRuntime(Path file) {
        try {
            return Files.readAllLines(file).stream()
                    .anyMatch(l -> FORBIDDEN.stream().anyMatch(l::startsWith));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}

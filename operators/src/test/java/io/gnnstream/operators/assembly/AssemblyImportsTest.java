package io.gnnstream.operators.assembly;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The assembler role imports nothing of Flink but the keyed state interfaces (so tests and a
 * simulator drive it as it is, without a runtime, timers, metrics or records).
 */
class AssemblyImportsTest {

    private static final String FLINK = "import org.apache.flink.";
    private static final String STATE = "import org.apache.flink.api.common.state.";

    @Test
    void noClassOfThePackageImportsFlinksRuntime() throws IOException {
        Path dir = Path.of("src/main/java/io/gnnstream/operators/assembly");
        assertTrue(Files.isDirectory(dir), dir.toAbsolutePath().toString());
        List<String> offenders;
        try (Stream<Path> files = Files.list(dir)) {
            offenders =
                    files.filter(f -> f.toString().endsWith(".java"))
                            .filter(AssemblyImportsTest::importsFlinkBeyondState)
                            .map(f -> f.getFileName().toString())
                            .toList();
        }
        assertEquals(List.of(), offenders);
    }

    private static boolean importsFlinkBeyondState(Path file) {
        try {
            return Files.readAllLines(file).stream()
                    .anyMatch(l -> l.startsWith(FLINK) && !l.startsWith(STATE));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}

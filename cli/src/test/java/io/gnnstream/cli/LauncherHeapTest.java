package io.gnnstream.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The heap {@code bin/gnnstream} gives a command: half the machine's memory, 1 to 6 GB, for the
 * commands that run the job; 512 MB for help and cluster commands ({@code
 * GNNSTREAM_PRINT_JAVA_OPTS} prints the options without building or running anything).
 */
class LauncherHeapTest {

    private static final Path LAUNCHER = Path.of("..", "bin", "gnnstream").toAbsolutePath();

    @Test
    void aFourGigabyteMachineGivesTheDemoTwoGigabytes() throws Exception {
        assertTrue(
                options(Map.of("GNNSTREAM_MEMORY", "4g"), "demo", "--dataset", "data/cora")
                        .startsWith("-Xms2048m -Xmx2048m -Xmn341m -XX:+UseParallelGC"));
    }

    @Test
    void theHeapIsHalfTheMachineBetweenOneAndSixGigabytes() throws Exception {
        assertTrue(options(Map.of("GNNSTREAM_MEMORY", "8g"), "train").startsWith("-Xms4096m "));
        assertTrue(
                options(Map.of("GNNSTREAM_MEMORY", "64g"), "bench", "round")
                        .startsWith("-Xms6144m -Xmx6144m -Xmn1024m "));
        assertTrue(options(Map.of("GNNSTREAM_MEMORY", "1g"), "load").startsWith("-Xms1024m "));
        assertTrue(
                options(Map.of("GNNSTREAM_MEMORY", "4g", "GNNSTREAM_HEAP", "12g"), "demo")
                        .startsWith("-Xms12288m -Xmx12288m -Xmn2048m "));
    }

    @Test
    void helpAndClusterCommandsGetASmallHeap() throws Exception {
        for (String[] command :
                List.of(
                        new String[0],
                        new String[] {"--help"},
                        new String[] {"demo", "--help"},
                        new String[] {"cluster", "start"},
                        new String[] {"submit", "--follow"},
                        new String[] {"stop", "--job", "x"})) {
            assertEquals(
                    "-Xmx512m -XX:+UseParallelGC",
                    options(Map.of("GNNSTREAM_MEMORY", "64g"), command),
                    String.join(" ", command));
        }
    }

    @Test
    void javaOptionsReplaceTheSizing() throws Exception {
        assertEquals("-Xmx3g", options(Map.of("GNNSTREAM_JAVA_OPTS", "-Xmx3g"), "demo"));
    }

    private static String options(Map<String, String> env, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("bash", LAUNCHER.toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("GNNSTREAM_PRINT_JAVA_OPTS", "1");
        builder.environment().remove("GNNSTREAM_JAVA_OPTS");
        builder.environment().remove("GNNSTREAM_HEAP");
        builder.environment().putAll(env);
        Process p = builder.start();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertEquals(0, p.exitValue(), out);
        return out;
    }
}

package io.gnnstream.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A failure that repeats at every restore ends the job soon: {@code demo} (a forked JVM, as {@code
 * bin/gnnstream} runs it, with its real broker child process), under the default restart strategy
 * (20 restarts), cancels the job at the third failure in a row with the same cause, exits 1 with
 * the cause in one line within 2 minutes of its start, and leaves no process behind.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class RepeatingFailureITCase {

    private static final Path CORA = Path.of("..", "data", "cora").toAbsolutePath();

    @Test
    void aFailureAtEveryAttemptEndsDemoWithItsCause(@TempDir Path dir) throws Exception {
        Path work = dir.resolve("work-repeating");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(
                ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                        .filter(a -> a.startsWith("-D") || a.startsWith("--add-opens"))
                        .collect(Collectors.toList()));
        command.addAll(
                List.of(
                        "-Xmx2g",
                        "-cp",
                        System.getProperty("java.class.path"),
                        GnnstreamCli.class.getName(),
                        "demo",
                        "--dataset",
                        CORA.toString(),
                        "--work-dir",
                        work.toString(),
                        "--max-steps",
                        "200",
                        "--inject-fault",
                        "trainer:0:3:always"));
        Path out = dir.resolve("demo.out");
        Process demo =
                new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(out.toFile())
                        .start();
        long started = System.nanoTime();
        try {
            assertTrue(demo.waitFor(5, TimeUnit.MINUTES), "demo did not end: " + tail(out));
            long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
            System.out.println("RepeatingFailureITCase: demo exited after " + seconds + " s");
            assertTrue(seconds < 120, "demo took " + seconds + " s:\n" + tail(out));
            String output = Files.readString(out, StandardCharsets.UTF_8);
            assertEquals(1, demo.exitValue(), "exit code; output:\n" + tail(out));
            List<String> errors =
                    output.lines()
                            .filter(l -> l.startsWith("error: "))
                            .collect(Collectors.toList());
            assertEquals(1, errors.size(), "one error line:\n" + tail(out));
            assertTrue(
                    errors.get(0)
                            .matches(
                                    "error: training job FAILED 3 times in a row with the same"
                                            + " cause \\(cancelled\\): InjectedFailure: trainer"
                                            + " subtask 0 fails at event 3 \\(injected at every"
                                            + " attempt\\)"),
                    errors.get(0));
            List<String> left =
                    ProcessHandle.allProcesses()
                            .filter(
                                    p ->
                                            p.info()
                                                    .commandLine()
                                                    .map(c -> c.contains(work.toString()))
                                                    .orElse(false))
                            .map(p -> p.pid() + " " + p.info().commandLine().orElse(""))
                            .collect(Collectors.toList());
            assertEquals(List.of(), left, "processes left behind");
        } finally {
            demo.descendants().forEach(ProcessHandle::destroyForcibly);
            demo.destroyForcibly();
        }
    }

    private static String tail(Path file) throws Exception {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }
}

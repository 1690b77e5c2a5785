package io.gnnstream.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gnnstream.benchmarks.bench.BenchContext;
import io.gnnstream.benchmarks.bench.Benchmark;
import io.gnnstream.benchmarks.bench.Benchmarks;
import io.gnnstream.jobs.SamplingOptions;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The {@code bench} command line, and one small real {@code train} run end to end. */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class BenchCommandTest {

    private record Run(int exit, String out, String err) {}

    private static Run run(String... args) {
        CommandLine cli = BenchMain.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int exit = cli.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    private static BenchContext context(String... args) {
        CommandLine.ParseResult parsed = BenchMain.commandLine().parseArgs(args).subcommand();
        return ((BenchCommand) parsed.commandSpec().userObject()).context();
    }

    /** The usage that {@code bin/gnnstream} prints lists the benchmark commands with the others. */
    @Test
    void usageListsTheBenchmarkCommands() {
        Run r = run("--help");
        assertEquals(0, r.exit());
        for (String command : List.of("demo", "train", "predict", "bench", "plot")) {
            assertTrue(r.out().contains("  " + command + " "), r.out());
        }
    }

    @Test
    void helpListsTheBenchmarks() {
        Run r = run("bench", "--help");
        assertEquals(0, r.exit());
        assertTrue(r.out().contains("Benchmarks:"), r.out());
        for (Benchmark b : Benchmarks.ALL) {
            assertTrue(r.out().contains("  " + b.name() + " "), r.out());
        }
        assertTrue(
                r.out().replaceAll("\\s+", " ").contains("Benchmark to run: " + Benchmarks.names()),
                r.out());
    }

    @Test
    void unknownBenchmarkIsAClearUsageError() {
        Run r = run("bench", "nope");
        assertEquals(CommandLine.ExitCode.USAGE, r.exit());
        assertTrue(
                r.err().contains("unknown benchmark 'nope'; available: " + Benchmarks.names()),
                r.err());
        assertThrows(IllegalArgumentException.class, () -> Benchmarks.require("nope"));
    }

    @Test
    void badOptionsAreUsageErrors() {
        assertEquals(
                CommandLine.ExitCode.USAGE,
                run("bench", "train", "--dataset", "d", "--synthetic", "1,2,3,4").exit());
        Run r = run("bench", "train", "--synthetic", "1,2,3");
        assertEquals(CommandLine.ExitCode.USAGE, r.exit());
        assertTrue(r.err().contains("N,D,F,C"), r.err());
        assertEquals(CommandLine.ExitCode.USAGE, run("bench", "train", "--repeat", "0").exit());
        assertEquals(CommandLine.ExitCode.USAGE, run("bench", "train", "--threads", "0").exit());
    }

    @Test
    void badFanoutsAndPrefetchAreClearUsageErrors() {
        for (String bad : List.of("0", "10,-2", "25,0,5")) {
            Run r = run("bench", "sample", "--fanouts", bad);
            assertEquals(CommandLine.ExitCode.USAGE, r.exit(), bad);
            assertTrue(
                    r.err()
                            .contains(
                                    "--fanouts entries must be >= 1 or -1 (all neighbours), got "
                                            + bad),
                    r.err());
        }
        for (String bad : List.of("a", "10,,5", "10;5")) {
            Run r = run("bench", "sample", "--fanouts", bad);
            assertEquals(CommandLine.ExitCode.USAGE, r.exit(), bad);
            assertTrue(r.err().contains("--fanouts"), r.err());
        }
        Run r = run("bench", "pipeline", "--prefetch", "0");
        assertEquals(CommandLine.ExitCode.USAGE, r.exit());
        assertTrue(r.err().contains("--prefetch must be >= 1, got 0"), r.err());
    }

    @Test
    void fanoutsAndPrefetchParseAndDefaultToTheJobOptions() {
        CommandLine.ParseResult given =
                BenchMain.commandLine()
                        .parseArgs("bench", "sample", "--fanouts", "15,10,5", "--prefetch", "8")
                        .subcommand();
        assertEquals(List.of(15, 10, 5), given.matchedOptionValue("--fanouts", null));
        assertEquals(8, (int) given.matchedOptionValue("--prefetch", null));
        CommandLine.ParseResult all =
                BenchMain.commandLine()
                        .parseArgs("bench", "sample", "--fanouts", "-1,10")
                        .subcommand();
        assertEquals(List.of(-1, 10), all.matchedOptionValue("--fanouts", null));
        CommandLine.ParseResult none =
                BenchMain.commandLine().parseArgs("bench", "sample").subcommand();
        assertEquals(List.of(10, 10), none.commandSpec().findOption("--fanouts").getValue());
        assertEquals(
                SamplingOptions.PREFETCH.defaultValue(),
                none.commandSpec().findOption("--prefetch").getValue());
    }

    @Test
    void trainersAndHiddenParseAsListsForAllreduce() {
        Run help = run("bench", "--help");
        assertTrue(help.out().contains("  allreduce "), help.out());
        assertTrue(help.out().contains("--trainers"), help.out());
        assertTrue(help.out().contains("--hidden"), help.out());
        BenchContext given =
                context("bench", "allreduce", "--trainers", "1,2", "--hidden", "64,256,1024");
        assertEquals(List.of(1, 2), given.trainers());
        assertEquals(List.of(64, 256, 1024), given.hidden());
        // the job flags of the same names default to 1 trainer and hidden 256; the benchmark's
        // cases apply
        BenchContext none = context("bench", "allreduce");
        assertNull(none.trainers());
        assertNull(none.hidden());
        assertEquals(List.of(10, 10), none.fanouts());
        Run zero = run("bench", "allreduce", "--trainers", "1,0");
        assertEquals(CommandLine.ExitCode.USAGE, zero.exit());
        assertTrue(zero.err().contains("--trainers must be >= 1, got 0"), zero.err());
        Run empty = run("bench", "allreduce", "--hidden", "64,,256");
        assertEquals(CommandLine.ExitCode.USAGE, empty.exit());
        assertTrue(empty.err().contains("--hidden"), empty.err());
        Run threads = run("bench", "allreduce", "--threads", "1,2");
        assertEquals(CommandLine.ExitCode.USAGE, threads.exit());
        assertTrue(threads.err().contains("allreduce takes one --threads value"), threads.err());
    }

    @Test
    void smallTrainRunWritesOneResultPerCase(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("train.json");
        Run r =
                run(
                        "bench",
                        "train",
                        "--features",
                        "8",
                        "--threads",
                        "1,2",
                        "--steps",
                        "2",
                        "--warmup",
                        "1",
                        "--json",
                        json.toString());
        assertEquals(0, r.exit(), r.err());
        JsonNode list = new ObjectMapper().readTree(json.toFile());
        assertEquals(2, list.size());
        for (int i = 0; i < 2; i++) {
            JsonNode o = list.get(i);
            assertEquals("train", o.get("what").asText());
            assertEquals("seeds/s", o.get("unit").asText());
            assertEquals(8, o.get("params").get("features").asInt());
            assertEquals(i + 1, o.get("params").get("threads").asInt());
            assertEquals(
                    List.of(1024, 26624, 282624),
                    new ObjectMapper().convertValue(o.get("params").get("nodes"), List.class));
            assertTrue(o.get("median").asDouble() > 0);
            assertTrue(o.get("min").asDouble() <= o.get("median").asDouble());
            assertTrue(o.get("max").asDouble() >= o.get("median").asDouble());
            // PyTorch on the same batch where a Python with torch is installed, else none.
            JsonNode base = o.get("baseline");
            if (!base.isNull()) {
                assertTrue(base.get("name").asText().startsWith("pytorch-"), base.toString());
                assertTrue(base.get("same_run").asBoolean(), base.toString());
                assertTrue(base.get("median").asDouble() > 0, base.toString());
                assertEquals(
                        o.get("median").asDouble() / base.get("median").asDouble(),
                        o.get("ratio").asDouble(),
                        1e-9);
            }
        }
    }
}

package io.gnnstream.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gnnstream.tools.DatasetInfo;
import io.gnnstream.tools.SyntheticGraphOptions;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class GenerateCommandTest {

    @TempDir Path tmp;

    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine cli = GnnstreamCli.commandLine();
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args);
    }

    @Test
    void writesADatasetTheLoaderAccepts() throws Exception {
        Path out = tmp.resolve("gen");
        assertEquals(
                0,
                run(
                        "generate",
                        "--vertices",
                        "300",
                        "--avg-degree",
                        "4",
                        "--features",
                        "3",
                        "--classes",
                        "3",
                        "--seed",
                        "5",
                        "--out",
                        out.toString()),
                err.toString());
        DatasetInfo info = DatasetInfo.scan(out);
        assertEquals(300, info.nodes());
        assertEquals(3, info.featureDim());
        assertEquals(3, info.numClasses());
        assertTrue(Files.readString(out.resolve("README.md")).contains("--seed 5 "));
    }

    @Test
    void badArgumentsPrintAnErrorWithoutStackTrace() {
        Path out = tmp.resolve("bad");
        assertEquals(
                CommandLine.ExitCode.USAGE,
                run(
                        "generate",
                        "--vertices",
                        "300",
                        "--avg-degree",
                        "4",
                        "--features",
                        "3",
                        "--classes",
                        "3",
                        "--homophily",
                        "1.5",
                        "--out",
                        out.toString()));
        assertTrue(err.toString().startsWith("error: homophily must be in [0, 1]"), err.toString());
        assertTrue(!err.toString().contains("\tat "), err.toString());
        assertTrue(!Files.exists(out.resolve(DatasetInfo.NODES_FILE)));
    }

    @Test
    void missingRequiredOptionIsAUsageError() {
        assertEquals(
                CommandLine.ExitCode.USAGE,
                run("generate", "--vertices", "300", "--out", tmp.toString()));
        assertTrue(err.toString().contains("Missing required options"), err.toString());
    }

    @Test
    void defaultsAreTheLibraryDefaultsNotTrainingDefaults() {
        CommandLine cli = GnnstreamCli.commandLine();
        cli.parseArgs(
                "generate",
                "--vertices",
                "10",
                "--avg-degree",
                "2",
                "--features",
                "1",
                "--classes",
                "2",
                "--out",
                "x");
        GenerateCommand command = cli.getSubcommands().get("generate").getCommand();
        assertEquals(SyntheticGraphOptions.DEFAULT_SEED, command.seed);
        assertEquals(SyntheticGraphOptions.DEFAULT_HOMOPHILY, command.homophily);
        assertEquals(SyntheticGraphOptions.DEFAULT_DEGREE_EXPONENT, command.degreeExponent);
        assertEquals(SyntheticGraphOptions.DEFAULT_TEST_FRACTION, command.testFraction);
    }

    @Test
    void annotatedDefaultsWinOverTrainingDefaultsOfTheSameFlag() {
        CommandLine cli = new CommandLine(new SeedProbe());
        cli.setDefaultValueProvider(new OptionDefaults());
        cli.parseArgs();
        assertEquals(7L, ((SeedProbe) cli.getCommand()).seed);
    }

    @CommandLine.Command(name = "probe")
    static final class SeedProbe {
        @CommandLine.Option(names = "--seed", defaultValue = "7")
        long seed;
    }
}

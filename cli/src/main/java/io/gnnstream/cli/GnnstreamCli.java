package io.gnnstream.cli;

import io.gnnstream.connectors.BrokerException;
import io.gnnstream.tools.DatasetException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Entry point of {@code bin/gnnstream} for every command but {@code bench} and {@code plot}, which
 * the benchmarks module's {@code BenchMain} adds to this command line.
 */
@Command(
        name = "gnnstream",
        mixinStandardHelpOptions = true,
        version = "gnnstream 0.1.0",
        description = "Continuous graph neural network training on Apache Flink.",
        subcommands = {
            DemoCommand.class,
            TrainCommand.class,
            LoadCommand.class,
            KafkaCommand.class,
            GenerateCommand.class,
            PredictCommand.class,
            ClusterCommand.class,
            SubmitCommand.class,
            StopCommand.class,
            ResumeCommand.class,
            PartitionCommand.class
        })
public final class GnnstreamCli implements Runnable {

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /**
     * The configured command line, with {@code more} commands besides its own (the benchmarks' main
     * adds {@code bench} and {@code plot}); errors in user input print a message and usage, never a
     * stack trace.
     */
    public static CommandLine commandLine(Object... more) {
        CommandLine cli = new CommandLine(new GnnstreamCli());
        for (Object command : more) {
            // A CommandLine of its own applies the command's model transformer, as picocli does
            // for the annotated subcommands.
            cli.addSubcommand(new CommandLine(command));
        }
        cli.setDefaultValueProvider(new OptionDefaults());
        cli.setExecutionExceptionHandler(
                (e, commandLine, parseResult) -> {
                    if (e instanceof IllegalArgumentException || e instanceof DatasetException) {
                        commandLine.getErr().println("error: " + e.getMessage());
                        return CommandLine.ExitCode.USAGE;
                    }
                    if (e instanceof BrokerException
                            || e instanceof io.gnnstream.cluster.ClusterException
                            || e instanceof io.gnnstream.jobs.TrainingRunner.JobFailedException) {
                        commandLine.getErr().println("error: " + e.getMessage());
                        return CommandLine.ExitCode.SOFTWARE;
                    }
                    commandLine.getErr().println("error: " + e);
                    e.printStackTrace(commandLine.getErr());
                    return CommandLine.ExitCode.SOFTWARE;
                });
        return cli;
    }
}

package io.gnnstream.cli;

import io.gnnstream.tools.LocalKafkaBroker;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** Runs the local development broker in the foreground until Ctrl-C. */
@Command(
        name = "kafka",
        mixinStandardHelpOptions = true,
        description =
                "Run a single-node Kafka broker (KRaft) on this host's --bind address in the"
                        + " foreground until Ctrl-C or SIGTERM.")
final class KafkaCommand implements Callable<Integer> {

    @Option(
            names = "--port",
            defaultValue = "9092",
            description = "Listener port, 0 = any free port (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(
            names = "--bind",
            defaultValue = "127.0.0.1",
            paramLabel = "ADDRESS",
            description =
                    "Address the broker binds to and advertises to clients (default:"
                            + " ${DEFAULT-VALUE}).")
    String bind;

    @Option(
            names = "--dir",
            defaultValue = "work/kafka",
            description = "Data and log directory (default: ${DEFAULT-VALUE}).")
    Path dir;

    @Override
    public Integer call() throws Exception {
        try (LocalKafkaBroker broker =
                LocalKafkaBroker.builder().workDir(dir).host(bind).port(port).start()) {
            System.out.println(
                    "Kafka broker listening on "
                            + broker.bootstrapServers()
                            + " (pid "
                            + broker.pid()
                            + ", log "
                            + broker.logFile()
                            + "). Press Ctrl-C to stop.");
            new CountDownLatch(1).await();
        }
        return 0;
    }
}

package io.gnnstream.broker;

import java.io.IOException;
import java.io.InputStream;

/**
 * Entry point of the local development broker's child process. It runs {@code kafka.Kafka} and
 * exits as soon as its standard input reaches end-of-file, which happens when the parent process
 * dies for any reason (even SIGKILL), so a broker is never left behind as an orphan.
 */
public final class KafkaBrokerMain {

    private KafkaBrokerMain() {}

    public static void main(String[] args) {
        Thread watchdog = new Thread(KafkaBrokerMain::exitWhenParentGone, "parent-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        kafka.Kafka.main(args);
    }

    private static void exitWhenParentGone() {
        InputStream in = System.in;
        try {
            while (in.read() >= 0) {
                // The parent never writes; any byte is ignored.
            }
        } catch (IOException e) {
            // A broken pipe means the parent is gone as well.
        }
        System.exit(0);
    }
}

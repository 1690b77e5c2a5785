package io.gnnstream.jobs;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The root cause of a failure, read from its stack trace as text (Flink's REST exception history
 * gives that): the last exception of the "Caused by" chain, its class and message. Two failures
 * have the same cause when their {@link #key}s are equal: the root's class and its message with
 * every token that holds a digit (counts, addresses, ports, ids) replaced by {@code #}. The message
 * says what failed ("Kafka ... refused the client's credentials", "Java heap space", "subtask 0
 * fails at event 3"); the place it was thrown is not compared, since the same fault surfaces at
 * different call sites from one attempt to the next (a heap exhausted by whichever allocation comes
 * last, a Kafka error raised by the fetcher or by the producer's sender).
 */
final class FailureCause {

    /**
     * Exceptions of the environment rather than of the job: a lost or shut-down TaskManager, slots
     * that are missing, the network between tasks, RPC and heartbeat timeouts, checkpoints that
     * failed or expired, and Kafka's retriable errors. A failure with one of them (or a subclass)
     * anywhere in its chain is {@link #environmental}.
     */
    static final List<String> ENVIRONMENT =
            List.of(
                    "org.apache.flink.runtime.jobmanager.scheduler.NoResourceAvailableException",
                    "org.apache.flink.runtime.jobmaster.JobMasterException",
                    "org.apache.flink.runtime.taskexecutor.exceptions.TaskSubmissionException",
                    "org.apache.flink.runtime.rpc.exceptions.RpcException",
                    "org.apache.flink.runtime.io.network.netty.exception.TransportException",
                    "org.apache.flink.runtime.io.network.partition.PartitionException",
                    "org.apache.flink.runtime.io.network.partition.consumer"
                            + ".PartitionConnectionException",
                    "org.apache.flink.runtime.checkpoint.CheckpointException",
                    "org.apache.flink.util.FlinkExpectedException",
                    "java.util.concurrent.TimeoutException",
                    "org.apache.kafka.common.errors.RetriableException");

    private static final Pattern HEADER =
            Pattern.compile("([\\w$]+(?:\\.[\\w$]+)*)(?::\\s?(.*))?", Pattern.DOTALL);

    /** A token holding a digit: a count, an address, a port, an id. */
    private static final Pattern VOLATILE = Pattern.compile("[0-9A-Za-z_-]*[0-9][0-9A-Za-z_-]*");

    private static final Map<String, Boolean> ENVIRONMENTAL_CLASSES = new ConcurrentHashMap<>();

    private final String className;
    private final String message;
    private final boolean environmental;

    private FailureCause(String className, String message, boolean environmental) {
        this.className = className;
        this.message = message;
        this.environmental = environmental;
    }

    /**
     * The root cause of the failure whose stack trace ({@link Throwable#printStackTrace}'s text) is
     * {@code trace}; {@code exceptionName} (the failure's class) stands in when there is no trace.
     */
    static FailureCause of(String exceptionName, String trace) {
        List<String[]> chain = chain(trace);
        if (chain.isEmpty()) {
            String name = exceptionName == null ? "unknown failure" : exceptionName;
            return new FailureCause(name, null, isEnvironmental(name));
        }
        boolean environmental = false;
        for (String[] exception : chain) {
            environmental |= isEnvironmental(exception[0]);
        }
        String[] root = chain.get(chain.size() - 1);
        return new FailureCause(root[0], root[1], environmental);
    }

    /** The root cause of {@code failure}. */
    static FailureCause of(Throwable failure) {
        java.io.StringWriter text = new java.io.StringWriter();
        failure.printStackTrace(new java.io.PrintWriter(text));
        return of(failure.getClass().getName(), text.toString());
    }

    /**
     * The exceptions of a stack trace's "Caused by" chain, outermost first, each as its class and
     * message (null without one). Frames, "... n more" lines and suppressed exceptions (indented)
     * are skipped; a message may span lines.
     */
    static List<String[]> chain(String trace) {
        List<String[]> chain = new ArrayList<>();
        if (trace == null || trace.isBlank()) {
            return chain;
        }
        StringBuilder header = null;
        boolean first = true;
        for (String line : trace.split("\r?\n", -1)) {
            boolean cause = line.startsWith("Caused by: ");
            if (first || cause) {
                if (header != null) {
                    chain.add(parse(header.toString()));
                }
                header = new StringBuilder(cause ? line.substring("Caused by: ".length()) : line);
                first = false;
            } else if (header != null && !line.startsWith("\t") && !line.isEmpty()) {
                header.append('\n').append(line);
            } else if (header != null) {
                chain.add(parse(header.toString()));
                header = null;
            }
        }
        if (header != null) {
            chain.add(parse(header.toString()));
        }
        return chain;
    }

    private static String[] parse(String header) {
        Matcher m = HEADER.matcher(header.strip());
        if (m.matches()) {
            String message = m.group(2);
            return new String[] {m.group(1), message == null || message.isBlank() ? null : message};
        }
        return new String[] {"", header.strip()};
    }

    /** Whether {@code className} is, or extends, one of {@link #ENVIRONMENT}. */
    static boolean isEnvironmental(String className) {
        return ENVIRONMENTAL_CLASSES.computeIfAbsent(className, FailureCause::extendsEnvironment);
    }

    private static boolean extendsEnvironment(String className) {
        if (ENVIRONMENT.contains(className)) {
            return true;
        }
        ClassLoader loader = FailureCause.class.getClassLoader();
        Class<?> type;
        try {
            type = Class.forName(className, false, loader);
        } catch (ClassNotFoundException | LinkageError unknown) {
            return false;
        }
        for (String name : ENVIRONMENT) {
            try {
                if (Class.forName(name, false, loader).isAssignableFrom(type)) {
                    return true;
                }
            } catch (ClassNotFoundException | LinkageError absent) {
                // not on this classpath: only the name itself matches
            }
        }
        return false;
    }

    /** The root exception's class name. */
    String className() {
        return className;
    }

    /** The root exception's message, or null. */
    String message() {
        return message;
    }

    /** Whether the failure is the environment's (see {@link #ENVIRONMENT}), not the job's. */
    boolean environmental() {
        return environmental;
    }

    /** The root cause's class and message with the tokens that hold digits replaced. */
    String key() {
        return className
                + ": "
                + (message == null ? "" : VOLATILE.matcher(message).replaceAll("#"));
    }

    /**
     * The cause in one line: the class's simple name and the message (the message alone for a plain
     * runtime or illegal-state exception, as {@link TrainingRunner#cause} writes it).
     */
    String description() {
        return TrainingRunner.describe(className, message);
    }

    @Override
    public String toString() {
        return description();
    }

    /** {@code text} on one line: its whitespace runs collapsed to single spaces. */
    static String oneLine(String text) {
        return text.strip().replaceAll("\\s+", " ");
    }
}

package io.gnnstream.operators;

import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Throws once, for failure-injection tests: when the operator named in the spec counts its {@code
 * n}-th event on the named subtask, it fails, unless a marker file says an earlier attempt of the
 * job already did. The marker lives outside the job (a file), so the restored job, which counts
 * from its checkpoint again, does not fail a second time. Spec: {@code operator:subtask:n}, e.g.
 * {@code trainer:1:30} (subtask 1 of the trainer fails at its 30th training step). With a fourth
 * field, {@code operator:subtask:n:always}, it fails at every attempt that reaches the event: a
 * failure that repeats after every restore, as a deterministic bug or an undersized heap would.
 * Several specs, separated by commas, inject one failure each (the second and later with marker
 * files of their own, the marker's name and {@code .1}, {@code .2}, ...).
 */
public final class FaultInjector implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Injects nothing. */
    public static final FaultInjector NONE = new FaultInjector(null, -1, 0, null);

    /** Marker of a fault that fires at every attempt. */
    private static final String ALWAYS = "always";

    private final String operator;
    private final int subtask;
    private final long at;
    private final String marker;

    /** The further specs of a comma-separated list (empty for one spec). */
    private final FaultInjector[] more;

    private FaultInjector(String operator, int subtask, long at, String marker) {
        this(operator, subtask, at, marker, new FaultInjector[0]);
    }

    private FaultInjector(
            String operator, int subtask, long at, String marker, FaultInjector[] more) {
        this.operator = operator;
        this.subtask = subtask;
        this.at = at;
        this.marker = marker;
        this.more = more;
    }

    /** Parses {@code operator:subtask:n}; {@code marker} is the file that records the failure. */
    public static FaultInjector parse(String spec, String marker) {
        if (spec == null || spec.isBlank()) {
            return NONE;
        }
        String[] specs = spec.split(",");
        if (specs.length > 1) {
            FaultInjector[] more = new FaultInjector[specs.length - 1];
            for (int i = 1; i < specs.length; i++) {
                more[i - 1] = parse(specs[i].trim(), marker == null ? null : marker + "." + i);
            }
            FaultInjector first = parse(specs[0].trim(), marker);
            return new FaultInjector(first.operator, first.subtask, first.at, first.marker, more);
        }
        String[] p = spec.split(":");
        boolean always = p.length == 4 && ALWAYS.equals(p[3]);
        if (!always && (p.length != 3 || marker == null)) {
            throw new IllegalArgumentException(
                    "fault spec must be operator:subtask:n with a marker file, or "
                            + "operator:subtask:n:always, got '"
                            + spec
                            + "'");
        }
        return new FaultInjector(
                p[0], Integer.parseInt(p[1]), Long.parseLong(p[2]), always ? null : marker);
    }

    /** Throws if this is the event to fail at and no earlier attempt failed here. */
    public void check(String operatorName, int subtaskIndex, long count) {
        for (FaultInjector other : more) {
            other.check(operatorName, subtaskIndex, count);
        }
        if (operator == null
                || !operator.equals(operatorName)
                || subtask != subtaskIndex
                || count != at) {
            return;
        }
        if (marker == null) {
            throw new InjectedFailure(
                    operatorName
                            + " subtask "
                            + subtaskIndex
                            + " fails at event "
                            + count
                            + " (injected at every attempt)");
        }
        Path file = Path.of(marker);
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.createFile(file);
        } catch (java.nio.file.FileAlreadyExistsException done) {
            return;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        throw new InjectedFailure(
                operatorName
                        + " subtask "
                        + subtaskIndex
                        + " fails at event "
                        + count
                        + " (injected once)");
    }

    /** The failure a {@link FaultInjector} throws. */
    public static final class InjectedFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        InjectedFailure(String message) {
            super(message);
        }
    }
}

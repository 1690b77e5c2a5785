package io.gnnstream.operators;

import io.gnnstream.operators.FaultInjector.InjectedFailure;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The {@link FaultInjector} of a spec: throws once when the operator named in the spec counts its
 * {@code n}-th event on the named subtask, unless a marker file says an earlier attempt of the job
 * already did. The marker lives outside the job (a file), so the restored job, which counts from
 * its checkpoint again, does not fail a second time. Spec: {@code operator:subtask:n}, e.g. {@code
 * trainer:1:30} (subtask 1 of the trainer fails at its 30th training step). With a fourth field,
 * {@code operator:subtask:n:always}, it fails at every attempt that reaches the event: a failure
 * that repeats after every restore, as a deterministic bug or an undersized heap would. Several
 * specs, separated by commas, inject one failure each (the second and later with marker files of
 * their own, the marker's name and {@code .1}, {@code .2}, ...).
 */
final class InjectedFaults implements FaultInjector {

    private static final long serialVersionUID = 1L;

    /** Marker of a fault that fires at every attempt. */
    private static final String ALWAYS = "always";

    private final String operator;
    private final int subtask;
    private final long at;
    private final String marker;

    /** The further specs of a comma-separated list (empty for one spec). */
    private final FaultInjector[] more;

    /** {@code operator} null: this spec was blank, only {@code more} can fail. */
    private InjectedFaults(
            String operator, int subtask, long at, String marker, FaultInjector[] more) {
        this.operator = operator;
        this.subtask = subtask;
        this.at = at;
        this.marker = marker;
        this.more = more;
    }

    /**
     * Parses {@code operator:subtask:n[:always]}, or several separated by commas; {@code marker} is
     * the file that records the failure.
     */
    static InjectedFaults parse(String spec, String marker) {
        String[] specs = spec.split(",");
        if (specs.length > 1) {
            FaultInjector[] more = new FaultInjector[specs.length - 1];
            for (int i = 1; i < specs.length; i++) {
                more[i - 1] =
                        FaultInjector.parse(
                                specs[i].trim(), marker == null ? null : marker + "." + i);
            }
            return FaultInjector.parse(specs[0].trim(), marker) instanceof InjectedFaults first
                    ? new InjectedFaults(
                            first.operator, first.subtask, first.at, first.marker, more)
                    : new InjectedFaults(null, -1, 0, null, more);
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
        return new InjectedFaults(
                p[0],
                Integer.parseInt(p[1]),
                Long.parseLong(p[2]),
                always ? null : marker,
                new FaultInjector[0]);
    }

    /** Throws if this is the event to fail at and no earlier attempt failed here. */
    @Override
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
}

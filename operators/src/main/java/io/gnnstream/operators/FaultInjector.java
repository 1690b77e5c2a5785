package io.gnnstream.operators;

import java.io.Serializable;

/**
 * Failure injection for tests (the hidden {@code --inject-fault}): operators report every event
 * they count, per subtask, and an injector built from a spec throws {@link InjectedFailure} at the
 * named one ({@link InjectedFaults}). Operators default to {@link #NONE}; the job wires another
 * only when the option is set.
 */
public interface FaultInjector extends Serializable {

    /** Injects nothing. */
    FaultInjector NONE = NoFaults.INSTANCE;

    /**
     * Throws if {@code operator}'s subtask {@code subtask} is to fail at its event {@code count}.
     */
    void check(String operator, int subtask, long count);

    /**
     * The injector of {@code spec} ({@link InjectedFaults} describes its format), with {@code
     * marker} the file that records a failure; {@link #NONE} for a null or blank spec.
     */
    static FaultInjector parse(String spec, String marker) {
        if (spec == null || spec.isBlank()) {
            return NONE;
        }
        return InjectedFaults.parse(spec, marker);
    }

    /** The failure an injector throws. */
    final class InjectedFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        InjectedFailure(String message) {
            super(message);
        }
    }
}

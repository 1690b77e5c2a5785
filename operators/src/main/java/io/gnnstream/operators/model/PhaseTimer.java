package io.gnnstream.operators.model;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Wall-clock accounting of training steps by phase, for profiling. {@link #mark} charges the time
 * since the previous mark to a named phase (optionally per model layer); a disabled timer costs
 * one branch per mark. Phases are listed in the order they first ran.
 */
final class PhaseTimer {

    private final Map<String, Long> nanos = new LinkedHashMap<>();
    private boolean enabled;
    private long last;

    void enable(boolean on) {
        enabled = on;
        last = System.nanoTime();
    }

    /** Starts a timed section; the time before this call is not charged. */
    void start() {
        if (enabled) {
            last = System.nanoTime();
        }
    }

    /** Charges the time since the previous {@link #start}/{@code mark} to {@code phase}. */
    void mark(String phase) {
        if (enabled) {
            long now = System.nanoTime();
            nanos.merge(phase, now - last, Long::sum);
            last = now;
        }
    }

    /** As {@link #mark(String)}, for phase {@code phase.layer}. */
    void mark(String phase, int layer) {
        if (enabled) {
            mark(phase + "." + layer);
        }
    }

    Map<String, Long> snapshot() {
        return new LinkedHashMap<>(nanos);
    }

    void reset() {
        nanos.clear();
    }
}

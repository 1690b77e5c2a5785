package io.gnnstream.operators.model;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Accounting of training steps by phase, for profiling: wall-clock time and the CPU time of the
 * calling thread (which, with one thread, is the step's work free of interference from other
 * processes). {@link #mark} charges the time since the previous mark to a named phase (optionally
 * per model layer); a disabled timer costs one branch per mark. Phases are listed in the order they
 * first ran.
 */
final class PhaseTimer {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final Map<String, Long> wall = new LinkedHashMap<>();
    private final Map<String, Long> cpu = new LinkedHashMap<>();
    private boolean enabled;
    private long lastWall;
    private long lastCpu;

    void enable(boolean on) {
        enabled = on;
        start();
    }

    /** Starts a timed section; the time before this call is not charged. */
    void start() {
        if (enabled) {
            lastWall = System.nanoTime();
            lastCpu = THREADS.getCurrentThreadCpuTime();
        }
    }

    /** Charges the time since the previous {@link #start}/{@code mark} to {@code phase}. */
    void mark(String phase) {
        if (enabled) {
            long nowWall = System.nanoTime();
            long nowCpu = THREADS.getCurrentThreadCpuTime();
            wall.merge(phase, nowWall - lastWall, Long::sum);
            cpu.merge(phase, nowCpu - lastCpu, Long::sum);
            lastWall = nowWall;
            lastCpu = nowCpu;
        }
    }

    /** As {@link #mark(String)}, for phase {@code phase.layer}. */
    void mark(String phase, int layer) {
        if (enabled) {
            mark(phase + "." + layer);
        }
    }

    Map<String, Long> wallNanos() {
        return new LinkedHashMap<>(wall);
    }

    Map<String, Long> cpuNanos() {
        return new LinkedHashMap<>(cpu);
    }

    void reset() {
        wall.clear();
        cpu.clear();
    }
}

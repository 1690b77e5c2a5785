package io.gnnstream.operators.model;

import org.nd4j.linalg.factory.Nd4j;

/**
 * Bounds ND4J's native parallelism so several trainers can share a machine without
 * oversubscription.
 */
public final class Nd4jThreads {

    private static volatile int configured = 1;

    /** The count last set in the native libraries; 0 before the first {@link #configure}. */
    private static int applied;

    private Nd4jThreads() {}

    /**
     * Limits both the libnd4j op threads and the BLAS threads to {@code n}. These are the two
     * settings that take effect on the nd4j-native/OpenBLAS backend ({@code setMaxThreads} does
     * not). {@link SageModel}'s own Java loops use the same number of threads; their results do not
     * depend on it. OpenBLAS's do: its gemm is deterministic for a given thread count (and kernel,
     * see {@code OPENBLAS_CORETYPE} in {@code bin/gnnstream}) but rounds differently on 1 and 2
     * threads, so replicas that must stay bit-identical need the same count.
     *
     * <p>The native settings are process-wide, and OpenBLAS can hang for good when its thread count
     * is set while another thread of the process runs a gemm (a TaskManager restoring one trainer
     * rank while another rank in the same JVM trains). So the count is set once per process and per
     * value: a call with the count already set touches nothing native.
     */
    public static synchronized void configure(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("thread count must be >= 1, got " + n);
        }
        if (n != applied) {
            Nd4j.getEnvironment().setMaxMasterThreads(n);
            Nd4j.factory().blas().setMaxThreads(n);
            applied = n;
        }
        configured = n;
    }

    /** The count last passed to {@link #configure}, or 1 if it was never called. */
    public static int configured() {
        return configured;
    }
}

package io.gnnstream.operators.model;

import org.nd4j.linalg.factory.Nd4j;

/** Bounds ND4J's native parallelism so several trainers can share a machine without oversubscription. */
public final class Nd4jThreads {

    private Nd4jThreads() {}

    /**
     * Limits both the libnd4j op threads and the BLAS threads to {@code n}. These are the two
     * settings that take effect on the nd4j-native/OpenBLAS backend ({@code setMaxThreads} does not).
     */
    public static void configure(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("thread count must be >= 1, got " + n);
        }
        Nd4j.getEnvironment().setMaxMasterThreads(n);
        Nd4j.factory().blas().setMaxThreads(n);
    }
}

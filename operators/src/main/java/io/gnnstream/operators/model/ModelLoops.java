package io.gnnstream.operators.model;

/**
 * The {@link LoopPool} of a model for its current thread setting, with scratch buffers for each of
 * its threads: a row of {@code rowWidth} floats and {@code scaleWidth} dropout scales. The pool is
 * rebuilt when the setting changes and its threads end on {@link #close()}.
 */
final class ModelLoops implements AutoCloseable {

    private final int rowWidth;
    private final int scaleWidth;
    private int threads;
    private LoopPool pool;
    private float[][] rows = new float[0][];
    private float[][] scales = new float[0][];

    ModelLoops(int rowWidth, int scaleWidth) {
        this.rowWidth = rowWidth;
        this.scaleWidth = scaleWidth;
    }

    /**
     * Runs the loops on {@code threads} threads; {@code 0} (the default) follows {@link
     * Nd4jThreads#configured()}.
     */
    void setThreads(int threads) {
        if (threads < 0) {
            throw new IllegalArgumentException("threads must be >= 0, got " + threads);
        }
        this.threads = threads;
    }

    /**
     * The pool for the current setting; {@link #row} and {@link #scale} serve each of its workers.
     */
    LoopPool pool() {
        int n = threads > 0 ? threads : Nd4jThreads.configured();
        if (pool == null || pool.threads() != n) {
            if (pool != null) {
                pool.close();
            }
            pool = new LoopPool(n);
        }
        if (rows.length < n) {
            rows = new float[n][];
            scales = new float[n][];
            for (int w = 0; w < n; w++) {
                rows[w] = new float[rowWidth];
                scales[w] = new float[scaleWidth];
            }
        }
        return pool;
    }

    /** The scratch row of worker {@code w} of the last {@link #pool()}. */
    float[] row(int w) {
        return rows[w];
    }

    /** The scratch scales of worker {@code w} of the last {@link #pool()}. */
    float[] scale(int w) {
        return scales[w];
    }

    /**
     * Column blocks for a scatter over {@code in} columns: one per thread (each block sweeps every
     * row, so more blocks cost memory traffic), in whole cache lines.
     */
    static int columnGrain(int in, int threads) {
        int grain = (in + threads - 1) / threads;
        return Math.min(in, Math.max(16, (grain + 15) / 16 * 16));
    }

    @Override
    public void close() {
        if (pool != null) {
            pool.close();
            pool = null;
        }
    }
}

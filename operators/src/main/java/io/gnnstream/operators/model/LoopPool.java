package io.gnnstream.operators.model;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A small fixed set of threads for the model's Java loops. {@link #forEach} cuts an index range
 * into chunks that the calling thread and {@code threads - 1} helpers take in turn, so a thread
 * slowed down by other processes on the machine simply takes fewer chunks. Callers make every
 * chunk's result independent of which thread computes it and of the chunking (each output element
 * is written by one chunk, in a fixed order), so results are bit-identical for any thread count.
 * Idle helpers exit after a minute, so a pool that is never closed holds no threads for long.
 */
final class LoopPool implements AutoCloseable {

    /**
     * Work on indices {@code [from, to)}; {@code worker} in {@code [0, threads)} selects scratch
     * buffers.
     */
    interface Body {
        void run(int from, int to, int worker);
    }

    private static final AtomicInteger POOLS = new AtomicInteger();

    private final int threads;
    private final ThreadPoolExecutor helpers;

    LoopPool(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be >= 1, got " + threads);
        }
        this.threads = threads;
        if (threads == 1) {
            helpers = null;
        } else {
            int id = POOLS.incrementAndGet();
            AtomicInteger n = new AtomicInteger();
            helpers =
                    new ThreadPoolExecutor(
                            threads - 1,
                            threads - 1,
                            60,
                            TimeUnit.SECONDS,
                            new LinkedBlockingQueue<>(),
                            r -> {
                                Thread t =
                                        new Thread(
                                                r,
                                                "gnnstream-model-"
                                                        + id
                                                        + "-loop-"
                                                        + n.incrementAndGet());
                                t.setDaemon(true);
                                return t;
                            });
            helpers.allowCoreThreadTimeOut(true);
        }
    }

    int threads() {
        return threads;
    }

    /**
     * Runs {@code body} over {@code [0, n)} in chunks of {@code grain} indices and returns when all
     * are done.
     */
    void forEach(int n, int chunk, Body body) {
        if (n <= 0) {
            return;
        }
        int grain = Math.max(1, chunk);
        if (helpers == null || n <= grain) {
            body.run(0, n, 0);
            return;
        }
        AtomicLong next = new AtomicLong();
        int active = Math.min(threads, (n + grain - 1) / grain);
        List<Future<?>> futures = new ArrayList<>(active - 1);
        for (int w = 1; w < active; w++) {
            int worker = w;
            futures.add(helpers.submit(() -> drain(n, grain, next, body, worker)));
        }
        Throwable failure = null;
        try {
            drain(n, grain, next, body, 0);
        } catch (RuntimeException | Error e) {
            failure = e;
            next.set(n); // stop handing out chunks
        }
        for (Future<?> f : futures) {
            try {
                f.get();
            } catch (ExecutionException e) {
                failure = failure == null ? e.getCause() : failure;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failure = failure == null ? e : failure;
            }
        }
        if (failure instanceof RuntimeException re) {
            throw re;
        }
        if (failure instanceof Error err) {
            throw err;
        }
        if (failure != null) {
            throw new IllegalStateException("model loop interrupted", failure);
        }
    }

    private static void drain(int n, int grain, AtomicLong next, Body body, int worker) {
        for (long from = next.getAndAdd(grain); from < n; from = next.getAndAdd(grain)) {
            body.run((int) from, (int) Math.min(n, from + grain), worker);
        }
    }

    @Override
    public void close() {
        if (helpers != null) {
            helpers.shutdown();
        }
    }
}

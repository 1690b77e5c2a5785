package io.gnnstream.operators.internal;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.util.function.ThrowingConsumer;

/**
 * Runs an operator's heavy steps one at a time on a dedicated thread, so that the task thread keeps
 * taking in records while a step computes. The trainer needs this: a task thread busy with a model
 * step reads no input, the feature parts of the next batches back up in the network and the
 * GraphStore, blocked on its output, serves no sampling request either.
 *
 * <p>Outcomes come back through the task's mailbox: {@code onDone} runs on the task thread, so the
 * operator's bookkeeping, state and output stay single-threaded. {@link #await} delivers the
 * outcome of the step in flight synchronously, for the moments the operator needs its state at rest
 * (a checkpoint, an export, the end of input); the mail that follows later is then a no-op. The
 * step thread is the same for the runner's whole life, which per-thread native resources (ND4J
 * workspaces, BLAS thread pools) rely on.
 *
 * @param <T> the outcome of a step
 */
public final class StepRunner<T> implements AutoCloseable {

    private final ExecutorService thread;
    private final MailboxExecutor mailbox;
    private final ThrowingConsumer<T, Exception> onDone;
    private CompletableFuture<T> inFlight;

    public StepRunner(
            String threadName, MailboxExecutor mailbox, ThrowingConsumer<T, Exception> onDone) {
        this.mailbox = mailbox;
        this.onDone = onDone;
        this.thread =
                Executors.newSingleThreadExecutor(
                        r -> {
                            Thread t = new Thread(r, threadName);
                            t.setDaemon(true);
                            return t;
                        });
    }

    /** True while a step runs or its outcome has not been delivered yet. */
    public boolean busy() {
        return inFlight != null;
    }

    /** Starts {@code step}; only one step is in flight at a time. */
    public void submit(Callable<T> step) {
        if (inFlight != null) {
            throw new IllegalStateException("a step is already in flight");
        }
        CompletableFuture<T> future = new CompletableFuture<>();
        inFlight = future;
        thread.execute(
                () -> {
                    try {
                        future.complete(step.call());
                    } catch (Throwable t) {
                        future.completeExceptionally(t);
                    }
                    try {
                        mailbox.execute(() -> deliver(future), "step done");
                    } catch (RejectedExecutionException closing) {
                        // The task is shutting down: nobody is left to take the outcome.
                    }
                });
    }

    /**
     * Waits for the step in flight, if any, and delivers its outcome on the calling (task) thread.
     */
    public void await() throws Exception {
        if (inFlight != null) {
            deliver(inFlight);
        }
    }

    private void deliver(CompletableFuture<T> future) throws Exception {
        if (future != inFlight) {
            return;
        }
        inFlight = null;
        T outcome;
        try {
            outcome = future.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            throw e;
        }
        onDone.accept(outcome);
    }

    /**
     * Stops the step thread after the step in flight, which may use resources the caller frees
     * next.
     */
    @Override
    public void close() throws InterruptedException {
        thread.shutdown();
        if (!thread.awaitTermination(10, TimeUnit.MINUTES)) {
            throw new IllegalStateException("the step thread did not stop within 10 minutes");
        }
    }
}

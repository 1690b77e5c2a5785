package io.gnnstream.operators.internal;

import io.gnnstream.operators.messages.LayerOutputs;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.runtime.io.network.api.writer.ResultPartitionWriter;

/**
 * Sends a trainer rank's {@link LayerOutputs} without ever blocking its task thread
 * (docs/design.md, "Evaluation"). The outputs travel through the sampling loop to the GraphStore,
 * whose feature parts travel to the rank: a rank blocked on emitting outputs while the GraphStore
 * waits to emit parts to it would stop the loop for good. So outputs go in small records (a few
 * network buffers each), one at a time and only while every output of the task has buffers to
 * spare; otherwise the sender waits for them in the task's mailbox, and the task thread goes on
 * taking in parts. The trainer starts no block while outputs wait ({@link #isEmpty}), so at most
 * one block's outputs are held.
 */
public final class LayerOutputSender {

    /** Bytes of outputs per record: well under one network buffer's 32 KiB. */
    public static final int RECORD_BYTES = 16 << 10;

    private final ResultPartitionWriter[] writers;
    private final MailboxExecutor mailbox;
    private final Consumer<LayerOutputs> emit;
    private final Runnable onDrained;
    private final ArrayDeque<LayerOutputs> queue = new ArrayDeque<>();
    private boolean waiting;

    /**
     * @param writers the task's outputs, whose availability gates each record
     * @param onDrained runs on the task thread once the queue has emptied
     */
    public LayerOutputSender(
            ResultPartitionWriter[] writers,
            MailboxExecutor mailbox,
            Consumer<LayerOutputs> emit,
            Runnable onDrained) {
        this.writers = writers;
        this.mailbox = mailbox;
        this.emit = emit;
        this.onDrained = onDrained;
    }

    /** Queues {@code records} and sends what the outputs take now. */
    public void send(Iterable<LayerOutputs> records) {
        records.forEach(queue::add);
        drain();
    }

    public boolean isEmpty() {
        return queue.isEmpty();
    }

    /** Records waiting for buffers. */
    public int size() {
        return queue.size();
    }

    private void drain() {
        if (waiting) {
            return;
        }
        while (!queue.isEmpty()) {
            CompletableFuture<?> blocked = unavailable();
            if (blocked != null) {
                waiting = true;
                blocked.thenRun(
                        () ->
                                mailbox.execute(
                                        () -> {
                                            waiting = false;
                                            drain();
                                        },
                                        "send layer outputs"));
                return;
            }
            emit.accept(queue.poll());
        }
        onDrained.run();
    }

    /**
     * The availability future of an output without buffers to spare, or null when all have some.
     */
    private CompletableFuture<?> unavailable() {
        for (ResultPartitionWriter w : writers) {
            if (!w.isAvailable()) {
                return w.getAvailableFuture();
            }
        }
        return null;
    }
}

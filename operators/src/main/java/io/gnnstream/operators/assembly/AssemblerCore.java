package io.gnnstream.operators.assembly;

import io.gnnstream.operators.messages.BatchSpec;
import io.gnnstream.operators.messages.SampleRequest;
import io.gnnstream.operators.messages.SampleResponse;
import io.gnnstream.operators.schedule.BatchAttempts;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.flink.api.common.state.ValueState;

/**
 * The assembler role of one subtask (docs/design.md, "Sampling loop and flow control" and
 * "Checkpoints and restore", "BatchAssembler"), free of Flink's runtime: it builds the batches of
 * its key range (keyed by batch id) hop by hop, each with a {@link BatchBuilder}, lets their
 * requests out through a {@link RequestWindow}, and follows {@link BatchAttempts} on specs and
 * timeout timers (start, restart as a new attempt, send pending requests again).
 *
 * <p>The spec and the attempt number of an unfinished batch are keyed state, read and written
 * through two {@link ValueState} handles whose current key {@link CurrentKey} sets; the builders
 * and the window are heap only, so a core built on restored state finds its batches without partial
 * state and samples them again. Time comes in as {@code now} (processing time, ms). Requests,
 * heads, timers and retries go to the {@link AssemblerOutput} passed in. {@code BatchAssembler}
 * feeds it records and timers and sends what it decides; tests drive it in memory. Not thread-safe.
 */
public final class AssemblerCore {

    private final AssemblerConfig config;
    private final ValueState<BatchSpec> specs;
    private final ValueState<Integer> attempts;
    private final CurrentKey key;

    /**
     * The route of the GraphStore subtask of this subtask's index (-1 if none): requests to others
     * leave the site.
     */
    private final int localRoute;

    private final Map<Long, BatchInProgress> inProgress = new HashMap<>();
    private final RequestWindow window;
    private final Predicate<SampleRequest> awaited = this::awaited;

    /** Nodes of the last batch built, the size hint of the next. */
    private int lastBatchNodes;

    /**
     * Assembler subtask {@code subtask} with {@code config}; {@code specs} and {@code attempts}
     * hold each unfinished batch's spec and attempt under the key {@code key} sets (the batch id).
     */
    public AssemblerCore(
            AssemblerConfig config,
            int subtask,
            ValueState<BatchSpec> specs,
            ValueState<Integer> attempts,
            CurrentKey key) {
        this.config = config;
        this.specs = specs;
        this.attempts = attempts;
        this.key = key;
        this.localRoute = config.routeOfSubtask(subtask);
        this.window = new RequestWindow(config.maxOutstandingVertices);
    }

    /**
     * A spec from the scheduler: a new batch starts (with its timeout timer), a restored one issued
     * again in a newer generation restarts as a new attempt, any other is a duplicate.
     */
    public void onSpec(BatchSpec spec, long now, AssemblerOutput out) throws IOException {
        key.set(spec.batchId);
        switch (BatchAttempts.onSpec(spec, inProgress.containsKey(spec.batchId), specs.value())) {
            case RESTART -> restart(spec, now, out);
            case START -> {
                specs.update(spec);
                start(spec, BatchAttempts.first(spec), now, out);
                out.timer(spec.batchId, now + config.timeoutMs);
            }
            default -> {}
        }
    }

    /**
     * A response from the GraphStore: it leaves the window, advances its batch (late and repeated
     * ones do nothing), and may finish it; then the queued requests that fit go out.
     */
    public void onResponse(SampleResponse response, long now, AssemblerOutput out)
            throws IOException {
        window.answered(response);
        BatchInProgress batch = inProgress.get(response.batchId);
        if (batch != null) {
            List<SampleRequest> next = batch.builder.accept(response);
            batch.lastProgress = now;
            window.enqueue(next);
            if (batch.builder.isComplete()) {
                key.set(response.batchId);
                finish(batch, out);
            }
        }
        pump(out);
    }

    /**
     * The timeout timer of batch {@code batchId}: a batch without partial state (lost in a restore)
     * restarts as a new attempt, one without progress for the timeout sends its pending requests
     * again; the timer is registered again until the batch is finished.
     */
    public void onTimer(long batchId, long now, AssemblerOutput out) throws IOException {
        key.set(batchId);
        BatchSpec spec = specs.value();
        BatchInProgress batch = spec == null ? null : inProgress.get(spec.batchId);
        BatchAttempts.OnTimer action =
                BatchAttempts.onTimer(
                        spec,
                        batch != null,
                        batch == null ? 0 : now - batch.lastProgress,
                        config.timeoutMs);
        if (action == BatchAttempts.OnTimer.NONE && spec == null) {
            return;
        }
        if (action == BatchAttempts.OnTimer.RESTART) {
            restart(spec, now, out);
        } else if (action == BatchAttempts.OnTimer.RESEND) {
            out.retry();
            window.resend(batch.builder.pending());
            pump(out);
            batch.lastProgress = now;
        }
        out.timer(batchId, now + config.timeoutMs);
    }

    /**
     * A heartbeat request for the sampling loop (it asks nothing; the loop's head needs a record on
     * its feedback edge to emit a checkpoint barrier).
     */
    public SampleRequest heartbeat() {
        return SampleRequest.heartbeat(config.routeOf(0));
    }

    /** Batches being built (heap state). */
    public int inProgress() {
        return inProgress.size();
    }

    /** Whether batch {@code batchId} is being built. */
    public boolean building(long batchId) {
        return inProgress.containsKey(batchId);
    }

    /** Vertices named by the requests in flight. */
    public long outstandingVertices() {
        return window.outstandingVertices();
    }

    /** Requests waiting for room in the window. */
    public int queued() {
        return window.queued();
    }

    /**
     * Samples again from hop 1 a batch whose partial state a restore lost, as the next attempt;
     * {@code spec} is the restored one or, if the scheduler issued it again after the restore, the
     * newer generation, whose attempts are numbered above all earlier ones.
     */
    private void restart(BatchSpec spec, long now, AssemblerOutput out) throws IOException {
        out.retry();
        int attempt = BatchAttempts.next(attempts.value(), spec);
        specs.update(spec);
        attempts.update(attempt);
        start(spec, attempt, now, out);
    }

    private void start(BatchSpec spec, int attempt, long now, AssemblerOutput out) {
        BatchBuilder builder =
                config.builder(spec, attempt, lastBatchNodes)
                        .localRoute(localRoute)
                        .evalFanout(config.evalFanout);
        BatchInProgress batch = new BatchInProgress(builder, now);
        inProgress.put(spec.batchId, batch);
        window.enqueue(builder.start());
        if (builder.isComplete()) {
            finish(batch, out);
        }
        pump(out);
    }

    /** The batch's head goes to its rank; its state is cleared (the current key is its id). */
    private void finish(BatchInProgress batch, AssemblerOutput out) {
        lastBatchNodes = batch.builder.numNodes();
        out.head(batch.builder.buildHead());
        inProgress.remove(batch.builder.spec().batchId);
        specs.clear();
        attempts.clear();
    }

    /** The queued requests that fit into the window, one bundle per GraphStore subtask. */
    private void pump(AssemblerOutput out) {
        for (List<SampleRequest> bundle : window.take(awaited)) {
            out.bundle(bundle.toArray(new SampleRequest[0]));
        }
    }

    /** Whether a batch in progress still waits for the answer to {@code request}. */
    private boolean awaited(SampleRequest request) {
        BatchInProgress batch = inProgress.get(request.batchId);
        return batch != null && batch.builder.awaits(request);
    }
}

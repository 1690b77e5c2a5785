package io.gnnstream.operators.assembly;

import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.messages.SampleRequest;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@link AssemblerCore} decided in one call, appended in order for its caller to send: request
 * bundles for the GraphStore (one record per subtask), finished batches' heads for their trainer
 * ranks, timeout timers to register, and how many batches were retried. The caller takes them and
 * {@link #clear}s it for the next call.
 */
public final class AssemblerOutput {

    /** A timeout timer of batch {@code batchId} at processing time {@code at}. */
    public record Timer(long batchId, long at) {}

    private final List<SampleRequest[]> bundles = new ArrayList<>();
    private final List<MiniBatchPart> heads = new ArrayList<>();
    private final List<Timer> timers = new ArrayList<>();
    private int retries;

    /**
     * The requests to send, one array per GraphStore subtask (all of one route), in the order
     * decided.
     */
    public List<SampleRequest[]> bundles() {
        return bundles;
    }

    /** The heads of the batches finished, each for the rank its spec names. */
    public List<MiniBatchPart> heads() {
        return heads;
    }

    /** The timers to register. */
    public List<Timer> timers() {
        return timers;
    }

    /**
     * Batches restarted as a new attempt or whose pending requests were sent again (metric {@code
     * batchRetries}).
     */
    public int retries() {
        return retries;
    }

    /** Empties the output for the next call. */
    public void clear() {
        bundles.clear();
        heads.clear();
        timers.clear();
        retries = 0;
    }

    void bundle(SampleRequest[] requests) {
        bundles.add(requests);
    }

    void head(MiniBatchPart head) {
        heads.add(head);
    }

    void timer(long batchId, long at) {
        timers.add(new Timer(batchId, at));
    }

    void retry() {
        retries++;
    }
}

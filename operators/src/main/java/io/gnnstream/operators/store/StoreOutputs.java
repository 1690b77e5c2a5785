package io.gnnstream.operators.store;

import io.gnnstream.operators.messages.GraphEvent;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.messages.PredictionBatch;
import io.gnnstream.operators.messages.SampleResponse;
import java.util.ArrayList;
import java.util.List;

/**
 * What a {@link GraphStore} call produced for its operator to send, in order per kind: sample
 * responses (to the assembler), feature parts (to the trainers), graph events (to the scheduler)
 * and incremental predictions with the deleted vertices among them in their order (to the
 * predictions stage; a deletion as a {@link PredictionBatch#deletion}). The caller empties it after
 * each call ({@link #clear}); reused, it allocates nothing once its lists have grown.
 */
public final class StoreOutputs {

    private final List<SampleResponse> responses = new ArrayList<>();
    private final List<MiniBatchPart> parts = new ArrayList<>();
    private final List<GraphEvent> events = new ArrayList<>();
    private final List<PredictionBatch> predictions = new ArrayList<>();

    void response(SampleResponse response) {
        responses.add(response);
    }

    void part(MiniBatchPart part) {
        parts.add(part);
    }

    void event(GraphEvent event) {
        events.add(event);
    }

    void prediction(PredictionBatch batch) {
        predictions.add(batch);
    }

    /** Incremental predictions and deletions, in the order they happened. */
    public List<PredictionBatch> predictions() {
        return predictions;
    }

    void deleted(long vertex, long latestRoundStep) {
        predictions.add(PredictionBatch.deletion(vertex, latestRoundStep));
    }

    public List<SampleResponse> responses() {
        return responses;
    }

    public List<MiniBatchPart> parts() {
        return parts;
    }

    public List<GraphEvent> events() {
        return events;
    }

    /** The deletions among {@link #predictions}, in order. */
    public List<PredictionBatch> deletions() {
        List<PredictionBatch> out = new ArrayList<>();
        for (PredictionBatch b : predictions) {
            if (b.isDeletion()) {
                out.add(b);
            }
        }
        return out;
    }

    public boolean isEmpty() {
        return responses.isEmpty() && parts.isEmpty() && events.isEmpty() && predictions.isEmpty();
    }

    public void clear() {
        responses.clear();
        parts.clear();
        events.clear();
        predictions.clear();
    }
}

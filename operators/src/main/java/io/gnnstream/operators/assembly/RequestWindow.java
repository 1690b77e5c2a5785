package io.gnnstream.operators.assembly;

import io.gnnstream.operators.messages.SampleRequest;
import io.gnnstream.operators.messages.SampleResponse;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * The assembler role's flow control of the sampling loop (docs/design.md, "Sampling loop and flow
 * control"), free of Flink: the unanswered requests name at most {@code maxVertices} vertices (one
 * request is always allowed), the others wait in a queue. The loop is a cycle of bounded buffers,
 * so a hop of a large batch sent at once could fill it and deadlock the loop; with a small window
 * the requests in flight always fit. A request is released by its response or when it is sent
 * again. Not thread-safe.
 */
public final class RequestWindow {

    private final long maxVertices;
    private final ArrayDeque<SampleRequest> queued = new ArrayDeque<>();
    private final Map<RequestId, Integer> outstanding = new HashMap<>();
    private long outstandingVertices;

    public RequestWindow(long maxVertices) {
        if (maxVertices < 1) {
            throw new IllegalArgumentException("maxVertices must be >= 1, got " + maxVertices);
        }
        this.maxVertices = maxVertices;
    }

    /** Requests to send when the window has room. */
    public void enqueue(Collection<SampleRequest> requests) {
        queued.addAll(requests);
    }

    /** The response to a request arrived: the request leaves the window. */
    public void answered(SampleResponse response) {
        release(new RequestId(response.batchId, response.hop, response.route, response.part));
    }

    /** Requests sent again (their responses are lost): they leave the window and queue again. */
    public void resend(Collection<SampleRequest> lost) {
        for (SampleRequest r : lost) {
            release(RequestId.of(r));
            queued.add(r);
        }
    }

    /**
     * Takes the queued requests that fit into the window, in order, as bundles per route (the
     * GraphStore subtask's); drops those no batch {@code awaits} any more and those already in
     * flight.
     */
    public Collection<List<SampleRequest>> take(Predicate<SampleRequest> awaits) {
        Map<Integer, List<SampleRequest>> bundles = new TreeMap<>();
        while (!queued.isEmpty()) {
            SampleRequest r = queued.peek();
            int weight = r.sampleVertices.length + r.featureVertices.length;
            if (!outstanding.isEmpty() && outstandingVertices + weight > maxVertices) {
                break;
            }
            queued.poll();
            RequestId id = RequestId.of(r);
            if (awaits.test(r) && !outstanding.containsKey(id)) {
                outstanding.put(id, weight);
                outstandingVertices += weight;
                bundles.computeIfAbsent(r.route, route -> new ArrayList<>()).add(r);
            }
        }
        return bundles.values();
    }

    /** Vertices named by the requests in flight. */
    public long outstandingVertices() {
        return outstandingVertices;
    }

    /** Requests waiting for room. */
    public int queued() {
        return queued.size();
    }

    private void release(RequestId id) {
        Integer weight = outstanding.remove(id);
        if (weight != null) {
            outstandingVertices -= weight;
        }
    }

    /** Identity of a request, to match its response. */
    private record RequestId(long batchId, int hop, int route, int part) {
        static RequestId of(SampleRequest r) {
            return new RequestId(r.batchId, r.hop, r.route, r.part);
        }
    }
}

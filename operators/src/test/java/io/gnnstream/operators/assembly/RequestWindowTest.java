package io.gnnstream.operators.assembly;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.gnnstream.operators.messages.SampleRequest;
import io.gnnstream.operators.messages.SampleResponse;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.junit.jupiter.api.Test;

class RequestWindowTest {

    private static SampleRequest request(long batch, int route, int part, int vertices) {
        SampleRequest r = new SampleRequest();
        r.batchId = batch;
        r.hop = 1;
        r.route = route;
        r.part = part;
        r.sampleVertices = new long[vertices];
        r.featureVertices = new long[0];
        return r;
    }

    private static SampleResponse response(SampleRequest r) {
        SampleResponse s = new SampleResponse();
        s.batchId = r.batchId;
        s.hop = r.hop;
        s.route = r.route;
        s.part = r.part;
        return s;
    }

    private static int count(Collection<List<SampleRequest>> bundles) {
        return bundles.stream().mapToInt(List::size).sum();
    }

    @Test
    void requestsWaitForRoomAndOneIsAlwaysAllowed() {
        RequestWindow window = new RequestWindow(10);
        SampleRequest big = request(1, 0, 0, 25);
        SampleRequest a = request(1, 0, 1, 6);
        SampleRequest b = request(1, 4, 2, 6);
        window.enqueue(List.of(big, a, b));
        Collection<List<SampleRequest>> first = window.take(r -> true);
        assertEquals(List.of(List.of(big)), new ArrayList<>(first), "a request over the window");
        assertEquals(25, window.outstandingVertices());
        assertEquals(0, count(window.take(r -> true)), "no room");
        window.answered(response(big));
        Collection<List<SampleRequest>> next = window.take(r -> true);
        assertEquals(List.of(List.of(a)), new ArrayList<>(next), "b does not fit beside a");
        window.answered(response(a));
        assertEquals(List.of(List.of(b)), new ArrayList<>(window.take(r -> true)));
        assertEquals(0, window.queued());
    }

    @Test
    void lostRequestsQueueAgainAndUnwantedOnesAreDropped() {
        RequestWindow window = new RequestWindow(100);
        SampleRequest a = request(1, 0, 0, 5);
        SampleRequest b = request(2, 4, 0, 5);
        window.enqueue(List.of(a, b));
        assertEquals(2, count(window.take(r -> true)));
        window.enqueue(List.of(a));
        assertEquals(0, count(window.take(r -> true)), "already in flight");
        window.resend(List.of(a, b));
        assertEquals(0, window.outstandingVertices());
        Collection<List<SampleRequest>> again = window.take(r -> r.batchId == 2);
        assertEquals(List.of(List.of(b)), new ArrayList<>(again), "batch 1 finished meanwhile");
        assertThrows(IllegalArgumentException.class, () -> new RequestWindow(0));
    }
}

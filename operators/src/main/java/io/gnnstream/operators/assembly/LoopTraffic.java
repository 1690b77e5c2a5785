package io.gnnstream.operators.assembly;

import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.SampleRequest;
import io.gnnstream.operators.messages.SampleResponse;

/**
 * One batch's traffic on the sampling loop, for its head (docs/design.md, "Traffic per batch"):
 * requests sent (retries included), the vertex entries they name, the bytes of requests and
 * responses, and of those the ones exchanged with a GraphStore subtask of another site.
 */
final class LoopTraffic {

    /** The route of the GraphStore subtask on the assembler's site; -1 when none is. */
    int localRoute = -1;

    private int requests;
    private long requestVertices;
    private long bytes;
    private long remoteBytes;
    private int remoteRequests;

    /** A request is sent (or sent again). */
    void request(SampleRequest r) {
        requests++;
        requestVertices += r.sampleVertices.length + r.featureVertices.length;
        long b = requestBytes(r);
        bytes += b;
        if (r.route != localRoute) {
            remoteBytes += b;
            remoteRequests++;
        }
    }

    /** A response is taken. */
    void response(SampleResponse r) {
        long b = responseBytes(r);
        bytes += b;
        if (r.route != localRoute) {
            remoteBytes += b;
        }
    }

    /** Writes the counts into the batch's head. */
    void into(MiniBatch b) {
        b.loopRequests = requests;
        b.loopRequestVertices = requestVertices;
        b.loopBytes = bytes;
        b.remoteLoopBytes = remoteBytes;
        b.remoteLoopRequests = remoteRequests;
    }

    /** The serialized size of a request (its share of a bundle). */
    static long requestBytes(SampleRequest r) {
        return 3L * Long.BYTES
                + 8L * Integer.BYTES
                + (long) Long.BYTES * r.sampleVertices.length
                + (long) (Long.BYTES + Integer.BYTES) * r.featureVertices.length
                + 3L * Integer.BYTES;
    }

    /** The serialized size of a response. */
    static long responseBytes(SampleResponse r) {
        return 1
                + Long.BYTES
                + 3L * Integer.BYTES
                + 4L * Integer.BYTES
                + (long) (Long.BYTES + Integer.BYTES) * r.sampleVertices.length
                + (long) Long.BYTES * (r.neighbours.length + r.servedBits.length)
                + (long) Integer.BYTES * r.summedCounts.length;
    }
}

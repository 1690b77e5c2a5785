package io.gnnstream.operators.internal;

import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.MiniBatchPart;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Joins the {@link MiniBatchPart}s of each batch back into a {@link MiniBatch}, in any arrival
 * order, ignoring repeated parts. Parts are kept as received until their batch is complete, so a
 * checkpoint can store them as they are ({@link #parts()}).
 */
public final class PartialBatches {

    private final Map<Long, List<MiniBatchPart>> bySeq = new HashMap<>();

    /** Takes a part; returns its batch when this was the last part missing, otherwise null. */
    public MiniBatch accept(MiniBatchPart part) {
        if (part.part < 0 || part.part >= part.numParts) {
            throw new IllegalArgumentException("part " + part.part + " of " + part.numParts + " of batch " + part.batchId);
        }
        List<MiniBatchPart> received = bySeq.computeIfAbsent(part.seq, seq -> new ArrayList<>());
        for (MiniBatchPart r : received) {
            if (r.part == part.part) {
                return null;
            }
        }
        received.add(part);
        if (received.size() < part.numParts) {
            return null;
        }
        bySeq.remove(part.seq);
        return assemble(received);
    }

    /** Every part of the incomplete batches. */
    public List<MiniBatchPart> parts() {
        List<MiniBatchPart> all = new ArrayList<>();
        bySeq.values().forEach(all::addAll);
        return all;
    }

    /** Number of incomplete batches. */
    public int size() {
        return bySeq.size();
    }

    /** The batch of a complete set of parts: the head with every part's rows in place. */
    public static MiniBatch assemble(List<MiniBatchPart> parts) {
        MiniBatch head = null;
        for (MiniBatchPart p : parts) {
            if (p.head != null) {
                head = p.head;
            }
        }
        if (head == null) {
            throw new IllegalArgumentException("no part of batch " + parts.get(0).batchId + " carries its head");
        }
        head.features = new float[head.numNodes() * head.featureDim];
        for (MiniBatchPart p : parts) {
            int at = p.firstRow * head.featureDim;
            if (at < 0 || at + p.features.length > head.features.length) {
                throw new IllegalArgumentException("part " + p.part + " of batch " + p.batchId + " has rows outside the batch");
            }
            System.arraycopy(p.features, 0, head.features, at, p.features.length);
        }
        return head;
    }
}

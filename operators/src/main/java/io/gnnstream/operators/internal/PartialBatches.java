package io.gnnstream.operators.internal;

import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.MiniBatchPart;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Joins the head and the feature parts of each batch back into a {@link MiniBatch}, in any arrival
 * order, ignoring repeated parts (a retried request is answered twice) and parts of an earlier
 * attempt than the head's. Parts of a later attempt are kept: after a restore, a batch sampled again
 * may send its feature parts before its head, while the head of the earlier attempt is pending. Parts are kept as received until their batch is complete, so a checkpoint can
 * store them as they are ({@link #parts()}).
 */
public final class PartialBatches {

    private final Map<Long, Pending> bySeq = new HashMap<>();

    /** Takes a part; returns its batch when this was the last part missing, otherwise null. */
    public MiniBatch accept(MiniBatchPart part) {
        check(part);
        Pending pending = bySeq.computeIfAbsent(part.seq, seq -> new Pending());
        if (part.isHead()) {
            if (pending.head != null && pending.head.attempt >= part.attempt) {
                return null;
            }
            pending.head = part;
            pending.features.removeIf(p -> p.attempt < part.attempt);
        } else {
            if (pending.head != null && pending.head.attempt > part.attempt) {
                return null;
            }
            for (MiniBatchPart p : pending.features) {
                if (p.part == part.part && p.attempt == part.attempt) {
                    return null;
                }
            }
            pending.features.add(part);
        }
        if (pending.head == null) {
            return null;
        }
        int attempt = pending.head.attempt;
        if (pending.features.stream().filter(p -> p.attempt == attempt).count() < pending.head.numParts) {
            return null;
        }
        bySeq.remove(part.seq);
        pending.features.removeIf(p -> p.attempt != attempt);
        return assemble(pending.head, pending.features);
    }

    /** Every part of the incomplete batches. */
    public List<MiniBatchPart> parts() {
        List<MiniBatchPart> all = new ArrayList<>();
        for (Pending p : bySeq.values()) {
            if (p.head != null) {
                all.add(p.head);
            }
            all.addAll(p.features);
        }
        return all;
    }

    /** Number of incomplete batches. */
    public int size() {
        return bySeq.size();
    }

    /**
     * The batch of a head and its feature parts: every row's features in place, and the labels of
     * the seeds. Each row must come in exactly one part.
     */
    public static MiniBatch assemble(MiniBatchPart head, List<MiniBatchPart> features) {
        MiniBatch b = head.head;
        int dim = b.featureDim;
        int numNodes = b.numNodes();
        if (features.size() != head.numParts) {
            throw new IllegalArgumentException("batch " + b.batchId + " has " + features.size() + " feature parts, "
                    + head.numParts + " expected");
        }
        b.features = new float[numNodes * dim];
        b.labels = new int[b.numSeeds()];
        boolean[] filled = new boolean[numNodes];
        int rowsFilled = 0;
        for (MiniBatchPart p : features) {
            if (p.features.length != p.rows.length * dim * Float.BYTES) {
                throw new IllegalArgumentException("part " + p.part + " of batch " + b.batchId + " has "
                        + p.features.length + " feature bytes for " + p.rows.length + " rows of " + dim);
            }
            FloatBuffer rows = ByteBuffer.wrap(p.features).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
            for (int j = 0; j < p.rows.length; j++) {
                int row = p.rows[j];
                if (row < 0 || row >= numNodes || filled[row]) {
                    throw new IllegalArgumentException("part " + p.part + " of batch " + b.batchId + " fills row "
                            + row + (row >= 0 && row < numNodes ? " again" : ", outside the batch"));
                }
                filled[row] = true;
                rows.get(j * dim, b.features, row * dim, dim);
                if (row < b.labels.length) {
                    b.labels[row] = p.labels[j];
                }
            }
            rowsFilled += p.rows.length;
        }
        if (rowsFilled != numNodes) {
            throw new IllegalArgumentException("batch " + b.batchId + " has features for " + rowsFilled + " of "
                    + numNodes + " rows");
        }
        return b;
    }

    private static void check(MiniBatchPart part) {
        if (part.isHead() ? part.head == null || part.numParts < 0
                : part.part < 0 || part.rows == null || part.labels == null || part.features == null
                        || part.labels.length != part.rows.length) {
            throw new IllegalArgumentException("malformed part " + part.part + " of batch " + part.batchId);
        }
    }

    /** What has arrived of one batch. */
    private static final class Pending {
        MiniBatchPart head;
        final List<MiniBatchPart> features = new ArrayList<>();
    }
}

package io.gnnstream.operators.internal;

import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.MiniBatchPart;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Joins the head and the feature parts of each batch back into a {@link MiniBatch}, in any arrival
 * order, ignoring repeated parts (a retried request is answered twice) and parts of an earlier
 * attempt than the head's. Parts of a later attempt are kept: after a restore, a batch sampled again
 * may send its feature parts before its head, while the head of the earlier attempt is pending.
 *
 * <p>Once a batch's head is here, each of its parts is placed straight into the batch's feature
 * matrix, cached rows copied from the {@link TrainerFeatureCache}: one copy per row, which matters
 * because copying rows is most of what the trainer does when it is not computing. Parts that come
 * before their head wait, their cached rows copied out first (the slots may be refilled). A
 * checkpoint stores parts as received ({@link #parts()}), those already placed rebuilt from the
 * matrix. Feature matrices of batches trained on come back through {@link #recycle}, so a new
 * batch reuses one instead of having a fresh array of tens of megabytes zeroed.
 */
public final class PartialBatches {

    /** Feature matrices kept for reuse; two batches in flight at a time is the steady state. */
    private static final int POOLED = 3;

    private final Map<Long, Pending> bySeq = new HashMap<>();
    private final ArrayDeque<float[]> pool = new ArrayDeque<>();

    /**
     * Takes a part whose cache references {@code cache} holds ({@link TrainerFeatureCache#holdsAll});
     * returns its batch when this was the last part missing, otherwise null. The caller stores the
     * part's cache fills afterwards.
     */
    public MiniBatch accept(MiniBatchPart part, TrainerFeatureCache cache) {
        check(part);
        Pending pending = bySeq.computeIfAbsent(part.seq, seq -> new Pending());
        if (part.isHead()) {
            if (pending.head != null && pending.head.attempt >= part.attempt) {
                return null;
            }
            if (pending.batch != null) {
                recycle(pending.batch.features);
            }
            pending.start(part, take(part.head.numNodes() * part.head.featureDim));
            List<MiniBatchPart> waiting = new ArrayList<>(pending.waiting);
            pending.waiting.clear();
            for (MiniBatchPart p : waiting) {
                if (p.attempt == part.attempt) {
                    pending.place(p, cache);
                } else if (p.attempt > part.attempt) {
                    pending.waiting.add(p);
                }
            }
        } else if (pending.head != null && part.attempt <= pending.head.attempt) {
            if (part.attempt < pending.head.attempt || pending.placed(part.part)) {
                return null;
            }
            pending.place(part, cache);
        } else {
            for (MiniBatchPart p : pending.waiting) {
                if (p.part == part.part && p.attempt == part.attempt) {
                    return null;
                }
            }
            pending.waiting.add(cache.withCachedRows(part));
        }
        if (pending.head == null || pending.placed.size() < pending.head.numParts) {
            return null;
        }
        bySeq.remove(part.seq);
        return pending.finish();
    }

    /** Hands back the feature matrix of a batch that is no longer used, for a later batch. */
    public void recycle(float[] features) {
        if (features != null && pool.size() < POOLED) {
            pool.push(features);
        }
    }

    /** Every part of the incomplete batches, as received (cache references resolved). */
    public List<MiniBatchPart> parts() {
        List<MiniBatchPart> all = new ArrayList<>();
        for (Pending p : bySeq.values()) {
            if (p.head != null) {
                all.add(p.head);
                for (MiniBatchPart placed : p.placed) {
                    all.add(p.received(placed));
                }
            }
            all.addAll(p.waiting);
        }
        return all;
    }

    /** Number of incomplete batches. */
    public int size() {
        return bySeq.size();
    }

    /** A pooled matrix of at least {@code length} floats, or a new one with room for larger batches. */
    private float[] take(int length) {
        for (var it = pool.iterator(); it.hasNext(); ) {
            float[] features = it.next();
            if (features.length >= length) {
                it.remove();
                return features;
            }
        }
        return new float[length + length / 8];
    }

    private static void check(MiniBatchPart part) {
        if (part.isHead() ? part.head == null || part.numParts < 0
                : part.part < 0 || part.rows == null || part.labels == null || part.features == null
                        || part.labels.length != part.rows.length) {
            throw new IllegalArgumentException("malformed part " + part.part + " of batch " + part.batchId);
        }
    }

    /**
     * What has arrived of one batch: its head and the batch being filled, the parts placed in it
     * (rows and labels only), and the parts waiting for a head of their attempt.
     */
    private static final class Pending {
        MiniBatchPart head;
        MiniBatch batch;
        boolean[] filled;
        int rowsFilled;
        final List<MiniBatchPart> placed = new ArrayList<>();
        final List<MiniBatchPart> waiting = new ArrayList<>();

        void start(MiniBatchPart newHead, float[] features) {
            head = newHead;
            batch = newHead.head.withFeatures(features, new int[newHead.head.numSeeds()]);
            filled = new boolean[batch.numNodes()];
            rowsFilled = 0;
            placed.clear();
        }

        boolean placed(int part) {
            for (MiniBatchPart p : placed) {
                if (p.part == part) {
                    return true;
                }
            }
            return false;
        }

        /** Writes a part's rows into the batch: its own from its bytes, its cached ones from the cache. */
        void place(MiniBatchPart p, TrainerFeatureCache cache) {
            int dim = batch.featureDim;
            int own = p.rows.length;
            if (p.features.length != own * dim * Float.BYTES) {
                throw new IllegalArgumentException("part " + p.part + " of batch " + batch.batchId + " has "
                        + p.features.length + " feature bytes for " + own + " rows of " + dim);
            }
            FloatBuffer bytes = ByteBuffer.wrap(p.features).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
            for (int j = 0; j < own; j++) {
                int row = fill(p, p.rows[j], p.labels[j]);
                bytes.get(j * dim, batch.features, row * dim, dim);
            }
            int cached = p.cachedRows.length;
            int[] rows = Arrays.copyOf(p.rows, own + cached);
            int[] labels = Arrays.copyOf(p.labels, own + cached);
            for (int j = 0; j < cached; j++) {
                int slot = p.cachedSlots[j];
                rows[own + j] = fill(p, p.cachedRows[j], cache.label(slot));
                labels[own + j] = cache.label(slot);
                cache.copyRow(slot, batch.features, rows[own + j] * dim);
            }
            placed.add(MiniBatchPart.features(p.batchId, p.seq, p.trainer, p.attempt, p.part, rows, labels, null));
        }

        private int fill(MiniBatchPart p, int row, int label) {
            if (row < 0 || row >= filled.length || filled[row]) {
                throw new IllegalArgumentException("part " + p.part + " of batch " + batch.batchId + " fills row "
                        + row + (row >= 0 && row < filled.length ? " again" : ", outside the batch"));
            }
            filled[row] = true;
            rowsFilled++;
            if (row < batch.labels.length) {
                batch.labels[row] = label;
            }
            return row;
        }

        MiniBatch finish() {
            if (rowsFilled != filled.length) {
                throw new IllegalArgumentException("batch " + batch.batchId + " has features for " + rowsFilled
                        + " of " + filled.length + " rows");
            }
            return batch;
        }

        /** A placed part as it was received, its features read back from the batch. */
        MiniBatchPart received(MiniBatchPart p) {
            int dim = batch.featureDim;
            byte[] bytes = new byte[p.rows.length * dim * Float.BYTES];
            FloatBuffer out = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
            for (int j = 0; j < p.rows.length; j++) {
                out.put(j * dim, batch.features, p.rows[j] * dim, dim);
            }
            return MiniBatchPart.features(p.batchId, p.seq, p.trainer, p.attempt, p.part, p.rows, p.labels, bytes);
        }
    }
}

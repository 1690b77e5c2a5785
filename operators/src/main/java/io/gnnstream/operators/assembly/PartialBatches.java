package io.gnnstream.operators.assembly;

import com.carrotsearch.hppc.IntIntHashMap;
import io.gnnstream.operators.internal.TrainerFeatureCache;
import io.gnnstream.operators.messages.MiniBatch;
import io.gnnstream.operators.messages.MiniBatchPart;
import io.gnnstream.operators.schedule.BatchAttempts;
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
 * order, ignoring repeated parts (a retried request is answered twice). Of the attempts of a batch
 * only the latest seen is kept: after a restore the batch is sampled again as a later attempt,
 * which comes whole, and whatever remains of the earlier one (restored, or replayed from the
 * checkpoint's in-flight data) is dropped.
 *
 * <p>Each part is placed into the batch's feature matrix as it arrives, cached rows copied from the
 * {@link TrainerFeatureCache}: one copy per row, which matters because copying rows is most of what
 * the trainer does when it is not computing. Parts need not wait for the head, which comes last
 * (the assembler knows the batch's shape only after the last hop): the matrix grows to the largest
 * row placed, and the head only checks that every row came once. Parts addressed by vertex wait for
 * the head, which names their rows; their cached entries stay references to cache slots, copied
 * once into the matrix when the head comes, unless a fill is about to overwrite a slot they name
 * ({@link #beforeFills}), which copies every waiting cached entry out of the cache first. A
 * checkpoint stores the parts as received ({@link #parts}), rebuilt from the matrix. Matrices of
 * batches trained on come back through {@link #recycle}, so a new batch reuses one instead of
 * having a fresh array of tens of megabytes zeroed.
 *
 * <p>The trainer's side of the assembler role (docs/design.md, "Feature paths and caches"), free of
 * Flink: {@code TrainerOperator} feeds it the parts that arrive and snapshots {@link #parts}.
 */
public final class PartialBatches {

    /** Feature matrices kept for reuse. */
    private static final int POOLED = 4;

    private final Map<Long, PendingBatch> bySeq = new HashMap<>();
    private final ArrayDeque<float[]> pool = new ArrayDeque<>();

    /** Floats of the latest batches' matrices; their largest is the capacity of new matrices. */
    private final int[] recentLengths = new int[16];

    private int heads;
    private int typicalLength;

    /** Cache slots that waiting parts addressed by vertex name, with how many entries name each. */
    private final IntIntHashMap pinned = new IntIntHashMap();

    /** Test only: see {@link #acceptingStaleParts()}. */
    private final boolean acceptStaleParts;

    public PartialBatches() {
        this(false);
    }

    private PartialBatches(boolean acceptStaleParts) {
        this.acceptStaleParts = acceptStaleParts;
    }

    /**
     * Test only, never used by the job: joins that re-introduce the race "a stale partial-batch
     * part accepted". A part (or head) of an earlier attempt of a batch than the one being joined,
     * which the trainer must drop ({@link BatchAttempts.OnPart#DROP}: a part of the attempt before
     * a restore or of an earlier generation, restored or replayed from a checkpoint's in-flight
     * data), is joined into the current attempt instead. Where the graph changed between the
     * attempts, it fills rows with another node numbering's features, and the current attempt's
     * part of the same number is then dropped as a repeat: the batch comes out corrupted, or its
     * rows are filled twice. Simulation tests turn it on to show that their seeds find the race.
     */
    public static PartialBatches acceptingStaleParts() {
        return new PartialBatches(true);
    }

    /**
     * Takes a part whose cache references {@code cache} holds ({@link
     * TrainerFeatureCache#holdsAll}); returns its batch when this was the last part missing,
     * otherwise null. The caller stores the part's cache fills afterwards.
     */
    public MiniBatch accept(MiniBatchPart part, TrainerFeatureCache cache) {
        check(part);
        PendingBatch pending = bySeq.get(part.seq);
        BatchAttempts.OnPart action =
                BatchAttempts.onPart(pending == null ? null : pending.attempt, part.attempt);
        if (action == BatchAttempts.OnPart.DROP && acceptStaleParts) {
            action = BatchAttempts.OnPart.JOIN;
        }
        if (action == BatchAttempts.OnPart.BEGIN) {
            if (pending != null) {
                recycle(pending.matrix);
                for (MiniBatchPart waiting : pending.byVertex) {
                    pin(waiting, -1);
                }
            }
            pending = new PendingBatch(part.attempt);
            bySeq.put(part.seq, pending);
        } else if (action == BatchAttempts.OnPart.DROP) {
            return null;
        }
        if (part.isHead()) {
            if (pending.head != null) {
                return null;
            }
            pending.head = part;
            recentLengths[heads++ % recentLengths.length] =
                    part.head.numNodes() * part.head.featureDim;
            typicalLength = Arrays.stream(recentLengths).max().getAsInt();
            pending.checkRows();
            if (!pending.byVertex.isEmpty()) {
                pending.ensureMatrix(this);
                for (MiniBatchPart waiting : pending.byVertex) {
                    pending.place(pending.resolve(waiting, cache.featureDim()), cache);
                    pin(waiting, -1);
                }
                pending.byVertex.clear();
            }
        } else {
            if (pending.parts.get(part.part)) {
                return null;
            }
            long bytes = bytes(part);
            pending.featureBytes += bytes;
            if (part.sender >= 0 && part.sender != part.trainer) {
                pending.remoteFeatureBytes += bytes;
            }
            pending.ensureMatrix(this);
            if (!part.byVertex()) {
                pending.place(part, cache);
            } else if (pending.head != null) {
                pending.place(pending.resolve(part, cache.featureDim()), cache);
            } else {
                pending.parts.set(part.part);
                pending.byVertex.add(part);
                pin(part, 1);
            }
        }
        if (pending.head == null || pending.parts.cardinality() < pending.head.numParts) {
            return null;
        }
        bySeq.remove(part.seq);
        return pending.finish();
    }

    /**
     * Hands back the feature matrix of a batch that is no longer used, for a later batch; one too
     * small for the latest batches is left to the garbage collector.
     */
    public void recycle(float[] matrix) {
        if (matrix != null && matrix.length >= typicalLength && pool.size() < POOLED) {
            pool.push(matrix);
        }
    }

    /**
     * To be called before {@code part}'s fills are stored in {@code cache}: when one of them
     * overwrites a slot that a waiting part names, every waiting cached entry is copied out of the
     * cache first (fills overwrite a named slot only when the GraphStore evicted its vertex).
     */
    public void beforeFills(MiniBatchPart part, TrainerFeatureCache cache) {
        if (pinned.isEmpty() || part.isHead() || part.fillSlots == null) {
            return;
        }
        for (int slot : part.fillSlots) {
            if (slot >= 0 && pinned.containsKey(slot)) {
                for (PendingBatch p : bySeq.values()) {
                    p.byVertex.replaceAll(waiting -> withCachedEntries(waiting, cache));
                }
                pinned.clear();
                return;
            }
        }
    }

    private void pin(MiniBatchPart part, int delta) {
        for (int slot : part.cachedSlots) {
            if (pinned.addTo(slot, delta) == 0) {
                pinned.remove(slot);
            }
        }
    }

    /**
     * Every part of the incomplete batches, as received (cache references resolved from {@code
     * cache}; a part addressed by vertex that was placed comes back addressed by the rows it
     * filled).
     */
    public List<MiniBatchPart> parts(TrainerFeatureCache cache) {
        List<MiniBatchPart> all = new ArrayList<>();
        for (PendingBatch p : bySeq.values()) {
            if (p.head != null) {
                all.add(p.head);
            }
            for (MiniBatchPart placed : p.placed) {
                all.add(p.received(placed));
            }
            for (MiniBatchPart waiting : p.byVertex) {
                all.add(withCachedEntries(waiting, cache));
            }
        }
        return all;
    }

    /**
     * A part addressed by vertex with its cached entries' features and labels copied out of the
     * cache.
     */
    private static MiniBatchPart withCachedEntries(MiniBatchPart p, TrainerFeatureCache cache) {
        int own = p.vertices.length;
        int cached = p.cachedVertices.length;
        if (cached == 0) {
            return p;
        }
        int dim = cache.featureDim();
        long[] vertices = Arrays.copyOf(p.vertices, own + cached);
        System.arraycopy(p.cachedVertices, 0, vertices, own, cached);
        int[] labels = Arrays.copyOf(p.labels, own + cached);
        byte[] features = Arrays.copyOf(p.features, (own + cached) * dim * Float.BYTES);
        FloatBuffer out = ByteBuffer.wrap(features).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
        float[] row = new float[dim];
        for (int j = 0; j < cached; j++) {
            cache.copyRow(p.cachedSlots[j], row, 0);
            out.put((own + j) * dim, row);
            labels[own + j] = cache.label(p.cachedSlots[j]);
        }
        MiniBatchPart whole =
                MiniBatchPart.features(
                        p.batchId,
                        p.seq,
                        p.trainer,
                        p.attempt,
                        p.part,
                        new int[0],
                        labels,
                        features);
        whole.vertices = vertices;
        return whole;
    }

    /** The serialized size of a feature part as it arrived. */
    static long bytes(MiniBatchPart p) {
        long arrays =
                (long) Integer.BYTES
                                * (p.rows.length
                                        + p.labels.length
                                        + p.fillSlots.length
                                        + p.cachedRows.length
                                        + p.cachedSlots.length
                                        + (p.degrees == null ? 0 : p.degrees.length))
                        + (p.vertices == null
                                ? 0
                                : (long) Long.BYTES
                                        * (p.vertices.length + p.cachedVertices.length));
        return 48 + arrays + (p.features == null ? 0 : p.features.length);
    }

    /** Number of incomplete batches. */
    public int size() {
        return bySeq.size();
    }

    /** A pooled matrix with room for the latest batches, or a new one with some more. */
    float[] take() {
        while (!pool.isEmpty()) {
            float[] matrix = pool.pop();
            if (matrix.length >= typicalLength) {
                return matrix;
            }
        }
        return new float[typicalLength + typicalLength / 8];
    }

    private static void check(MiniBatchPart part) {
        if (part.isHead()
                ? part.head == null || part.numParts < 0 || part.servedRows == null
                : part.part < 0
                        || part.rows == null
                        || part.labels == null
                        || part.features == null
                        || part.cachedRows == null
                        || part.cachedSlots == null
                        || part.labels.length
                                != (part.byVertex() ? part.vertices.length : part.rows.length)
                        || (part.byVertex()
                                && (part.rows.length > 0
                                        || part.cachedRows.length > 0
                                        || part.cachedVertices == null
                                        || part.cachedVertices.length != part.cachedSlots.length))
                        || part.cachedEntries() != part.cachedSlots.length
                        || (part.degrees != null
                                && (part.byVertex()
                                        || part.degrees.length
                                                != part.rows.length + part.cachedRows.length))) {
            throw new IllegalArgumentException(
                    "malformed part " + part.part + " of batch " + part.batchId);
        }
    }
}

package io.gnnstream.operators.internal;

import io.gnnstream.operators.messages.MiniBatchPart;

/**
 * A trainer's cache of vertex features and labels in numbered slots, filled and referenced by the
 * feature parts the GraphStore sends it (each GraphStore subtask manages a share of the slots with
 * a {@link FeatureCacheDirectory}). Features of the vertices sampled again and again then cross the
 * network once, not once per batch: moving them was most of the GraphStore's work per batch.
 *
 * <p>Resolving a part reads its references before it stores its fills, since the GraphStore may
 * have evicted a referenced vertex for one filled by the same part. Each slot remembers the epoch
 * of the directory that filled it; a reference to a slot filled under another epoch (or never
 * filled in this incarnation of the trainer: the cache is not checkpointed) cannot be resolved, and
 * such a part is dropped. That happens only to parts sent before a restore and replayed from the
 * checkpoint's in-flight data; the scheduler samples every unacknowledged batch again after a
 * restore, so the batch still comes whole. Slot pages are allocated when first filled.
 */
public final class TrainerFeatureCache {

    /** Heap bytes per slot besides the features: label and epoch. */
    public static final int SLOT_OVERHEAD_BYTES = Integer.BYTES + Long.BYTES;

    private static final int PAGE_BYTES = 16 << 20;

    private final int rowBytes;
    private final int slotsPerPage;
    private final byte[][] pages;
    private final int[] labels;
    private final long[] epochs;

    public TrainerFeatureCache(int slots, int featureDim) {
        if (slots < 0 || featureDim < 1) {
            throw new IllegalArgumentException("cache of " + slots + " slots of " + featureDim + " features");
        }
        this.rowBytes = featureDim * Float.BYTES;
        this.slotsPerPage = Math.max(1, PAGE_BYTES / rowBytes);
        this.pages = new byte[(slots + slotsPerPage - 1) / slotsPerPage][];
        this.labels = new int[slots];
        this.epochs = new long[slots];
    }

    public int slots() {
        return epochs.length;
    }

    /**
     * Resolves a feature part: returns it with the features and labels of its cached rows copied in
     * (the part itself when it references none), or null when it references a slot this cache does
     * not hold for the part's epoch. Either way the part's fills are stored.
     */
    public MiniBatchPart resolve(MiniBatchPart part) {
        if (part.isHead() || part.cacheEpoch == MiniBatchPart.NO_CACHE) {
            return part;
        }
        if (part.rows == null || part.labels == null || part.features == null || part.fillSlots == null
                || part.cachedRows == null || part.cachedSlots == null || part.labels.length != part.rows.length
                || part.fillSlots.length != part.rows.length || part.cachedSlots.length != part.cachedRows.length
                || part.features.length != part.rows.length * rowBytes) {
            throw new IllegalArgumentException("malformed cached part " + part.part + " of batch " + part.batchId);
        }
        MiniBatchPart resolved = holdsAll(part) ? withCachedRows(part) : null;
        int[] fills = part.fillSlots;
        for (int j = 0; j < fills.length; j++) {
            if (fills[j] >= 0 && fills[j] < epochs.length) {
                store(fills[j], part.cacheEpoch, part.labels[j], part.features, j * rowBytes);
            }
        }
        return resolved;
    }

    private boolean holdsAll(MiniBatchPart part) {
        for (int slot : part.cachedSlots) {
            if (slot < 0 || slot >= epochs.length || epochs[slot] != part.cacheEpoch) {
                return false;
            }
        }
        return true;
    }

    /** A part of features only: its own rows first, then the cached ones. */
    private MiniBatchPart withCachedRows(MiniBatchPart part) {
        int own = part.rows.length;
        int cached = part.cachedRows.length;
        if (cached == 0) {
            return MiniBatchPart.features(part.batchId, part.seq, part.trainer, part.attempt, part.part, part.rows,
                    part.labels, part.features);
        }
        int[] rows = new int[own + cached];
        int[] rowLabels = new int[own + cached];
        byte[] features = new byte[(own + cached) * rowBytes];
        System.arraycopy(part.rows, 0, rows, 0, own);
        System.arraycopy(part.labels, 0, rowLabels, 0, own);
        System.arraycopy(part.features, 0, features, 0, own * rowBytes);
        for (int j = 0; j < cached; j++) {
            int slot = part.cachedSlots[j];
            rows[own + j] = part.cachedRows[j];
            rowLabels[own + j] = labels[slot];
            System.arraycopy(pages[slot / slotsPerPage], (slot % slotsPerPage) * rowBytes,
                    features, (own + j) * rowBytes, rowBytes);
        }
        return MiniBatchPart.features(part.batchId, part.seq, part.trainer, part.attempt, part.part, rows,
                rowLabels, features);
    }

    private void store(int slot, long epoch, int label, byte[] features, int from) {
        int page = slot / slotsPerPage;
        if (pages[page] == null) {
            int slotsInPage = Math.min(slotsPerPage, epochs.length - page * slotsPerPage);
            pages[page] = new byte[slotsInPage * rowBytes];
        }
        System.arraycopy(features, from, pages[page], (slot % slotsPerPage) * rowBytes, rowBytes);
        labels[slot] = label;
        epochs[slot] = epoch;
    }
}

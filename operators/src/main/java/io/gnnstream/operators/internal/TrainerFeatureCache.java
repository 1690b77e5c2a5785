package io.gnnstream.operators.internal;

import io.gnnstream.operators.messages.MiniBatchPart;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;

/**
 * A trainer's cache of vertex features and labels in numbered slots, filled and referenced by the
 * feature parts the GraphStore sends it (each GraphStore subtask manages a share of the slots with
 * a {@link io.gnnstream.operators.store.FeatureCacheDirectory}). Features of the vertices sampled
 * again and again then cross the network once, not once per batch: without the cache, moving them
 * is most of the GraphStore's work per batch (docs/design.md, "Feature paths and caches").
 *
 * <p>A part's references must be read ({@link #copyRow}, {@link #label}) before its fills are
 * stored ({@link #storeFills}), since the GraphStore may have evicted a referenced vertex for one
 * filled by the same part. Each slot remembers the epoch of the directory that filled it; a
 * reference to a slot filled under another epoch (or never filled in this incarnation of the
 * trainer: the cache is not checkpointed) cannot be resolved ({@link #holdsAll}), and such a part
 * is dropped. That happens only to parts sent before a restore and replayed from the checkpoint's
 * in-flight data; the scheduler samples every unacknowledged batch again after a restore, so the
 * batch still comes whole. Features are kept decoded, so a hit is one array copy into the batch;
 * slot pages are allocated when first filled.
 */
public final class TrainerFeatureCache {

    /** Heap bytes per slot besides the features: label and epoch. */
    public static final int SLOT_OVERHEAD_BYTES = Integer.BYTES + Long.BYTES;

    private static final int PAGE_FLOATS = 4 << 20;

    private final int dim;
    private final int slotsPerPage;
    private final float[][] pages;
    private final int[] labels;
    private final long[] epochs;

    public TrainerFeatureCache(int slots, int featureDim) {
        if (slots < 0 || featureDim < 1) {
            throw new IllegalArgumentException(
                    "cache of " + slots + " slots of " + featureDim + " features");
        }
        this.dim = featureDim;
        this.slotsPerPage = Math.max(1, PAGE_FLOATS / featureDim);
        this.pages = new float[(slots + slotsPerPage - 1) / slotsPerPage][];
        this.labels = new int[slots];
        this.epochs = new long[slots];
    }

    public int slots() {
        return epochs.length;
    }

    public int featureDim() {
        return dim;
    }

    /**
     * True when every slot a feature part references holds features of the part's epoch (always for
     * heads and parts without references); throws when the part is not well formed.
     */
    public boolean holdsAll(MiniBatchPart part) {
        if (part.isHead() || part.cacheEpoch == MiniBatchPart.NO_CACHE) {
            return true;
        }
        if (part.rows == null
                || part.labels == null
                || part.features == null
                || part.fillSlots == null
                || part.cachedRows == null
                || part.cachedSlots == null
                || part.cachedVertices == null
                || part.labels.length != part.ownEntries()
                || part.fillSlots.length != part.ownEntries()
                || part.cachedSlots.length != part.cachedEntries()
                || part.features.length != part.ownEntries() * dim * Float.BYTES) {
            throw new IllegalArgumentException(
                    "malformed cached part " + part.part + " of batch " + part.batchId);
        }
        for (int slot : part.cachedSlots) {
            if (slot < 0 || slot >= epochs.length || epochs[slot] != part.cacheEpoch) {
                return false;
            }
        }
        return true;
    }

    /**
     * Copies the features of a slot {@link #holdsAll} vouched for into {@code dst} at {@code
     * offset}.
     */
    public void copyRow(int slot, float[] dst, int offset) {
        System.arraycopy(pages[slot / slotsPerPage], (slot % slotsPerPage) * dim, dst, offset, dim);
    }

    public int label(int slot) {
        return labels[slot];
    }

    /**
     * Stores the rows a feature part brings for the slots it names, whether or not the part is
     * used.
     */
    public void storeFills(MiniBatchPart part) {
        if (part.isHead() || part.cacheEpoch == MiniBatchPart.NO_CACHE) {
            return;
        }
        FloatBuffer in =
                ByteBuffer.wrap(part.features).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
        int[] fills = part.fillSlots;
        for (int j = 0; j < fills.length; j++) {
            int slot = fills[j];
            if (slot >= 0 && slot < epochs.length) {
                int page = slot / slotsPerPage;
                if (pages[page] == null) {
                    pages[page] =
                            new float
                                    [Math.min(slotsPerPage, epochs.length - page * slotsPerPage)
                                            * dim];
                }
                in.get(j * dim, pages[page], (slot % slotsPerPage) * dim, dim);
                labels[slot] = part.labels[j];
                epochs[slot] = part.cacheEpoch;
            }
        }
    }
}

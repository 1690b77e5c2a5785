package io.gnnstream.operators.store;

import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A GraphStore subtask's record of what one trainer holds in the share of slots of its {@link
 * io.gnnstream.operators.internal.TrainerFeatureCache} that this subtask manages: which vertex's
 * features and label sit in which slot. The GraphStore decides every placement (the trainer only
 * stores what a feature part tells it to), so the two agree without messages of their own: a vertex
 * found here is sent as a slot reference instead of its features; one not found gets a slot,
 * evicting by CLOCK, and is sent with its features and the slot to keep them in.
 *
 * <p>Heap only and never checkpointed; {@link #epoch} names this incarnation, so that a trainer can
 * tell references it cannot resolve (parts sent before a restore, replayed from a checkpoint's
 * in-flight data) from those it can. The owner invalidates a vertex whenever its attributes change.
 */
public final class FeatureCacheDirectory {

    private static final long FREE = Long.MIN_VALUE;

    private final int firstSlot;
    private final long epoch;
    private final VertexSlotTable slotOf;
    private final long[] vertexAt;
    private final boolean[] referenced;

    /** Slots freed by {@link #invalidate}, taken before the clock hand moves on. */
    private final int[] freed;

    private int freedCount;
    private int hand;

    /**
     * Manages slots {@code [firstSlot, firstSlot + slots)} of a trainer's cache.
     *
     * @param epoch non-zero, and different for every incarnation of the owner
     */
    public FeatureCacheDirectory(int firstSlot, int slots, long epoch) {
        if (firstSlot < 0 || slots < 1 || epoch == 0) {
            throw new IllegalArgumentException(
                    "directory of "
                            + slots
                            + " slots from "
                            + firstSlot
                            + ", epoch "
                            + epoch
                            + ": needs firstSlot >= 0, slots >= 1 and a non-zero epoch");
        }
        this.firstSlot = firstSlot;
        this.epoch = epoch;
        this.slotOf = new VertexSlotTable(slots);
        this.vertexAt = new long[slots];
        this.referenced = new boolean[slots];
        this.freed = new int[slots];
        Arrays.fill(vertexAt, FREE);
    }

    /**
     * Subtask {@code subtask}'s equal share of a trainer cache of {@code slots} slots shared by
     * {@code subtasks} GraphStore subtasks, with a random epoch; null when the share is empty.
     */
    public static FeatureCacheDirectory shareOf(int slots, int subtasks, int subtask) {
        int share = slots / subtasks;
        if (share == 0) {
            return null;
        }
        long epoch;
        do {
            epoch = ThreadLocalRandom.current().nextLong();
        } while (epoch == 0);
        return new FeatureCacheDirectory(subtask * share, share, epoch);
    }

    public long epoch() {
        return epoch;
    }

    /**
     * {@link #lookup} of every vertex of {@code vertices}: the trainer's slots, -1 where it holds
     * none. The probes of a group of vertices overlap their cache misses ({@link
     * VertexSlotTable#getAll}), which matters since the directory is probed in random order for
     * every source row of every batch.
     */
    public int[] lookupAll(long[] vertices) {
        int[] slots = new int[vertices.length];
        slotOf.getAll(vertices, 0, vertices.length, slots);
        for (int j = 0; j < slots.length; j++) {
            int local = slots[j];
            if (local >= 0) {
                referenced[local] = true;
                slots[j] = firstSlot + local;
            }
        }
        return slots;
    }

    /** The trainer's slot holding {@code vertex}'s features, or -1; a hit counts as a use. */
    public int lookup(long vertex) {
        int local = slotOf.get(vertex);
        if (local < 0) {
            return -1;
        }
        referenced[local] = true;
        return firstSlot + local;
    }

    /**
     * Gives {@code vertex} (not in the directory) a slot: the latest one {@link #invalidate} freed,
     * else the first the clock hand finds unused since it last passed (free or evicted). The new
     * entry starts unused, so it survives one sweep only if it is looked up again. Taking freed
     * slots first keeps the trainer's pages (allocated when first filled) to the most vertices held
     * at once, not to the whole budget, when attributes change all the time.
     */
    public int assign(long vertex) {
        if (freedCount > 0) {
            // The hand runs only when none is freed, so a freed slot is still free here.
            int local = freed[--freedCount];
            vertexAt[local] = vertex;
            slotOf.put(vertex, local);
            return firstSlot + local;
        }
        int local;
        while (true) {
            local = hand;
            hand = hand + 1 == vertexAt.length ? 0 : hand + 1;
            if (!referenced[local]) {
                break;
            }
            referenced[local] = false;
        }
        if (vertexAt[local] != FREE) {
            slotOf.remove(vertexAt[local]);
        }
        vertexAt[local] = vertex;
        slotOf.put(vertex, local);
        return firstSlot + local;
    }

    /** Forgets {@code vertex} (its features changed): the next request sends them again. */
    public void invalidate(long vertex) {
        int local = slotOf.remove(vertex);
        if (local >= 0) {
            vertexAt[local] = FREE;
            referenced[local] = false;
            freed[freedCount++] = local;
        }
    }

    /** Number of vertices the trainer holds for this directory. */
    public int size() {
        return slotOf.size();
    }
}

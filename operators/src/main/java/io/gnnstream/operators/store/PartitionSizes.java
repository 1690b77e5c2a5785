package io.gnnstream.operators.store;

import io.gnnstream.operators.messages.GraphEvent;
import io.gnnstream.state.VertexKey;
import java.util.Arrays;
import java.util.BitSet;
import java.util.function.Consumer;
import org.apache.flink.api.common.state.KeyedStateStore;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.array.LongPrimitiveArraySerializer;

/**
 * The GraphStore's per-partition sizes: a heap copy of each partition's figures, loaded from the
 * partition anchor's keyed state on first use, written back for the partitions changed since the
 * last snapshot ({@link #flush}), and published to the scheduler as {@link GraphEvent}s for the
 * partitions changed since the last publication ({@link #publish}). Each partition records the
 * vertex assignment it was built with; a job with another one fails on first use. Methods that read
 * state switch the operator's current key (through {@code keys}) and set the caller's key again.
 */
public final class PartitionSizes {

    public static final ValueStateDescriptor<long[]> STATE =
            new ValueStateDescriptor<>("partition-stats", LongPrimitiveArraySerializer.INSTANCE);

    public static final int VERTICES = 0;
    public static final int EDGES = 1;
    public static final int EDGES_INGESTED = 2;

    /** The partitioner's fingerprint (absent, i.e. hash, in older state). */
    public static final int ASSIGNMENT = 3;

    /** Halo replicas the partition's key holds (absent, i.e. none, in older state). */
    public static final int REPLICAS = 4;

    /**
     * Added edges whose source lives in another partition (absent, i.e. not counted, in older
     * state).
     */
    public static final int CUT_EDGES_INGESTED = 5;

    private static final int LENGTH = CUT_EDGES_INGESTED + 1;

    private final ValueState<long[]> state;
    private final CurrentKey keys;
    private final long fingerprint;

    /** Per partition (indexed by it, null until first used). */
    private final long[][] sizes;

    private final BitSet unpublished = new BitSet();
    private final BitSet unflushed = new BitSet();

    public PartitionSizes(
            KeyedStateStore store, CurrentKey keys, int partitions, long fingerprint) {
        this.state = store.getState(STATE);
        this.keys = keys;
        this.fingerprint = fingerprint;
        this.sizes = new long[partitions][];
    }

    /**
     * The figures of {@code current}'s partition, to change in place; {@code current} is the key
     * afterwards.
     */
    public long[] of(VertexKey current) throws Exception {
        int partition = current.partition();
        long[] s = sizes[partition];
        if (s == null) {
            keys.set(VertexKey.anchor(partition));
            long[] stored = state.value();
            keys.set(current);
            if (stored == null) {
                s = new long[LENGTH];
                s[ASSIGNMENT] = fingerprint;
            } else {
                s = checked(partition, stored);
            }
            sizes[partition] = s;
        }
        return s;
    }

    /**
     * After a restore: loads the stored figures of every {@code owned} partition and marks them for
     * publication. A snapshot holds figures the scheduler may not have been sent yet (they go out
     * at most every stats interval); without this they would reach it only with the partition's
     * next change, and a graph already whole would never look whole to it.
     */
    public void loadStored(boolean[] owned) throws Exception {
        for (int p = 0; p < owned.length; p++) {
            if (owned[p] && sizes[p] == null) {
                keys.set(VertexKey.anchor(p));
                long[] stored = state.value();
                if (stored != null) {
                    sizes[p] = checked(p, stored);
                    unpublished.set(p);
                }
            }
        }
    }

    private long[] checked(int partition, long[] stored) {
        long[] s = Arrays.copyOf(stored, Math.max(stored.length, LENGTH));
        if (s[ASSIGNMENT] != fingerprint) {
            throw new IllegalStateException(
                    "partition "
                            + partition
                            + " was built with vertex assignment "
                            + Long.toHexString(s[ASSIGNMENT])
                            + " (0 = hash) but this job assigns by "
                            + Long.toHexString(fingerprint)
                            + ": resume with the --partition-map the job was started with");
        }
        return s;
    }

    /** Marks {@code partition}'s figures changed. */
    public void touched(int partition) {
        unpublished.set(partition);
        unflushed.set(partition);
    }

    /** The sum of one figure over the partitions used so far. */
    public long sum(int field) {
        long total = 0;
        for (long[] s : sizes) {
            total += s == null ? 0 : s[field];
        }
        return total;
    }

    /** Sets the stored replica count of every {@code owned} partition to zero (before any use). */
    public void forgetReplicas(boolean[] owned) throws Exception {
        for (int p = 0; p < owned.length; p++) {
            if (owned[p]) {
                keys.set(VertexKey.anchor(p));
                long[] stored = state.value();
                if (stored != null && stored.length > REPLICAS && stored[REPLICAS] != 0) {
                    stored[REPLICAS] = 0;
                    state.update(stored);
                }
            }
        }
    }

    /** Writes the figures changed since the last call to their anchors' state. */
    public void flush() throws Exception {
        for (int p = unflushed.nextSetBit(0); p >= 0; p = unflushed.nextSetBit(p + 1)) {
            keys.set(VertexKey.anchor(p));
            state.update(sizes[p].clone());
        }
        unflushed.clear();
    }

    /** Hands {@code events} a statistics event per partition changed since the last call. */
    public void publish(Consumer<GraphEvent> events) {
        for (int p = unpublished.nextSetBit(0); p >= 0; p = unpublished.nextSetBit(p + 1)) {
            long[] s = sizes[p];
            events.accept(
                    GraphEvent.stats(
                            p,
                            s[VERTICES],
                            s[EDGES],
                            s[EDGES_INGESTED],
                            s[REPLICAS],
                            s[CUT_EDGES_INGESTED]));
        }
        unpublished.clear();
    }
}

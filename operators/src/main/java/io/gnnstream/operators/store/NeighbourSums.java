package io.gnnstream.operators.store;

import com.carrotsearch.hppc.LongHashSet;
import com.carrotsearch.hppc.cursors.LongCursor;
import io.gnnstream.state.VertexPartitioner;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.state.KeyedStateStore;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;

/**
 * Per vertex and model layer {@code m}, keyed state {@code incremental-sum-m}: the sum of what
 * layer {@code m} aggregates of the vertex's evaluation neighbourhood (features for layer 0, else
 * the stored rows' neighbour parts), with the neighbourhood's size and, for a hub above the fanout,
 * the largest rank it selects (which tells whether a changed neighbour is one of it). A sum is
 * tagged with the pinned round's step and is valid only under it; a new pin, or a change of the
 * neighbourhood (which clears it), leaves it to be computed again from the neighbours. Record: a
 * version byte, step, rank bound, count, then the sum as little-endian floats.
 *
 * <p>Each layer's records pass through a {@link VertexValueCache} (never checkpointed): a changed
 * row adds its difference to each reader's sum, and the reader's recomputation then reads that sum,
 * so most reads find the record on the heap instead of in RocksDB. Up to {@link #MAX_DIRTY} records
 * per layer are written back instead of through: the state takes them when the cache evicts them or
 * at {@link #flush} (each snapshot), so a sum that takes many differences between two checkpoints
 * is written once.
 */
final class NeighbourSums {

    static final byte VERSION = 1;

    /**
     * Records per layer that may differ from the state's at once (written back), which bounds what
     * {@link #flush} writes at a snapshot.
     */
    static final int MAX_DIRTY = 1 << 15;

    private static final int HEADER = 1 + Long.BYTES + Long.BYTES + Integer.BYTES;
    private static final VarHandle FLOATS =
            MethodHandles.byteArrayViewVarHandle(float[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONGS =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INTS =
            MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    /** A valid sum as read. */
    record Sum(float[] values, int count, long rankBound) {}

    private final List<ValueState<byte[]>> layers = new ArrayList<>();
    private final List<VertexValueCache> caches = new ArrayList<>();

    /** Per layer: the vertices whose cached record the state does not have yet (all cached). */
    private final List<LongHashSet> dirty = new ArrayList<>();

    /** Whether an eviction wrote a record since this was last cleared (and so switched keys). */
    private boolean wroteEvicted;

    private final VertexPartitioner partitioner;
    private final CurrentKey keys;
    private final int maxDirty;

    /**
     * @param cacheBytes heap for each layer's records read or written last (0: none)
     */
    NeighbourSums(
            KeyedStateStore store,
            VertexPartitioner partitioner,
            CurrentKey keys,
            int n,
            long cacheBytes) {
        this(store, partitioner, keys, n, cacheBytes, MAX_DIRTY);
    }

    /** As above, with at most {@code maxDirty} records per layer written back (tests take few). */
    NeighbourSums(
            KeyedStateStore store,
            VertexPartitioner partitioner,
            CurrentKey keys,
            int n,
            long cacheBytes,
            int maxDirty) {
        this.maxDirty = maxDirty;
        this.partitioner = partitioner;
        this.keys = keys;
        for (int m = 0; m < n; m++) {
            layers.add(
                    store.getState(
                            new ValueStateDescriptor<>(
                                    "incremental-sum-" + m,
                                    PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO)));
            VertexValueCache cache = new VertexValueCache(cacheBytes);
            LongHashSet layerDirty = new LongHashSet();
            int layer = m;
            ValueState<byte[]> state = layers.get(m);
            cache.onEviction(
                    (v, r) -> {
                        if (layerDirty.remove(v)) {
                            // The caller makes its own vertex's key current again.
                            keys.set(partitioner.keyOf(v));
                            try {
                                state.update(r);
                            } catch (IOException e) {
                                throw new UncheckedIOException(e);
                            }
                            wroteEvicted = true;
                        }
                    });
            caches.add(cache);
            dirty.add(layerDirty);
        }
    }

    /**
     * Keeps {@code r}, the record of layer {@code m} of {@code v}, in the cache for the state to
     * take later, if the layer's written-back records leave room and the cache takes it; else
     * writes it. Leaves {@code v}'s key current.
     */
    private void write(int m, long v, byte[] r) throws Exception {
        LongHashSet layerDirty = dirty.get(m);
        boolean back = layerDirty.size() < maxDirty || layerDirty.contains(v);
        if (back) {
            // Marked first: an eviction of the record by its own put finds it dirty and writes it.
            layerDirty.add(v);
        }
        if (!caches.get(m).put(v, r) && back) {
            layerDirty.remove(v);
            back = false;
        }
        keys.set(partitioner.keyOf(v));
        if (!back) {
            layers.get(m).update(r);
        }
    }

    /** Gives the state every record written back (before a snapshot of it). */
    void flush() throws Exception {
        for (int m = 0; m < layers.size(); m++) {
            VertexValueCache cache = caches.get(m);
            for (LongCursor c : dirty.get(m)) {
                byte[] r = cache.get(c.value); // cached while dirty
                keys.set(partitioner.keyOf(c.value));
                layers.get(m).update(r);
            }
            dirty.get(m).clear();
        }
    }

    /**
     * The stored record of layer {@code m} of {@code v}: the cache's, else the state's (cached).
     */
    private byte[] record(int m, long v) throws Exception {
        VertexValueCache cache = caches.get(m);
        byte[] r = cache.get(v);
        if (r == null) {
            keys.set(partitioner.keyOf(v));
            r = layers.get(m).value();
            if (r != null) {
                wroteEvicted = false;
                cache.put(v, r);
                if (wroteEvicted) {
                    keys.set(partitioner.keyOf(v));
                }
            }
        }
        return r;
    }

    /** The sum of layer {@code m} of {@code v} valid under {@code step}, or null. */
    Sum get(int m, long v, long step) throws Exception {
        byte[] r = record(m, v);
        if (r == null || r[0] != VERSION || (long) LONGS.get(r, 1) != step) {
            return null;
        }
        float[] values = new float[(r.length - HEADER) / Float.BYTES];
        for (int c = 0, b = HEADER; c < values.length; c++, b += Float.BYTES) {
            values[c] = (float) FLOATS.get(r, b);
        }
        return new Sum(values, (int) INTS.get(r, 1 + 2 * Long.BYTES), (long) LONGS.get(r, 9));
    }

    void put(int m, long v, long step, Sum sum) throws Exception {
        byte[] r = new byte[HEADER + sum.values().length * Float.BYTES];
        r[0] = VERSION;
        LONGS.set(r, 1, step);
        LONGS.set(r, 9, sum.rankBound());
        INTS.set(r, 1 + 2 * Long.BYTES, sum.count());
        for (int c = 0, b = HEADER; c < sum.values().length; c++, b += Float.BYTES) {
            FLOATS.set(r, b, sum.values()[c]);
        }
        write(m, v, r);
    }

    /**
     * Adds {@code delta[from, from + n)} to the sum of layer {@code m} of {@code v} if it is valid
     * under {@code step} and its neighbourhood holds a neighbour of rank {@code rank}; true if so.
     */
    boolean add(int m, long v, long step, long rank, float[] delta, int from, int n)
            throws Exception {
        byte[] r = record(m, v);
        if (r == null || r[0] != VERSION || (long) LONGS.get(r, 1) != step) {
            return false;
        }
        if (rank > (long) LONGS.get(r, 9)) {
            return true; // not among a hub's selected neighbours: its sum does not change
        }
        for (int c = 0, b = HEADER; c < n; c++, b += Float.BYTES) {
            FLOATS.set(r, b, (float) FLOATS.get(r, b) + delta[from + c]);
        }
        // The cached record changed in place (written back), or the state takes a copy.
        write(m, v, r);
        return true;
    }

    /** Forgets the sum of layer {@code m} of {@code v}. */
    void clear(int m, long v) throws Exception {
        keys.set(partitioner.keyOf(v));
        layers.get(m).clear();
        caches.get(m).invalidate(v);
        dirty.get(m).remove(v);
    }

    /** Forgets every layer's sum of {@code v} (its neighbourhood changed, or it was deleted). */
    void clear(long v) throws Exception {
        keys.set(partitioner.keyOf(v));
        for (int m = 0; m < layers.size(); m++) {
            layers.get(m).clear();
            caches.get(m).invalidate(v);
            dirty.get(m).remove(v);
        }
    }
}
